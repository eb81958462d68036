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

describe('MigrationRuns', () => {
  it('runs one per project at a time, in order, and at most the pool across projects', async () => {
    const settled: string[] = [];
    const runs = new MigrationRuns<string>({ concurrency: 2, onSettled: (key) => settled.push(key) });
    const a1 = gate('a1');
    const a2 = gate('a2');
    const b1 = gate('b1');
    const c1 = gate('c1');
    runs.start('a1', 'project-a', 'ns-a/app1', a1.apply);
    runs.start('a2', 'project-a', 'ns-a/app2', a2.apply);
    runs.start('b1', 'project-b', 'ns-b/app1', b1.apply);
    runs.start('c1', 'project-c', 'ns-c/app1', c1.apply);
    await settle();
    // a2 waits for a1 (its project's turn), c1 for a place in the pool of two.
    expect([a1.began(), a2.began(), b1.began(), c1.began()]).toEqual([true, false, true, false]);
    expect(runs.take('a2')).toBe('running');
    expect(runs.pending).toBe(4);

    b1.end();
    await settle();
    expect(c1.began()).toBe(true);
    expect(a2.began()).toBe(false);
    expect(settled).toEqual(['ns-b/app1']);
    expect(runs.take('b1')).toEqual({ kind: 'done', value: 'b1' });
    // Handed out once: asked again, it is a new run.
    expect(runs.take('b1')).toBeUndefined();

    a1.fail(new Error('unreachable'));
    await settle();
    expect(a2.began()).toBe(true);
    expect(runs.take('a1')).toMatchObject({ kind: 'failed', error: { message: 'unreachable' } });
  });

  it('leaves a run asked for twice as it is, and forgets settled runs nobody took', async () => {
    let now = 0;
    const runs = new MigrationRuns<number>({ concurrency: 1, onSettled: () => {}, keepSettledMs: 1000, now: () => now });
    let calls = 0;
    const apply = () => Promise.resolve(++calls);
    runs.start('x', 'p', 'ns/x', apply);
    runs.start('x', 'p', 'ns/x', apply);
    runs.start('y', 'p', 'ns/y', apply);
    await settle();
    expect(calls).toBe(2);
    expect(runs.take('x')).toEqual({ kind: 'done', value: 1 });
    now = 5000;
    expect(runs.take('y')).toBeUndefined();
    expect(runs.pending).toBe(0);
  });
});
