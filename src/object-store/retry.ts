// Bounded retries with full-jitter exponential backoff, for store requests that failed in a way a retry can fix.

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Backoff ceiling before the first retry; doubles per retry up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 50, maxDelayMs: 1000 };

/** The delay before retry number `retry` (1-based): uniform in [0, min(max, base·2^(retry-1))] ("full jitter"). */
export function backoffDelay(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.floor(random() * ceiling);
}

/** Why an attempt failed, as far as retrying is concerned. */
export type AttemptFailure = 'retryable' | 'fatal';

/**
 * Runs `attempt` until it succeeds, throws a fatal error, or `policy.maxAttempts` retryable errors have
 * happened; then `exhausted(lastError)` is thrown. `onRetry` is called before each retry's wait.
 */
export async function withRetries<T>(options: {
  policy: RetryPolicy;
  attempt: () => Promise<T>;
  classify: (err: unknown) => AttemptFailure;
  onRetry?: (err: unknown, retry: number) => void;
  exhausted: (err: unknown) => Error;
  sleep?: (ms: number) => Promise<void>;
}): Promise<T> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 1; ; attempt++) {
    try {
      return await options.attempt();
    } catch (err) {
      if (options.classify(err) === 'fatal') throw err;
      if (attempt >= options.policy.maxAttempts) throw options.exhausted(err);
      options.onRetry?.(err, attempt);
      await sleep(backoffDelay(options.policy, attempt));
    }
  }
}
