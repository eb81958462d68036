import type { HranaStreamResult } from './hrana/hrana-types.ts';
import type { GrowthFreeze } from './sql/growth-freeze.ts';
import { QUOTA_EXCEEDED, type QuotaRefusal } from './sql/quota-refusal.ts';
import { formatCount, type TenantLimits } from './sql/sql-limits.ts';
import type { TenantUsage } from './sql/usage-meter.ts';

/**
 * A quota a database reached, by its name in `limits` (the admin API's `limit_reached.quota`), or the storage
 * bound of its project or of the disk that stopped it growing (storage-budget.ts).
 */
export type ReachedQuota = 'rows_read_per_day' | 'rows_written_per_day' | 'max_size_bytes' | GrowthFreeze['reason'];

/** The next midnight UTC after `now`: when the day's counts start again. */
export function nextUtcMidnight(now: number): number {
  const day = new Date(now);
  return Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() + 1);
}

/**
 * The quota the database has reached, the one that refuses most first: rows read (every statement), then rows
 * written (writes), then size (a write failed on it and none succeeded since: on the storage bound that freezes
 * the database now, if one does, else on its own size quota, unless that write failed on a freeze lifted since);
 * null when none.
 */
export function reachedQuota(limits: TenantLimits, usage: TenantUsage, freeze?: GrowthFreeze): ReachedQuota | null {
  if (usage.today.rowsRead >= limits.rowsReadPerDay) return 'rows_read_per_day';
  if (usage.today.rowsWritten >= limits.rowsWrittenPerDay) return 'rows_written_per_day';
  if (usage.sizeQuotaHit) {
    if (freeze) return freeze.reason;
    // Refused while frozen, and the freeze has lifted since: nothing is reached until a write says so again.
    if (!usage.sizeQuotaHitFrozen) return 'max_size_bytes';
  }
  return null;
}

/**
 * What the engine refuses for the database's next request: nothing under its daily quotas. A request that starts
 * under a quota runs to its end, so the day's count may pass the quota by that request's rows (as on D1).
 */
export function quotaRefusal(limits: TenantLimits, usage: TenantUsage, now: number): QuotaRefusal | undefined {
  const until = `until ${new Date(nextUtcMidnight(now)).toISOString()} (midnight UTC)`;
  const { rowsRead, rowsWritten } = usage.today;
  if (rowsRead >= limits.rowsReadPerDay) {
    const message = `The database reached its quota of ${formatCount(limits.rowsReadPerDay)} rows read per day (${formatCount(rowsRead)} read today): statements are refused ${until}, or until the quota is raised`;
    return { blocks: 'all', code: QUOTA_EXCEEDED, message };
  }
  if (rowsWritten >= limits.rowsWrittenPerDay) {
    const message = `The database reached its quota of ${formatCount(limits.rowsWrittenPerDay)} rows written per day (${formatCount(rowsWritten)} written today): writes are refused ${until}, or until the quota is raised; reads still work`;
    return { blocks: 'writes', code: QUOTA_EXCEEDED, message };
  }
  return undefined;
}

/** Whether a request's results include a statement that failed on the size quota (SQLITE_FULL). */
export function failedOnSize(results: readonly HranaStreamResult[]): boolean {
  return results.some((result) => {
    if (result.type === 'error') return result.error.code === 'SQLITE_FULL';
    const response = result.response;
    return response.type === 'batch' && response.result.step_errors.some((e) => e?.code === 'SQLITE_FULL');
  });
}
