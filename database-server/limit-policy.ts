import { formatBytes, type DatabaseLimits } from './sql/sql-limits.ts';
import type { RequestedLimits } from './tenant-meta.ts';

/** What cw-db allows: the limits a database gets by default, and the most it may ask for. */
export interface LimitPolicy {
  defaults: DatabaseLimits;
  maxima: DatabaseLimits;
}

/** A database asked for more than this cw-db allows; the admin API answers 422 with this message. */
export class LimitOutOfRangeError extends Error {
  override readonly name = 'LimitOutOfRangeError';
}

/**
 * The limits a tenant runs under: what it asked for, else the default.
 *
 * @throws LimitOutOfRangeError when it asked for more than the maximum.
 */
export function effectiveLimits(requested: RequestedLimits | undefined, policy: LimitPolicy): DatabaseLimits {
  const statementTimeoutMs = requested?.statementTimeoutMs ?? policy.defaults.statementTimeoutMs;
  const maxSizeBytes = requested?.maxSizeBytes ?? policy.defaults.maxSizeBytes;
  if (statementTimeoutMs > policy.maxima.statementTimeoutMs) {
    throw new LimitOutOfRangeError(`The statement time limit may be at most ${policy.maxima.statementTimeoutMs / 1000} s on this installation (asked: ${statementTimeoutMs / 1000} s)`);
  }
  if (maxSizeBytes > policy.maxima.maxSizeBytes) {
    throw new LimitOutOfRangeError(`The size quota may be at most ${formatBytes(policy.maxima.maxSizeBytes)} on this installation (asked: ${formatBytes(maxSizeBytes)})`);
  }
  return { statementTimeoutMs, maxSizeBytes };
}

/** Each asked limit capped at the maximum: for limits stored under another configuration, which are not refused. */
export function cappedLimits(requested: RequestedLimits | undefined, policy: LimitPolicy): DatabaseLimits {
  return {
    statementTimeoutMs: Math.min(requested?.statementTimeoutMs ?? policy.defaults.statementTimeoutMs, policy.maxima.statementTimeoutMs),
    maxSizeBytes: Math.min(requested?.maxSizeBytes ?? policy.defaults.maxSizeBytes, policy.maxima.maxSizeBytes),
  };
}
