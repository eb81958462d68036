// The two answers of authentication: who are you (401) and you may not (403). Both are `PublicError`s with a
// `code`, so cw-git's error handler (git-server/errors.ts) renders them like every other error.
import { PublicError } from '../../src/errors.ts';

/**
 * `WWW-Authenticate` of a 401. Basic, because stock `git` and `git-lfs` answer a Basic challenge by asking
 * their credential helper, and then send the token as the Basic password; Bearer works without a challenge.
 */
export const AUTHENTICATE_CHALLENGE = 'Basic realm="cw-git", charset="UTF-8"';

/** No usable credentials. The message says why, and never repeats what was sent. */
export class UnauthenticatedError extends PublicError {
  override readonly name = 'UnauthenticatedError';
  readonly code = 'unauthenticated';
  constructor(detail: string) {
    super(401, detail, { 'www-authenticate': AUTHENTICATE_CHALLENGE });
  }
}

/** Authenticated, but the token lacks the scope the route needs. */
export class ForbiddenError extends PublicError {
  override readonly name = 'ForbiddenError';
  readonly code = 'forbidden';
  constructor(detail: string) {
    super(403, detail);
  }
}
