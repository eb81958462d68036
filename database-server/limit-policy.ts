import { formatBytes, formatCount, type DatabaseLimits, type TenantLimits } from './sql/sql-limits.ts';
import type { RequestedLimits } from './tenant-meta.ts';

/** What cw-db allows: the limits a database gets by default, and the most it may ask for. */
export interface LimitPolicy {
  defaults: TenantLimits;
  maxima: TenantLimits;
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
export function effectiveLimits(requested: RequestedLimits | undefined, policy: LimitPolicy): TenantLimits {
  const limits = withDefaults(requested, policy.defaults);
  const { maxima } = policy;
  if (limits.statementTimeoutMs > maxima.statementTimeoutMs) {
    throw new LimitOutOfRangeError(`The statement time limit may be at most ${maxima.statementTimeoutMs / 1000} s on this installation (asked: ${limits.statementTimeoutMs / 1000} s)`);
  }
  if (limits.maxSizeBytes > maxima.maxSizeBytes) {
    throw new LimitOutOfRangeError(`The size quota may be at most ${formatBytes(maxima.maxSizeBytes)} on this installation (asked: ${formatBytes(limits.maxSizeBytes)})`);
  }
  if (limits.rowsReadPerDay > maxima.rowsReadPerDay) {
    throw new LimitOutOfRangeError(`The quota of rows read per day may be at most ${formatCount(maxima.rowsReadPerDay)} on this installation (asked: ${formatCount(limits.rowsReadPerDay)})`);
  }
  if (limits.rowsWrittenPerDay > maxima.rowsWrittenPerDay) {
    throw new LimitOutOfRangeError(`The quota of rows written per day may be at most ${formatCount(maxima.rowsWrittenPerDay)} on this installation (asked: ${formatCount(limits.rowsWrittenPerDay)})`);
  }
  return limits;
}

/** Each asked limit capped at the maximum: for limits stored under another configuration, which are not refused. */
export function cappedLimits(requested: RequestedLimits | undefined, policy: LimitPolicy): TenantLimits {
  const limits = withDefaults(requested, policy.defaults);
  return {
    statementTimeoutMs: Math.min(limits.statementTimeoutMs, policy.maxima.statementTimeoutMs),
    maxSizeBytes: Math.min(limits.maxSizeBytes, policy.maxima.maxSizeBytes),
    rowsReadPerDay: Math.min(limits.rowsReadPerDay, policy.maxima.rowsReadPerDay),
    rowsWrittenPerDay: Math.min(limits.rowsWrittenPerDay, policy.maxima.rowsWrittenPerDay),
  };
}

/** The engine's part of a tenant's limits (the shards know nothing of the daily quotas, which the main process keeps). */
export function engineLimits(limits: TenantLimits): DatabaseLimits {
  return { statementTimeoutMs: limits.statementTimeoutMs, maxSizeBytes: limits.maxSizeBytes };
}

function withDefaults(requested: RequestedLimits | undefined, defaults: TenantLimits): TenantLimits {
  return {
    statementTimeoutMs: requested?.statementTimeoutMs ?? defaults.statementTimeoutMs,
    maxSizeBytes: requested?.maxSizeBytes ?? defaults.maxSizeBytes,
    rowsReadPerDay: requested?.rowsReadPerDay ?? defaults.rowsReadPerDay,
    rowsWrittenPerDay: requested?.rowsWrittenPerDay ?? defaults.rowsWrittenPerDay,
  };
}
