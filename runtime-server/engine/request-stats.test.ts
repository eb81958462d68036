import { describe, expect, it } from 'vitest';
import { BUILDS_KEPT, RequestStats, type AppRequestCounts, type DispatcherStats } from './request-stats.ts';

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

  it('adds a rollout’s counts across generations for the same pair of releases, and per build; another pair’s are replaced', () => {
    const totals = new RequestStats();
    const rollout = (tag: string, stable: number, canary: number) => ({ tag, stable: { requests: stable, errors: 0 }, canary: { requests: canary, errors: 1 } });
    const build = (count: number) => ({ classes: [0, count, 0, 0, 0], buckets: [count, 0], count, sumMs: count });
    totals.retire(1, stats({ 'p/a': { ...counts(5), rollout: rollout('t1', 3, 2), builds: { v1: build(3), v2: build(2) } } }));
    const same = totals.merged([{ generation: 2, stats: stats({ 'p/a': { ...counts(4), rollout: rollout('t1', 1, 3), builds: { v2: build(3) } } }) }]).get('p/a');
    expect(same?.rollout).toEqual({ tag: 't1', stable: { requests: 4, errors: 0 }, canary: { requests: 5, errors: 2 } });
    expect(same?.builds).toEqual({ v1: build(3), v2: build(5) });
    const next = totals.merged([{ generation: 2, stats: stats({ 'p/a': { ...counts(4), rollout: rollout('t2', 1, 3) } }) }]).get('p/a');
    expect(next?.rollout).toEqual(rollout('t2', 1, 3));
  });

  it('forgets a removed app all at once, retired counts and a silent dispatcher’s last answer alike; deployed again, it counts from zero', () => {
    const totals = new RequestStats();
    totals.retire(1, stats({ 'p/a': counts(4), 'p/b': counts(1) }));
    expect(totals.merged([{ generation: 2, stats: stats({ 'p/a': counts(2) }) }]).get('p/a')).toMatchObject({ count: 6 });
    totals.forget('p/a');
    // Its dispatcher dropped it too; one that does not answer now must not bring back its last answer.
    const after = totals.merged([{ generation: 2, stats: undefined }]);
    expect(after.has('p/a')).toBe(false);
    expect(after.get('p/b')).toMatchObject({ count: 1 });
    expect(totals.merged([{ generation: 2, stats: stats({ 'p/a': counts(1) }) }]).get('p/a')).toMatchObject({ count: 1 });
  });

  it('keeps of a retiring generation only the counts of apps deployed still (found in review: a removed app with assets came back)', () => {
    const totals = new RequestStats();
    totals.forget('p/gone');
    totals.retire(1, stats({ 'p/gone': counts(3), 'p/kept': counts(2) }), (key) => key !== 'p/gone');
    const merged = totals.merged([]);
    expect([merged.has('p/gone'), merged.get('p/kept')?.count]).toEqual([false, 2]);
  });

  it('keeps the builds a dispatcher keeps, and of a retired one’s others the latest, BUILDS_KEPT in all', () => {
    const totals = new RequestStats();
    const build = (count: number) => ({ classes: [0, count, 0, 0, 0], buckets: [count, 0], count, sumMs: count });
    const withBuilds = (names: string[]) => ({ ...counts(names.length), builds: Object.fromEntries(names.map((name) => [name, build(1)])) });
    totals.retire(1, stats({ 'p/a': withBuilds(['v1', 'v2', 'v3', 'v4']) }));
    const read = (names: string[]) => totals.merged([{ generation: 2, stats: stats({ 'p/a': withBuilds(names) }) }]).get('p/a');
    // The live dispatcher has one build: the retired one's latest three fill the rest.
    expect(Object.keys(read(['v5'])?.builds ?? {}).sort()).toEqual(['v2', 'v3', 'v4', 'v5']);
    // It has let go of the earliest of its own past BUILDS_KEPT: none of the retired one's others come back instead.
    const full = read(['v4', 'v6', 'v7', 'v8']);
    expect(Object.keys(full?.builds ?? {})).toHaveLength(BUILDS_KEPT);
    expect(full?.builds?.['v4']).toEqual(build(2));
    expect(full?.count).toBe(8); // the answers of the builds let go stay in the app's totals
  });

  it('keeps every build of a retired one while they are fewer than BUILDS_KEPT with the live ones (found in review: the earliest went)', () => {
    const totals = new RequestStats();
    const build = { classes: [0, 1, 0, 0, 0], buckets: [1, 0], count: 1, sumMs: 1 };
    totals.retire(1, stats({ 'p/a': { ...counts(2), builds: { b1: build, b2: build } } }));
    const merged = totals.merged([{ generation: 2, stats: stats({ 'p/a': { ...counts(1), builds: { b3: build } } }) }]).get('p/a');
    expect(Object.keys(merged?.builds ?? {}).sort()).toEqual(['b1', 'b2', 'b3']);
  });
});
