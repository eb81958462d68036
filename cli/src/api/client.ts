// The API client: openapi-fetch typed by the types generated from the API's own OpenAPI document
// (schema.ts, `make openapi`), so a request or response field the API does not have fails to compile.
import { setTimeout as sleep } from 'node:timers/promises';
import createClient, { type Client, defaultPathSerializer } from 'openapi-fetch';
import { ApiError, CliError, UsageError } from '../errors.ts';
import { VERSION } from '../version.ts';
import type { paths } from './schema.ts';

export type Api = Client<paths>;

export function apiClient(baseUrl: string, token?: string): Api {
  const headers: Record<string, string> = { 'user-agent': `cw/${VERSION}` };
  if (token) headers.authorization = `Bearer ${token}`;
  return createClient<paths>({ baseUrl, headers, pathSerializer: checkedPath, fetch: waitingOutRateLimits() });
}

/** How often, and how long at most each time, `cw` waits out a 429 by itself before it reports it. */
export const RATE_LIMIT_WAITS = { attempts: 3, maxSeconds: 10 };

/**
 * `fetch` that sends a request again after a 429 whose `Retry-After` is a few seconds: the API answers so
 * before it does anything (a rate, write or in-flight limit), so the request is safe to repeat, and a script
 * run through `cw` slows down instead of failing. A longer wait, or a 429 past the attempts, is reported.
 */
function waitingOutRateLimits(): (request: Request) => Promise<Response> {
  return async (request) => {
    // A JSON body is a few KB, kept to send again; an upload (an artifact of up to 64 MiB) is sent once, not held twice.
    const repeatable = request.body === null || (request.headers.get('content-type') ?? '').startsWith('application/json');
    for (let attempt = 1; ; attempt++) {
      const last = !repeatable || attempt >= RATE_LIMIT_WAITS.attempts;
      // A body can be sent once: each attempt but the last sends a copy.
      const response = await fetch(last ? request : request.clone());
      const header = response.headers.get('retry-after')?.trim();
      const seconds = header ? Number(header) : Number.NaN;
      if (response.status !== 429 || last || !(seconds >= 0 && seconds <= RATE_LIMIT_WAITS.maxSeconds)) return response;
      await response.body?.cancel();
      await sleep(seconds * 1000);
    }
  };
}

/**
 * Path parameters as openapi-fetch writes them, refusing `.`, `..` and empty ones: a URL parser resolves those
 * away, so `cw apps rm ..` would otherwise address the collection above the app.
 */
function checkedPath(pathname: string, params: Record<string, unknown>): string {
  for (const [name, value] of Object.entries(params)) {
    if (value === '' || value === '.' || value === '..') throw new UsageError(`${JSON.stringify(value)} is not a valid ${name.replace(/Id$/, ' id')}`);
  }
  return defaultPathSerializer(pathname, params);
}

interface Answer<D> {
  data?: D;
  error?: unknown;
  response: Response;
}

/** Awaits a request and returns its data, or throws the API's problem detail as one readable line. */
export async function expectOk<D>(request: Promise<Answer<D>>, baseUrl: string): Promise<D> {
  let answer: Answer<D>;
  try {
    answer = await request;
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw unreachable(err, baseUrl);
  }
  if (answer.response.ok) return answer.data as D;
  throw apiError(answer.response, answer.error);
}

/** The problem detail's `detail` (RFC 9457), an OAuth `error_description`, else the status line. */
export function apiError(response: Response, body: unknown): ApiError {
  const problem = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const text = [problem.detail, problem.error_description, problem.title].find((v): v is string => typeof v === 'string' && v.length > 0);
  let message = text ?? `${response.status} ${response.statusText || 'error'}`.trim();
  if (response.status === 401) message += ' (run `cw login`, or set CW_TOKEN)';
  return new ApiError(response.status, message);
}

/** A request that got no HTTP answer at all: say where `cw` tried to go and why it failed. */
export function unreachable(err: unknown, baseUrl: string): CliError {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const why = cause?.code ?? cause?.message ?? (err as Error).message;
  return new CliError(`cannot reach the API at ${baseUrl} (${why})`);
}
