// The two timestamp formats of the Kubernetes API, written in one place.

/**
 * `metav1.Time`: RFC 3339 in UTC with whole seconds. The fraction is dropped, so a time rounds down: a stored
 * expiry may come early, never late.
 */
export function formatTime(time: Date | number): string {
  return new Date(time).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** `metav1.MicroTime` (Lease times): RFC 3339 in UTC with exactly six fractional digits. */
export function formatMicroTime(time: Date | number): string {
  return new Date(time).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
