import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it, vi } from 'vitest';
import type { Refusal } from './entry-proxy.ts';
import { UpstreamPool } from './upstream.ts';

const REFUSAL: Refusal = { status: 503, title: 'Service Unavailable', detail: 'cut', reason: 'Probation' };

describe('UpstreamPool turns', () => {
  it("keeps a project's turn after its last answer until the workerd shows a sign of life past the grace", () => {
    vi.useFakeTimers({ now: 1_000 });
    try {
      const pool = new UpstreamPool();
      const end = pool.enter('p/a');
      expect(pool.busy('p', 10)).toBe(true);
      pool.output(); // its answer: the workerd's last sign of life
      end();
      vi.advanceTimersByTime(50);
      // Past the grace, but nothing answered since: a stall now would still name it (blame.ts).
      expect(pool.busy('p', 10)).toBe(true);
      pool.output(); // a health check answered
      expect(pool.busy('p', 10)).toBe(false);
      expect(pool.busy('q', 10)).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it('tells a listener once no request of a project is left, and at once when none is', async () => {
    const pool = new UpstreamPool();
    const first = pool.enter('p/a');
    const second = pool.enter('p/b');
    const heard: string[] = [];
    pool.onProjectIdle('p', () => heard.push('p'));
    const stop = pool.onProjectIdle('p', () => heard.push('unsubscribed'));
    stop();
    first();
    expect(heard).toEqual([]);
    second();
    expect(heard).toEqual(['p']);
    pool.onProjectIdle('q', () => heard.push('q'));
    await Promise.resolve();
    expect(heard).toEqual(['p', 'q']);
  });

  it("cuts short the requests of one project's apps only, each once", () => {
    const pool = new UpstreamPool();
    const cut: string[] = [];
    pool.enter('p/a', 'GET', '/', (refusal) => cut.push(`a:${refusal.reason}`) > 0);
    pool.enter('p/b', 'GET', '/', () => cut.push('b') > 0);
    pool.enter('p/e', 'GET', '/', () => false); // it had ended already
    pool.enter('pq/c', 'GET', '/', () => cut.push('c') > 0);
    pool.enter('p/d'); // one that cannot be cut (no way to answer it)
    expect(pool.cut('p', REFUSAL)).toEqual(['p/a', 'p/b']);
    expect(cut).toEqual(['a:Probation', 'b']);
    // Only those sent before a moment.
    expect(pool.cut('pq', REFUSAL, 0)).toEqual([]);
  });

  it("cuts short one app's requests by its key, and counts each app's in flight", () => {
    const pool = new UpstreamPool();
    const cut: string[] = [];
    pool.enter('p/a', 'GET', '/', () => cut.push('a') > 0);
    pool.enter('p/a', 'GET', '/', () => cut.push('a') > 0);
    pool.enter('p/b', 'GET', '/', () => cut.push('b') > 0);
    pool.enter('p/ab', 'GET', '/', () => cut.push('ab') > 0);
    const counts = new Map([
      ['p/a', 2],
      ['p/b', 1],
      ['p/ab', 1],
    ]);
    expect(pool.inFlightByApp()).toEqual(counts);
    // Waiting: only those workerd has not begun to answer (an open WebSocket waits for nothing).
    pool.enter('p/ws', 'GET', '/socket').answered();
    expect(pool.inFlightByApp(true)).toEqual(counts);
    expect(pool.inFlightByApp().get('p/ws')).toBe(1);
    expect(pool.cut('p/a', REFUSAL)).toEqual(['p/a', 'p/a']);
    expect(cut).toEqual(['a', 'a']);
  });

  it('lets a finished request go although its flight is kept (a lost one, as evidence)', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const pool = new UpstreamPool();
    const collected = enterLost(pool);
    expect(pool.evidence().open.map((f) => f.app)).toEqual(['p/a']);
    await new Promise((resolve) => setImmediate(resolve)); // a WeakRef's target is kept until the turn ends
    gc();
    expect(collected.deref()).toBeUndefined();
  });
});

/** A request of `p/a` lost (workerd died under it, so its flight stays as evidence), whose cut holds 1 MiB. */
function enterLost(pool: UpstreamPool): WeakRef<object> {
  // What a cut holds in the entry point: the request, its response, the client's connection.
  const exchange = { body: Buffer.alloc(1 << 20) };
  const done = pool.enter('p/a', 'GET', '/', () => exchange !== undefined);
  done(true);
  return new WeakRef(exchange);
}

describe('UpstreamPool waitedMs', () => {
  it("clocks each project's time with a request workerd has not begun to answer, its requests overlapping counted once", () => {
    vi.useFakeTimers({ now: 1_000 });
    try {
      const pool = new UpstreamPool();
      const a = pool.enter('p/a');
      vi.advanceTimersByTime(100);
      const b = pool.enter('p/b');
      const q = pool.enter('q/x');
      vi.advanceTimersByTime(100);
      a.answered(); // p still waits, on b
      q(); // ended with no answer: waited till then
      vi.advanceTimersByTime(100);
      expect(pool.waitedMs()).toEqual(
        new Map([
          ['p', 300],
          ['q', 100],
        ]),
      );
      b.answered();
      vi.advanceTimersByTime(1000); // answers under way: waiting for nothing
      a();
      b();
      expect(pool.waitedMs()).toEqual(
        new Map([
          ['p', 300],
          ['q', 100],
        ]),
      );
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('UpstreamPool judged', () => {
  it("resolves a request's wait once the workerd's end is judged, or after its bound when it never is", async () => {
    vi.useFakeTimers();
    try {
      const pool = new UpstreamPool();
      let bounded = false;
      void pool.afterJudged(1000).then(() => (bounded = true));
      await vi.advanceTimersByTimeAsync(999);
      expect(bounded).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(bounded).toBe(true);
      let judged = false;
      void pool.afterJudged(1000).then(() => (judged = true));
      pool.judged();
      await vi.advanceTimersByTimeAsync(0);
      expect(judged).toBe(true);
      // After it, at once.
      let after = false;
      void pool.afterJudged(1000).then(() => (after = true));
      await vi.advanceTimersByTimeAsync(0);
      expect(after).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
