// The errors of an import from a URL, each naming the source and what to do. None quotes credentials: they are
// never in the URL (parseSourceUrl refuses that), and git's own output is summarised from its last line.
import { PublicError } from '../../src/errors.ts';

const where = (url: URL) => url.href;

/** 403: the source resolves to an internal address (the target policy), or sent git to another host. */
export class SourceRefusedError extends PublicError {
  override readonly name = 'SourceRefusedError';
  readonly code = 'source_refused';
  constructor(url: URL, why: string) {
    super(403, `Import from ${where(url)} refused: ${why}.`);
  }
}

/** 422: the source answered 401 or 403. */
export class SourceAuthError extends PublicError {
  override readonly name = 'SourceAuthError';
  readonly code = 'source_authentication_failed';
  constructor(url: URL, withCredentials: boolean) {
    super(
      422,
      withCredentials
        ? `${where(url)} refused the credentials given (it answered 401 or 403); check them and that they may read the repository.`
        : `${where(url)} needs credentials: send \`credentials\` ({"token": …} or {"username": …, "password": …}) with the request.`,
    );
  }
}

/** 422: the source has no repository at that URL. */
export class SourceNotFoundError extends PublicError {
  override readonly name = 'SourceNotFoundError';
  readonly code = 'source_not_found';
  constructor(url: URL) {
    super(422, `${where(url)} is not a git repository (it answered 404).`);
  }
}

/** 422: the source sent more than `api.import_max_size`. */
export class SourceTooLargeError extends PublicError {
  override readonly name = 'SourceTooLargeError';
  readonly code = 'source_too_large';
  constructor(url: URL, maxBytes: number) {
    super(422, `${where(url)} sent more than ${maxBytes} bytes, the most an import may fetch (api.import_max_size); nothing was imported.`);
  }
}

/** 422: the source has more branches and tags than an import takes. */
export class SourceTooManyRefsError extends PublicError {
  override readonly name = 'SourceTooManyRefsError';
  readonly code = 'source_too_large';
  constructor(url: URL, maxRefs: number) {
    super(422, `${where(url)} has more than ${maxRefs} branches and tags, the most an import takes; nothing was imported.`);
  }
}

/** 504: the source did not finish within `api.import_timeout`. */
export class SourceTimeoutError extends PublicError {
  override readonly name = 'SourceTimeoutError';
  readonly code = 'source_timeout';
  constructor(url: URL, timeoutMs: number) {
    super(504, `${where(url)} did not finish within ${timeoutMs / 1000} s (api.import_timeout); nothing was imported.`);
  }
}

/** 502: the source could not be reached (no address, connection refused, TLS not verified). */
export class SourceUnreachableError extends PublicError {
  override readonly name = 'SourceUnreachableError';
  readonly code = 'source_unreachable';
  constructor(url: URL, why: string) {
    super(502, `${where(url)} could not be reached: ${why}.`);
  }
}

/** 502: git failed against the source for another reason. */
export class SourceFailedError extends PublicError {
  override readonly name = 'SourceFailedError';
  readonly code = 'source_failed';
  constructor(url: URL, why: string) {
    super(502, `git could not read ${where(url)}: ${why}.`);
  }
}
