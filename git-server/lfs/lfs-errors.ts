// LFS answers that are not the object: each a `PublicError` with a code, rendered by cw-git's error handler
// (git-server/errors.ts) as `{"error", "message", "retryable"}`; git-lfs shows the `message` to its user.
import { PublicError } from '../../src/errors.ts';

export class LfsError extends PublicError {
  override readonly name = 'LfsError';
  readonly code: string;
  constructor(status: number, code: string, detail: string) {
    super(status, detail);
    this.code = code;
  }
}

export const objectNotFound = (oid: string) => new LfsError(404, 'object_not_found', `LFS object ${oid} does not exist.`);
export const invalidOid = (oid: string) => new LfsError(422, 'invalid_oid', `"${oid.slice(0, 80)}" is not an LFS object id (64 lowercase hex digits of SHA-256).`);
export const tooLarge = (max: number) => new LfsError(413, 'too_large', `LFS objects may be at most ${max} bytes.`);
