import { hash, timingSafeEqual } from 'node:crypto';

/** The fewest characters a shared secret between two of the platform's processes may have (as cw-db's admin token). */
export const MIN_SHARED_SECRET_LENGTH = 32;

/**
 * A check of `Authorization: Bearer <secret>` against one secret two processes share (a Secret both pods
 * read). Both sides are hashed before the constant-time comparison, so neither the time taken nor an early
 * length mismatch says anything about the secret. Returns false for a missing or malformed header.
 */
export function bearerSecretCheck(secret: string): (authorization: string | undefined) => boolean {
  const expected = hash('sha256', secret, 'buffer');
  return (authorization) => {
    const match = /^Bearer (\S+)$/.exec(authorization ?? '');
    return match !== null && timingSafeEqual(hash('sha256', match[1] ?? '', 'buffer'), expected);
  };
}
