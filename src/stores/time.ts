/**
 * `date` as Kubernetes writes a `metav1.Time`: RFC 3339 in UTC, whole seconds, rounded down. Rounding down
 * keeps the promise of `TokenRecord.expiresAt`: a stored expiry may come early, never late.
 */
export function toKubeTime(date: Date): string {
  return new Date(Math.floor(date.getTime() / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
