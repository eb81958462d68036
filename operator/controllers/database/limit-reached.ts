import { DatabaseReasons as R } from '../../../src/apis/v1alpha1/database.ts';
import type { ConditionUpdate } from '../../../src/conditions/index.ts';
import type { EngineTenant } from '../../../src/platform/databases/engine-client.ts';

const count = (n: number) => n.toLocaleString('en-US');

/** The midnight UTC ending `day` (YYYY-MM-DD): when the daily counts start again. */
function resetTime(day: string): string {
  const start = Date.parse(`${day}T00:00:00Z`);
  return new Date(start + 86_400_000).toISOString().replace('.000Z', 'Z');
}

function bytes(n: number): string {
  const mib = 1024 * 1024;
  if (n >= 1024 * mib) return `${+(n / (1024 * mib)).toFixed(2)} GiB`;
  return n >= mib ? `${+(n / mib).toFixed(2)} MiB` : `${n} bytes`;
}

/**
 * The LimitReached condition from what cw-db reports: True with the quota it reached and the figures, False when
 * it is under every quota. The message changes only with the figures of a reached quota (which stop moving once
 * it refuses), so the status is not rewritten at every usage refresh.
 */
export function limitReachedCondition(t: EngineTenant): ConditionUpdate {
  const type = 'LimitReached';
  const { limits, today } = t;
  switch (t.limit_reached) {
    case 'rows_read_per_day':
      return {
        type,
        status: 'True',
        reason: R.RowsReadQuotaReached,
        message: `${count(today.rows_read)} rows read on ${today.day} (UTC) reached the quota of ${count(limits.rows_read_per_day)} rows read per day: every statement is refused until ${resetTime(today.day)}, or until the quota is raised.`,
      };
    case 'rows_written_per_day':
      return {
        type,
        status: 'True',
        reason: R.RowsWrittenQuotaReached,
        message: `${count(today.rows_written)} rows written on ${today.day} (UTC) reached the quota of ${count(limits.rows_written_per_day)} rows written per day: writes are refused until ${resetTime(today.day)}, or until the quota is raised; reads still work.`,
      };
    case 'max_size_bytes':
      return {
        type,
        status: 'True',
        reason: R.SizeQuotaReached,
        message: `A write failed on the size quota of ${bytes(limits.max_size_bytes)}: writes that would grow the database fail (SQLITE_FULL); delete rows or raise the quota.`,
      };
    case 'project_storage_quota':
    case 'disk_reserve':
      return {
        type,
        status: 'True',
        reason: t.limit_reached === 'disk_reserve' ? R.DiskReserveReached : R.ProjectStorageQuotaReached,
        message: `${t.growth_frozen?.message ?? 'The database cannot grow: a storage bound of cw-db holds it'} (writes that need room fail with SQLITE_FULL).`,
      };
    default:
      return { type, status: 'False', reason: R.WithinLimits, message: 'The database is under its size quota and its daily row quotas.' };
  }
}
