/**
 * A synchronous commit whose segment reached the bucket, but whose replica could not confirm after that it still
 * owns the database: the lease could not be read (review-171 F6), or another replica had taken it (review-174 R6).
 * Its message is the client's answer (with `DURABILITY_UNAVAILABLE`): not that nothing was copied, but what is known.
 */
export class DurabilityUnconfirmedError extends Error {
  override readonly name = 'DurabilityUnconfirmedError';
}

/** The lease could not be read after the upload: the commit stands here, and is kept if this replica still owns it. */
export const LEASE_UNREAD =
  'The commit reached the object store, but this replica could not confirm it still owns the database; it stands here and is kept if it does (retrying a write may apply it twice)';

/** Another replica had taken the database when the lease was read after the upload: the commit may be lost. */
export const LEASE_TAKEN = 'Another replica took the database over before the commit was confirmed; it may be lost: read before retrying it';
