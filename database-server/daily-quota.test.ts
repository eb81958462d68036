import { describe, expect, it } from 'vitest';
import { failedOnSize, nextUtcMidnight, quotaRefusal, reachedQuota } from './daily-quota.ts';
import type { TenantUsage } from './sql/usage-meter.ts';
import { UsageMeter } from './sql/usage-meter.ts';

const limits = { statementTimeoutMs: 5000, maxSizeBytes: 1024 ** 2, rowsReadPerDay: 100, rowsWrittenPerDay: 10 };
const noon = Date.parse('2030-01-01T12:00:00Z');
const usage = (rowsRead: number, rowsWritten: number, sizeQuotaHit = false): TenantUsage => ({
  rowsRead,
  rowsWritten,
  lastWriteAt: null,
  today: { day: '2030-01-01', rowsRead, rowsWritten },
  sizeQuotaHit,
});

describe('the daily quotas', () => {
  it('refuse nothing under them', () => {
    expect(quotaRefusal(limits, usage(99, 9), noon)).toBeUndefined();
    expect(reachedQuota(limits, usage(99, 9))).toBeNull();
  });

  it('refuse writes once the written rows reach the quota, naming it and when it resets', () => {
    expect(quotaRefusal(limits, usage(0, 10), noon)).toEqual({
      blocks: 'writes',
      code: 'QUOTA_EXCEEDED',
      message:
        'The database reached its quota of 10 rows written per day (10 written today): writes are refused until 2030-01-02T00:00:00.000Z (midnight UTC), or until the quota is raised; reads still work',
    });
    expect(reachedQuota(limits, usage(0, 10))).toBe('rows_written_per_day');
  });

  it('refuse every statement once the read rows reach the quota, which outranks the others', () => {
    const refusal = quotaRefusal(limits, usage(100, 10, true), noon);
    expect(refusal?.blocks).toBe('all');
    expect(refusal?.message).toMatch(/^The database reached its quota of 100 rows read per day \(100 read today\): statements are refused until 2030-01-02T00:00:00.000Z/);
    expect(reachedQuota(limits, usage(100, 10, true))).toBe('rows_read_per_day');
    expect(reachedQuota(limits, usage(0, 0, true))).toBe('max_size_bytes');
  });

  it('say a write failed on a storage bound while it freezes the database, and nothing once it lifts', () => {
    const meter = new UsageMeter();
    meter.sizeQuota('t', true, true);
    const frozenAtHit = meter.get('t');
    const freeze = { reason: 'project_storage_quota', message: 'the project is over its storage quota' } as const;
    expect(reachedQuota(limits, frozenAtHit, freeze)).toBe('project_storage_quota');
    expect(reachedQuota(limits, frozenAtHit)).toBeNull(); // lifted: the database's own quota was never reached
    meter.sizeQuota('t', true); // a write failed on the database's own size quota
    expect(reachedQuota(limits, meter.get('t'))).toBe('max_size_bytes');
  });

  it('reset at midnight UTC', () => {
    expect(new Date(nextUtcMidnight(Date.parse('2030-12-31T23:59:59.999Z'))).toISOString()).toBe('2031-01-01T00:00:00.000Z');
    let now = Date.parse('2030-01-01T23:59:00Z');
    const meter = new UsageMeter({ now: () => now });
    meter.record('t', 5, 10);
    expect(meter.get('t').today).toEqual({ day: '2030-01-01', rowsRead: 5, rowsWritten: 10 });
    now = Date.parse('2030-01-02T00:00:00Z');
    expect(meter.get('t')).toMatchObject({ rowsRead: 5, rowsWritten: 10, today: { day: '2030-01-02', rowsRead: 0, rowsWritten: 0 } });
  });

  it('see a write that failed on the size quota, in a batch too', () => {
    const full = { message: 'The database is full', code: 'SQLITE_FULL' };
    expect(failedOnSize([{ type: 'error', error: full }])).toBe(true);
    expect(failedOnSize([{ type: 'ok', response: { type: 'batch', result: { step_results: [null], step_errors: [full] } } }])).toBe(true);
    expect(
      failedOnSize([
        { type: 'error', error: { message: 'x', code: 'SQLITE_CONSTRAINT' } },
        { type: 'ok', response: { type: 'close' } },
      ]),
    ).toBe(false);
  });
});
