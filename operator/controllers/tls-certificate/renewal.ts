/** Without renewal information from the CA, a certificate is renewed in the last third of its lifetime. */
export function lastThird(notBefore: Date, notAfter: Date): { start: Date; end: Date } {
  const lifetime = notAfter.getTime() - notBefore.getTime();
  const start = new Date(notAfter.getTime() - lifetime / 3);
  // Leave the last ninth of the lifetime for retries after the window: renewing ends well before expiry.
  const end = new Date(notAfter.getTime() - lifetime / 9);
  return { start, end };
}

/**
 * The moment chosen in a renewal window: uniformly at random, as RFC 9773 §4.2 asks, so that a CA's many
 * clients (and one operator's many certificates) do not all come at the window's start. A window already
 * past renews now.
 */
export function renewalTime(window: { start: Date; end: Date }, now: Date, random: () => number = Math.random): Date {
  if (window.end.getTime() <= now.getTime()) return now;
  const from = Math.max(window.start.getTime(), now.getTime());
  return new Date(from + Math.floor(random() * (window.end.getTime() - from)));
}

/** How often a served certificate's renewal information is asked again when the CA names no `Retry-After`. */
export const RENEWAL_INFO_RECHECK_MS = 6 * 3600 * 1000;
/** Bounds on a CA's `Retry-After` for renewal information (RFC 9773 §4.3.2 suggests clamping). */
const RENEWAL_INFO_MIN_MS = 60_000;
const RENEWAL_INFO_MAX_MS = 24 * 3600 * 1000;

/** When to ask the CA's renewal information again after it failed to answer (RFC 9773 §4.3.3: retry later, not at once). */
export const RENEWAL_INFO_RETRY_MS = 3600 * 1000;

/** When to ask the CA again after an answer carrying `retryAfterSeconds`. */
export function renewalInfoRecheck(now: Date, retryAfterSeconds: number | undefined): Date {
  const ms = retryAfterSeconds === undefined ? RENEWAL_INFO_RECHECK_MS : Math.min(Math.max(retryAfterSeconds * 1000, RENEWAL_INFO_MIN_MS), RENEWAL_INFO_MAX_MS);
  return new Date(now.getTime() + ms);
}
