import { RecentMap } from '../../src/collections/recent-map.ts';

export interface RateLimitOptions {
  /** Sustained requests per second per caller. */
  perSecond: number;
  /** Requests a caller may send at once after being idle. */
  burst: number;
  /**
   * Callers remembered at most (memory stays bounded), half of them tokens and half addresses. A caller is
   * forgotten, and so starts again with a full burst, only once a quarter this many other callers of its
   * kind have been seen since its last request.
   */
  maxCallers?: number;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/**
 * A token bucket per key (a token id, an address): each holds up to `burst` requests and refills at
 * `perSecond`. At most `capacity` keys are remembered ({@link RecentMap}); a forgotten key starts full again.
 */
export class TokenBuckets {
  readonly #perSecond: number;
  readonly #burst: number;
  readonly #nowMs: () => number;
  readonly #buckets: RecentMap<Bucket>;

  constructor(options: Pick<RateLimitOptions, 'perSecond' | 'burst'>, capacity: number, nowMs: () => number) {
    this.#perSecond = options.perSecond;
    this.#burst = options.burst;
    this.#nowMs = nowMs;
    this.#buckets = new RecentMap(capacity);
  }

  /** Spends one request of `key`'s bucket: the whole requests left after it, or `undefined` (nothing spent) when it was empty. */
  take(key: string): number | undefined {
    const bucket = this.#refilled(key);
    if (bucket.tokens < 1) return undefined;
    bucket.tokens -= 1;
    return Math.floor(bucket.tokens);
  }

  /** Whether `key`'s bucket holds a request, spending nothing. */
  hasRoom(key: string): boolean {
    // A key never seen has a full bucket: not stored until it spends, so asking remembers nothing.
    return this.#buckets.get(key) === undefined || this.#refilled(key).tokens >= 1;
  }

  /** Whole seconds until `key`'s bucket holds a request again (at least 1, as `Retry-After` says it). */
  retryAfterSeconds(key: string): number {
    return Math.max(1, Math.ceil((1 - this.#refilled(key).tokens) / this.#perSecond));
  }

  #refilled(key: string): Bucket {
    const now = this.#nowMs();
    let bucket = this.#buckets.get(key);
    if (bucket) {
      // A clock stepped back (NTP, a test's clock) refills nothing rather than draining the bucket.
      const elapsedMs = Math.max(0, now - bucket.updatedMs);
      bucket.tokens = Math.min(this.#burst, bucket.tokens + (elapsedMs / 1000) * this.#perSecond);
      bucket.updatedMs = now;
    } else {
      bucket = { tokens: this.#burst, updatedMs: now };
      this.#buckets.set(key, bucket);
    }
    return bucket;
  }
}

/** `50 requests per second`, or `10 requests per minute` for a rate below one a second (of `what`, default requests). */
export function describeRate(perSecond: number, what = 'requests'): string {
  return perSecond >= 1 ? `${perSecond} ${what} per second` : `${Math.round(perSecond * 60)} ${what} per minute`;
}
