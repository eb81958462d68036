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

/** 400: the request names something invalid (an unknown scope, an unknown device code). */
export class BadRequestError extends PublicError {
  override readonly name: string = 'BadRequestError';

  constructor(detail: string) {
    super(400, detail);
  }
}

/** 404: the resource does not exist for this caller (also used for other users' tokens, see personal-tokens.ts). */
export class NotFoundError extends PublicError {
  override readonly name = 'NotFoundError';

  constructor(detail: string) {
    super(404, detail);
  }
}

/** 409: the request conflicts with the resource's current state (a device code already decided). */
export class ConflictError extends PublicError {
  override readonly name = 'ConflictError';

  constructor(detail: string) {
    super(409, detail);
  }
}
