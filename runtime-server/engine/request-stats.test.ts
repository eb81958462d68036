import { describe, expect, it } from 'vitest';
import { RequestStats, type AppRequestCounts, type DispatcherStats } from './request-stats.ts';

const counts = (count: number, active = 0): AppRequestCounts => ({ active, queued: 0, classes: [0, count, 0, 0, 0], buckets: [count, 0], count, sumMs: count });
const stats = (apps: Record<string, AppRequestCounts>): DispatcherStats => ({ loads: 1, bucketsMs: [5, 10], apps });

describe('RequestStats', () => {
  it('adds the live dispatchers to the final counts of retired ones, never counting a generation twice', () => {
    const totals = new RequestStats();
    expect(totals.merged([{ generation: 1, stats: stats({ 'p/a': counts(3, 1) }) }]).get('p/a')).toMatchObject({ count: 3, active: 1 });
    totals.retire(1, stats({ 'p/a': counts(4, 1) }));
    // Generation 1's own read, still under way when it retired, is not added to its final counts again.
    const merged = totals.merged([
      { generation: 1, stats: stats({ 'p/a': counts(4, 1) }) },
      { generation: 2, stats: stats({ 'p/a': counts(2, 1), 'p/b': counts(1) }) },
    ]);
    expect(merged.get('p/a')).toMatchObject({ count: 6, active: 1, classes: [0, 6, 0, 0, 0], buckets: [6, 0], sumMs: 6 });
    expect(merged.get('p/b')).toMatchObject({ count: 1 });
    expect(totals.bucketsMs).toEqual([5, 10]);
  });

  it('never goes back: a dispatcher that does not answer counts with its last answer, and a crashed one keeps it', () => {
    const totals = new RequestStats();
    expect(totals.merged([{ generation: 3, stats: stats({ 'p/a': counts(5, 2) }) }]).get('p/a')).toMatchObject({ count: 5, active: 2 });
    // A read that timed out: the last answer stands in (nothing is in flight that anyone can vouch for).
    expect(totals.merged([{ generation: 3, stats: undefined }]).get('p/a')).toMatchObject({ count: 5, active: 0 });
    totals.retire(3); // it crashed: no final read
    expect(totals.merged([{ generation: 4, stats: stats({ 'p/a': counts(1) }) }]).get('p/a')).toMatchObject({ count: 6 });
  });
});
