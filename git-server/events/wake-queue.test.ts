import { describe, expect, it } from 'vitest';
import { WakeQueue, type Refusal } from './wake-queue.ts';

type Result = { readonly unit: string; readonly ok: boolean } | Refusal;

/** A queue whose runs are scripted: each run of a unit takes the next answer (true: success) once released. */
function queue(script: Record<string, boolean[]>, options: { retryUnit?: (unit: string) => string | undefined } = {}) {
  const runs: string[] = [];
  let started = 0;
  const waiters: (() => void)[] = [];
  let gate: Promise<void> | undefined;
  const q: WakeQueue<string, Result> = new WakeQueue<string, Result>({
    key: (unit) => unit,
    run: async (unit) => {
      started++;
      waiters.splice(0).forEach((wake) => wake());
      await gate;
      runs.push(unit);
      waiters.splice(0).forEach((wake) => wake());
      const ok = script[unit]?.shift() ?? true;
      if (!ok) q.failed(unit, 'scripted failure');
      else q.clearBackoff(unit);
      return { unit, ok };
    },
    refused: (_unit, refusal) => refusal,
    succeeded: (result) => 'ok' in result && result.ok,
    concurrency: 2,
    queueLimit: 4,
    backoff: { baseMs: 40, maxMs: 40 },
    ...options,
  });
  return {
    q,
    runs,
    hold: (): (() => void) => {
      let release = () => {};
      gate = new Promise<void>((resolve) => (release = resolve));
      return () => {
        gate = undefined;
        release();
      };
    },
    ran: async (count: number): Promise<void> => {
      while (runs.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    started: async (count: number): Promise<void> => {
      while (started < count) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}

describe('WakeQueue', () => {
  it('runs a unit woken while its retry ran once more after the retry succeeds', async () => {
    const { q, runs, hold, ran, started } = queue({ a: [false, true, true] });
    expect(await q.wake('a', 'notify')).toEqual({ unit: 'a', ok: false });
    const release = hold();
    // The retry starts after the backoff; while it is held, a notification is deferred but remembered.
    await started(2);
    expect(await q.wake('a', 'notify')).toMatchObject({ outcome: 'deferred', reason: 'scripted failure' });
    release();
    await ran(3);
    expect(runs).toEqual(['a', 'a', 'a']);
  });

  it('drops the retry of a unit that is gone meanwhile', async () => {
    let asked = () => {};
    const retryAsked = new Promise<void>((resolve) => (asked = resolve));
    const { q, runs } = queue(
      { a: [false] },
      {
        retryUnit: () => {
          asked();
          return undefined;
        },
      },
    );
    expect(await q.wake('a', 'notify')).toEqual({ unit: 'a', ok: false });
    await retryAsked;
    expect(runs).toEqual(['a']);
    // Its backoff ended with it: a new wake-up runs at once.
    expect(await q.wake('a', 'notify')).toEqual({ unit: 'a', ok: true });
  });

  it('lets a sweep wait for room where a notification is refused, and answers what waits abandoned once stopped', async () => {
    const { q, hold } = queue({});
    const release = hold();
    const first = ['u1', 'u2', 'u3', 'u4', 'u5', 'u6'].map((u) => q.wake(u, 'notify'));
    expect(await q.wake('u7', 'notify')).toEqual({ outcome: 'not_queued', queueLimit: 4 });
    const swept = q.wake('u7', 'sweep');
    q.stop();
    release();
    expect(await swept).toEqual({ outcome: 'abandoned' });
    const results = await Promise.all(first);
    expect(results.slice(0, 2)).toEqual([
      { unit: 'u1', ok: true },
      { unit: 'u2', ok: true },
    ]);
    expect(results.slice(2)).toEqual(Array.from({ length: 4 }, () => ({ outcome: 'abandoned' })));
  });
});

describe('WakeQueue with a per-group limit', () => {
  /** Units `<group><n>` whose runs each wait to be released, 3 at once and 2 of a group; records starts and the most of a group at once. */
  function grouped() {
    const started: string[] = [];
    const releases = new Map<string, () => void>();
    const running = new Map<string, number>();
    let most = 0;
    const q = new WakeQueue<string, Result>({
      key: (unit) => unit,
      group: (unit) => unit.slice(0, 1),
      perGroup: 2,
      run: async (unit) => {
        const group = unit.slice(0, 1);
        started.push(unit);
        running.set(group, (running.get(group) ?? 0) + 1);
        most = Math.max(most, ...running.values());
        await new Promise<void>((resolve) => releases.set(unit, resolve));
        running.set(group, (running.get(group) ?? 0) - 1);
        return { unit, ok: true };
      },
      refused: (_unit, refusal) => refusal,
      succeeded: () => true,
      concurrency: 3,
      queueLimit: 8,
      queueLimitPerGroup: 4,
    });
    /** Releases `unit`'s run and resolves once the queue started what could start after it. */
    const release = async (unit: string): Promise<void> => {
      const ended = q.running.get(unit);
      releases.get(unit)?.();
      await ended;
    };
    return { q, started, release, most: () => most };
  }

  it('starts a later unit of another group while a group holds its share, oldest first, and never more than the share of one group', async () => {
    const { q, started, release, most } = grouped();
    const woken = ['a1', 'a2', 'a3', 'b1', 'a4', 'b2'].map((unit) => q.wake(unit, 'notify'));
    // a's runs hang (a receiver that never answers): a3 and a4 wait for a's share, b1 takes the third run.
    expect(started).toEqual(['a1', 'a2', 'b1']);
    await release('b1');
    expect(await woken[3]).toEqual({ unit: 'b1', ok: true });
    expect(started).toEqual(['a1', 'a2', 'b1', 'b2']);
    // A run of a ends: the oldest unit of a goes next, a4 still waits behind a's share.
    await release('a1');
    expect(started).toEqual(['a1', 'a2', 'b1', 'b2', 'a3']);
    await release('b2');
    expect(started).toHaveLength(5);
    await release('a2');
    expect(started).toEqual(['a1', 'a2', 'b1', 'b2', 'a3', 'a4']);
    await release('a3');
    await release('a4');
    expect(await Promise.all(woken)).toEqual(['a1', 'a2', 'a3', 'b1', 'a4', 'b2'].map((unit) => ({ unit, ok: true })));
    expect(most()).toBe(2);
  });

  it('keeps the places of the queue one group may hold, so another group’s notification finds room', async () => {
    const { q, started, release } = grouped();
    // a1, a2 run; a3…a6 wait (the group's four places); a7's notification is refused, b1's is not.
    const woken = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'].map((unit) => q.wake(unit, 'notify'));
    expect(await q.wake('a7', 'notify')).toEqual({ outcome: 'not_queued', queueLimit: 8 });
    const other = q.wake('b1', 'notify');
    expect(started).toEqual(['a1', 'a2', 'b1']);
    await release('b1');
    expect(await other).toEqual({ unit: 'b1', ok: true });
    // A sweep's a7 waits for a place of the group rather than being refused, and runs once one is free.
    const swept = q.wake('a7', 'sweep');
    await release('a1');
    for (const unit of ['a2', 'a3', 'a4', 'a5', 'a6']) await release(unit);
    await release('a7');
    expect(await swept).toEqual({ unit: 'a7', ok: true });
    expect(await Promise.all(woken)).toHaveLength(6);
  });

  it('lets a wake-up of a unit waiting for its group join that unit', async () => {
    const { q, started, release } = grouped();
    const first = ['a1', 'a2', 'a3'].map((unit) => q.wake(unit, 'notify'));
    const again = q.wake('a3', 'sweep');
    await release('a1');
    await release('a2');
    await release('a3');
    expect(await Promise.all([...first, again])).toEqual([
      { unit: 'a1', ok: true },
      { unit: 'a2', ok: true },
      { unit: 'a3', ok: true },
      { unit: 'a3', ok: true },
    ]);
    expect(started).toEqual(['a1', 'a2', 'a3']);
  });
});
