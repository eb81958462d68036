// The errors the JSON API's writes answer with, beside those of the reads (revision_not_found, …).
import { Type } from 'typebox';
import { PublicError } from '../../../src/errors.ts';
import type { ErrorDetails } from '../../errors.ts';
import { ErrorBodySchema } from '../schemas.ts';

const CurrentOid = Type.Union([Type.String(), Type.Null()], { description: 'ref_mismatch, tag_exists: where the ref is now (null: it does not exist).' });

/** The 409 body of a write: the error body, plus `current_oid` when a ref was not where the request expected. */
export const RefConflictBody = Type.Object({ ...ErrorBodySchema.properties, current_oid: Type.Optional(CurrentOid) });

/** The 409 body of a write that can conflict by path: the above, plus `conflicts`. */
export const PathConflictBody = Type.Object({
  ...RefConflictBody.properties,
  conflicts: Type.Optional(Type.Array(Type.String(), { description: 'merge_conflict, path_conflict: the paths that conflict, sorted.' })),
});

/**
 * 409: a ref is not where the request expected it (a stale `expected_old_oid`, `expected_head_oid` or
 * `expected_base_oid`), or a tag to create exists (`tag_exists`). Every write route answers a stale expectation
 * with this one code and `current_oid`, so a client re-reads from one field whichever route it called.
 */
export class RefMismatchError extends PublicError implements ErrorDetails {
  override readonly name = 'RefMismatchError';
  readonly code: 'ref_mismatch' | 'tag_exists';
  readonly details: { readonly current_oid: string | null };
  constructor(ref: string, current: string | undefined, code: 'ref_mismatch' | 'tag_exists' = 'ref_mismatch') {
    super(409, current === undefined ? `${ref} does not exist.` : `${ref} is at ${current}.`);
    this.code = code;
    this.details = { current_oid: current ?? null };
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

/**
 * 409: the write would create refs past what one repository may hold (`quota.repository_max_refs`); nothing was
 * written. Moving and deleting refs is never refused, so deleting refs makes room again.
 */
export class RefLimitError extends PublicError {
  override readonly name = 'RefLimitError';
  readonly code = 'ref_limit_reached';
  constructor(repo: string, maxRefs: number) {
    super(409, `${repo} may hold at most ${maxRefs} refs (branches, tags and any other refs together), and this write would create more; nothing was written. Delete refs you no longer need first.`);
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
