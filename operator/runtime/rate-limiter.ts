/** Decides how long a failing item waits before its next try (client-go `workqueue.TypedRateLimiter`). */
export interface RateLimiter<K> {
  /** The delay for the next retry of `item`; each call counts as one more failure. */
  when(item: K): number;
  /** Clears the failure history of `item` (after a success). */
  forget(item: K): void;
  /** How many failures are counted for `item`. */
  numRequeues(item: K): number;
}

/**
 * client-go's `ItemExponentialFailureRateLimiter`: `baseMs * 2^failures`, capped at `maxMs`. The defaults
 * (5 ms up to 1000 s) are those of client-go's default controller rate limiter.
 */
export class ItemExponentialRateLimiter<K> implements RateLimiter<K> {
  readonly #failures = new Map<K, number>();
  readonly #baseMs: number;
  readonly #maxMs: number;

  constructor(baseMs = 5, maxMs = 1_000_000) {
    this.#baseMs = baseMs;
    this.#maxMs = maxMs;
  }

  when(item: K): number {
    const exp = this.#failures.get(item) ?? 0;
    this.#failures.set(item, exp + 1);
    // Past 2^1023 the product overflows to Infinity; the cap handles it like client-go's overflow check.
    return Math.min(this.#baseMs * 2 ** exp, this.#maxMs);
  }

  forget(item: K): void {
    this.#failures.delete(item);
  }

  numRequeues(item: K): number {
    return this.#failures.get(item) ?? 0;
  }
}
