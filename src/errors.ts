/**
 * The error taxonomy shared by the API server, the operator and the CLI. Code below `api/` throws these;
 * `api/plugins/problem-details.ts` is the one place that turns them into HTTP problem details.
 */

/** Raised for a failure that retrying cannot fix; the controller runtime counts it and does not requeue. */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';
}

/** An error whose message is safe to show to the caller, with the HTTP status it maps to. */
export class PublicError extends Error {
  override readonly name: string = 'PublicError';
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(status: number, detail: string, headers: Record<string, string> = {}) {
    super(detail);
    this.status = status;
    this.headers = headers;
  }
}

/** A dependency the request needs is not reachable right now; the caller may retry. */
export class UnavailableError extends PublicError {
  override readonly name = 'UnavailableError';
  constructor(detail: string, retryAfterSeconds = 5) {
    super(503, detail, { 'retry-after': String(retryAfterSeconds) });
  }
}
