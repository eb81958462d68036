// How long a repository whose delivery failed waits before the bridge tries it again: exponential from `baseMs`,
// capped at `maxMs`, with equal jitter (half the delay fixed, half random), so repositories that failed together
// (the receiver went down) come back spread out rather than all at once.

export interface BackoffPolicy {
  readonly baseMs: number;
  readonly maxMs: number;
}

/** 1 s, 2 s, 4 s, … up to 5 minutes (the default sweep interval), each ±50 % down. */
export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1000, maxMs: 5 * 60_000 };

/** The delay after `failures` failures in a row (1 for the first). `random` is in [0, 1). */
export function backoffDelay(failures: number, policy: BackoffPolicy = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(Math.max(failures, 1) - 1, 40));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
