// The 409s of `POST /api/merges`: each a stable code, and the fields a client acts on beside the message.
import { Type } from 'typebox';
import { PublicError } from '../../../src/errors.ts';
import type { ErrorDetails } from '../../errors.ts';
import { ErrorBodySchema } from '../schemas.ts';

/** The 409 body: the error body, plus `conflicts` (merge_conflict) or `current_oid` (base_moved). */
export const MergeConflictBody = Type.Object({
  ...ErrorBodySchema.properties,
  conflicts: Type.Optional(Type.Array(Type.String(), { description: 'merge_conflict: the paths that conflict, sorted.' })),
  current_oid: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'base_moved: where the branch is now (null: it was deleted).' })),
});

/** The trees of base and head conflict; nothing was written. */
export class MergeConflictError extends PublicError implements ErrorDetails {
  override readonly name = 'MergeConflictError';
  readonly code = 'merge_conflict';
  readonly details: { readonly conflicts: readonly string[] };
  constructor(conflicts: readonly string[]) {
    const shown = conflicts.slice(0, 5).join(', ') + (conflicts.length > 5 ? `, and ${conflicts.length - 5} more` : '');
    super(409, `The merge conflicts in ${conflicts.length === 1 ? 'one path' : `${conflicts.length} paths`}: ${shown}. Resolve them on a branch and merge that.`);
    this.details = { conflicts };
  }
}

/** The branch is not at `expected_base_oid` (any more); the client re-reads and decides again. */
export class BaseMovedError extends PublicError implements ErrorDetails {
  override readonly name = 'BaseMovedError';
  readonly code = 'base_moved';
  readonly details: { readonly current_oid: string | null };
  constructor(ref: string, expected: string, current: string | undefined) {
    super(409, current ? `${ref} is at ${current}, not at expected_base_oid ${expected}.` : `${ref} no longer exists (expected_base_oid was ${expected}).`);
    this.details = { current_oid: current ?? null };
  }
}

/** fast-forward-only, and the branch has commits the head lacks. */
export class NotFastForwardError extends PublicError {
  override readonly name = 'NotFastForwardError';
  readonly code = 'not_fast_forward';
  constructor(ref: string, head: string) {
    super(409, `${ref} cannot be fast-forwarded to ${head}: it has commits ${head} does not. Use strategy merge or squash.`);
  }
}

/** Base and head share no commit. */
export class UnrelatedHistoriesError extends PublicError {
  override readonly name = 'UnrelatedHistoriesError';
  readonly code = 'unrelated_histories';
  constructor(ref: string, head: string) {
    super(409, `${ref} and ${head} share no history; merging them would join two unrelated projects.`);
  }
}

/** The branch merged into does not exist. */
export class BranchNotFoundError extends PublicError {
  override readonly name = 'BranchNotFoundError';
  readonly code = 'branch_not_found';
  constructor(ref: string) {
    super(404, `${ref} does not exist.`);
  }
}
