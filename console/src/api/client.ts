// The console's API client: openapi-fetch typed by the API's own OpenAPI document (schema.ts, generated),
// sending the session cookie (same origin) and, on every state-changing request, the session's CSRF token.
// The page holds no credential: the cookie is HttpOnly, and the CSRF token alone authenticates nothing.
import createClient from 'openapi-fetch';
import type { paths } from './schema.ts';

let csrfToken: string | null = null;
let onSignedOut: (() => void) | undefined;

/** Called when the API says the session is gone (expired, revoked, signed out elsewhere). */
export function whenSignedOut(listener: () => void): void {
  onSignedOut = listener;
}

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });

api.use({
  onRequest({ request }) {
    if (csrfToken && request.method !== 'GET' && request.method !== 'HEAD') request.headers.set('x-csrf-token', csrfToken);
    return request;
  },
  onResponse({ request, response }) {
    // A 401 to a request made with the session (not with a token of its own, as the SQL console's) means the
    // session is gone.
    if (response.status === 401 && csrfToken && !request.headers.has('authorization')) onSignedOut?.();
    return response;
  },
});

/** An answer that was not a success, with the problem detail's `detail` as its message. */
export class ProblemError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** Awaits a call: its data, or a ProblemError saying what the API said. */
export async function ok<D>(request: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<D> {
  let answer;
  try {
    answer = await request;
  } catch {
    throw new ProblemError(0, 'The server could not be reached; check your connection and try again.');
  }
  if (answer.response.ok) return answer.data as D;
  const problem = (answer.error ?? {}) as { detail?: string; title?: string };
  throw new ProblemError(answer.response.status, problem.detail ?? problem.title ?? `The server answered ${answer.response.status}.`);
}
