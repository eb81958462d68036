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

/**
 * client-go's `BucketRateLimiter`: one token bucket shared by every item (`perSecond`, bursts of `burst`),
 * so a storm of failures across many items is retried at a bounded overall rate, where the per-item
 * limiter alone would retry each of them after 5 ms. Like `rate.Limiter.Reserve`, each call takes a token
 * whether or not one is there: past the burst the calls queue up, each waiting its turn.
 */
export class BucketRateLimiter<K> implements RateLimiter<K> {
  readonly #perSecond: number;
  readonly #burst: number;
  readonly #nowMs: () => number;
  #tokens: number;
  #atMs: number;

  constructor(perSecond = 10, burst = 100, nowMs: () => number = Date.now) {
    this.#perSecond = perSecond;
    this.#burst = burst;
    this.#nowMs = nowMs;
    this.#tokens = burst;
    this.#atMs = nowMs();
  }

  when(_item: K): number {
    const now = this.#nowMs();
    // A clock stepped back refills nothing (and takes nothing back).
    const elapsedMs = Math.max(0, now - this.#atMs);
    this.#atMs = Math.max(this.#atMs, now);
    this.#tokens = Math.min(this.#burst, this.#tokens + (elapsedMs * this.#perSecond) / 1000) - 1;
    return this.#tokens >= 0 ? 0 : Math.ceil((-this.#tokens * 1000) / this.#perSecond);
  }

  forget(_item: K): void {}

  numRequeues(_item: K): number {
    return 0;
  }
}

/** client-go's `MaxOfRateLimiter`: the longest delay any of `limiters` asks for; each of them counts the failure. */
export class MaxOfRateLimiter<K> implements RateLimiter<K> {
  readonly #limiters: readonly RateLimiter<K>[];

  constructor(...limiters: RateLimiter<K>[]) {
    this.#limiters = limiters;
  }

  when(item: K): number {
    return Math.max(0, ...this.#limiters.map((limiter) => limiter.when(item)));
  }

  forget(item: K): void {
    for (const limiter of this.#limiters) limiter.forget(item);
  }

  numRequeues(item: K): number {
    return Math.max(0, ...this.#limiters.map((limiter) => limiter.numRequeues(item)));
  }
}

export interface ControllerRateLimits {
  /** Per item: the first retry's delay, doubling with each failure up to `maxMs`. */
  baseMs?: number;
  maxMs?: number;
  /** Overall, across items: retries a second, and the burst allowed above that. */
  perSecond?: number;
  burst?: number;
  nowMs?: () => number;
}

/**
 * client-go's `DefaultControllerRateLimiter`, whose figures are the defaults: per item 5 ms doubling up to
 * 1000 s, and overall at most 10 retries a second with bursts of 100, whichever is longer.
 */
export function controllerRateLimiter<K>(limits: ControllerRateLimits = {}): RateLimiter<K> {
  const { baseMs = 5, maxMs = 1_000_000, perSecond = 10, burst = 100, nowMs = Date.now } = limits;
  return new MaxOfRateLimiter<K>(new ItemExponentialRateLimiter<K>(baseMs, maxMs), new BucketRateLimiter<K>(perSecond, burst, nowMs));
}
