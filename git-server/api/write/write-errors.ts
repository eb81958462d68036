// The errors the JSON API's writes answer with, beside those of the reads (revision_not_found, …).
import { PublicError } from '../../../src/errors.ts';

/** 409: a ref is not where the request expected it (`expected_old_oid`), or a tag to create exists. */
export class RefMismatchError extends PublicError {
  override readonly name = 'RefMismatchError';
  readonly code: string;
  constructor(ref: string, current: string | undefined, code = 'ref_mismatch') {
    super(409, current === undefined ? `${ref} does not exist.` : `${ref} is at ${current}.`);
    this.code = code;
  }
}

/** 409: the ref cannot exist beside another whose name is a directory of it, or under it. */
export class RefNameConflictError extends PublicError {
  override readonly name = 'RefNameConflictError';
  readonly code = 'ref_name_conflict';
  constructor(ref: string, other: string | undefined) {
    super(409, `${ref} conflicts with ${other ?? 'another ref'}: a ref cannot also be a directory of refs.`);
  }
}

/** 404: the ref to delete does not exist. */
export class RefNotFoundError extends PublicError {
  override readonly name = 'RefNotFoundError';
  readonly code = 'ref_not_found';
  constructor(ref: string) {
    super(404, `${ref} does not exist.`);
  }
}

/** 400: the request names something a write cannot use (a bad ref name, a target that is not a commit). */
export class InvalidWriteError extends PublicError {
  override readonly name = 'InvalidWriteError';
  readonly code: string;
  constructor(message: string, code = 'invalid_request') {
    super(400, message);
    this.code = code;
  }
}
