/**
 * A synchronous commit whose segment reached the bucket, but whose replica could not read its lease after that to
 * confirm it still owns the database (review-171 F6): the commit stands on this replica and is kept if it does. The
 * client is told so, not that nothing was copied, and that a blind retry of a write may apply it twice.
 */
export class DurabilityUnconfirmedError extends Error {
  override readonly name = 'DurabilityUnconfirmedError';
}
