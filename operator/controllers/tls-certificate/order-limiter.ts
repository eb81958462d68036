/**
 * Per-account rate discipline: new orders drawn from a token bucket, so thousands of host names attached at
 * once become a steady stream the CA accepts (Let's Encrypt allows 300 new orders per account per 3 hours)
 * instead of a burst it refuses. Shared by the controller's workers; renewals and first orders alike.
 */
export class OrderLimiter {
  readonly #perHour: number;
  readonly #burst: number;
  readonly #now: () => number;
  #tokens: number;
  #at: number;

  constructor(options: { readonly perHour: number; readonly burst: number; readonly now?: () => number }) {
    this.#perHour = options.perHour;
    this.#burst = options.burst;
    this.#now = options.now ?? Date.now;
    this.#tokens = options.burst;
    this.#at = this.#now();
  }

  /** Takes a token and answers 0, or answers how many milliseconds until one is free (taking none). */
  take(): number {
    const now = this.#now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#at) * this.#perHour) / 3_600_000);
    this.#at = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.#tokens) * 3_600_000) / this.#perHour);
  }
}
