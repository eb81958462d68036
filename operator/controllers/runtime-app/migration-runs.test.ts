import { describe, expect, it } from 'vitest';
import { MigrationRuns } from './migration-runs.ts';

/** A run the test ends by hand, and whether it began. */
function gate<T>(value: T): { apply: () => Promise<T>; began: () => boolean; end: () => void; fail: (error: Error) => void } {
  let began = false;
  let end: () => void = () => {};
  let fail: (error: Error) => void = () => {};
  const done = new Promise<T>((resolve, reject) => {
    end = () => resolve(value);
    fail = reject;
  });
  return {
    apply: () => {
      began = true;
      return done;
    },
    began: () => began,
    end: () => end(),
    fail: (error) => fail(error),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const wanted = () => true;

describe('MigrationRuns', () => {
  it('runs one per project at a time, in order, and at most the pool across projects', async () => {
    const settled: string[] = [];
    const runs = new MigrationRuns<string>({ concurrency: 2, onSettled: (key) => settled.push(key) });
    const a1 = gate('a1');
    const a2 = gate('a2');
    const b1 = gate('b1');
    const c1 = gate('c1');
    void runs.start('a1', 'project-a', 'ns-a/app1', a1.apply, wanted);
    void runs.start('a2', 'project-a', 'ns-a/app2', a2.apply, wanted);
    void runs.start('b1', 'project-b', 'ns-b/app1', b1.apply, wanted);
    void runs.start('c1', 'project-c', 'ns-c/app1', c1.apply, wanted);
    await settle();
    // a2 waits for a1 (its project's turn), c1 for a place in the pool of two.
    expect([a1.began(), a2.began(), b1.began(), c1.began()]).toEqual([true, false, true, false]);
    expect(runs.state('a2')).toEqual({ kind: 'running' });
    expect(runs.pending).toBe(4);

    b1.end();
    await settle();
    expect(c1.began()).toBe(true);
    expect(a2.began()).toBe(false);
    expect(settled).toEqual(['ns-b/app1']);
    // Kept until its outcome is recorded.
    expect(runs.state('b1')).toEqual({ kind: 'done', value: 'b1' });
    expect(runs.state('b1')).toEqual({ kind: 'done', value: 'b1' });
    runs.forget('b1');
    expect(runs.state('b1')).toBeUndefined();

    a1.fail(new Error('unreachable'));
    await settle();
    expect(a2.began()).toBe(true);
  });

  it('answers a failed run until it may be tried again, then forgets it', async () => {
    let now = 0;
    const runs = new MigrationRuns<string>({ concurrency: 1, onSettled: () => {}, retryFailedAfterMs: 5000, now: () => now });
    void runs.start('x', 'p', 'ns/x', () => Promise.reject(new Error('ECONNREFUSED')), wanted);
    await settle();
    expect(runs.state('x')).toMatchObject({ kind: 'failed', error: { message: 'ECONNREFUSED' }, retryInMs: 5000 });
    now = 4000;
    expect(runs.state('x')).toMatchObject({ kind: 'failed', retryInMs: 1000 });
    now = 5000;
    expect(runs.state('x')).toBeUndefined();
  });

  it('applies nothing for a run no longer wanted or superseded when its turn comes', async () => {
    const runs = new MigrationRuns<string>({ concurrency: 1, onSettled: () => {} });
    const blocker = gate('blocker');
    const dropped = gate('dropped');
    const rolledBack = gate('rolled back');
    void runs.start('blocker', 'p', 'ns/blocker', blocker.apply, wanted);
    void runs.start('old-build', 'p', 'ns/shop', dropped.apply, wanted);
    void runs.start('gone', 'p', 'ns/gone', rolledBack.apply, () => false);
    runs.supersede('ns/shop', 'new-build');
    blocker.end();
    await settle();
    await settle();
    expect([dropped.began(), rolledBack.began()]).toEqual([false, false]);
    expect(runs.pending).toBe(0);
  });

  it('leaves a run asked for twice as it is, forgets settled runs nobody recorded, and starts none once stopped', async () => {
    let now = 0;
    const runs = new MigrationRuns<number>({ concurrency: 1, onSettled: () => {}, keepSettledMs: 1000, now: () => now });
    let calls = 0;
    const apply = () => Promise.resolve(++calls);
    void runs.start('x', 'p', 'ns/x', apply, wanted);
    void runs.start('x', 'p', 'ns/x', apply, wanted);
    void runs.start('y', 'p', 'ns/y', apply, wanted);
    await settle();
    expect(calls).toBe(2);
    expect(runs.state('x')).toEqual({ kind: 'done', value: 1 });
    now = 5000;
    expect(runs.state('y')).toBeUndefined();

    const applying = gate(7);
    void runs.start('z', 'p', 'ns/z', applying.apply, wanted);
    await settle();
    let stopped = false;
    const stop = runs.stop().then(() => (stopped = true));
    void runs.start('after', 'p', 'ns/after', apply, wanted);
    await settle();
    expect(stopped).toBe(false); // waits for the run applying files
    applying.end();
    await stop;
    await settle();
    expect(calls).toBe(2);
  });
});
