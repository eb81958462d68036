// Presigned URLs: one method on one key of the bucket, for whoever holds the URL, until it expires. A build's
// sandbox gets these instead of any credential of the platform (docs/push-to-deploy.md, "Build sandbox").

/** SigV4's longest validity (S3 refuses longer): seven days. */
export const MAX_PRESIGNED_SECONDS = 7 * 24 * 60 * 60;

export type PresignedMethod = 'GET' | 'PUT';

export interface ObjectUrlSigner {
  /**
   * A URL that lets anyone `method` the object `key` (relative to the signer's bucket) for `expiresInSeconds`
   * (1 to {@link MAX_PRESIGNED_SECONDS}): a GET reads it, a PUT writes it whole (any content type). Signing is
   * local: nothing is asked of the store, so a missing object shows only when the URL is used (404).
   */
  presign(key: string, method: PresignedMethod, expiresInSeconds: number): Promise<string>;
}

/** Throws a RangeError for a key or an expiry no store would honour. */
export function checkPresignRequest(key: string, expiresInSeconds: number): void {
  if (!key || key.startsWith('/')) throw new RangeError(`cannot presign the key ${JSON.stringify(key)}: keys are relative to the bucket and not empty`);
  if (!Number.isInteger(expiresInSeconds) || expiresInSeconds < 1 || expiresInSeconds > MAX_PRESIGNED_SECONDS) {
    throw new RangeError(`a presigned URL lasts 1 to ${MAX_PRESIGNED_SECONDS} whole seconds, not ${expiresInSeconds}`);
  }
}
