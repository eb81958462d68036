// The 409s of `POST /api/merges`: each a stable code, and the fields a client acts on beside the message.
import { PublicError } from '../../../src/errors.ts';
import type { ErrorDetails } from '../../errors.ts';
import { PathConflictBody } from './write-errors.ts';

/** The 409 body: the error body, plus `conflicts` (merge_conflict) or `current_oid` (ref_mismatch). */
export const MergeConflictBody = PathConflictBody;

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
