import { describe, expect, it } from 'vitest';
import { MetricsWindow, type AppCumulative } from './metrics-window.ts';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 10, 29, 12, 0);

/** Cumulative counts of `ok` 2xx answers in 5–10 ms and `failed` 500s of exceptions in 25–50 ms. */
function counts(ok: number, failed: number, builds?: Record<string, AppCumulative>): AppCumulative {
  return { classes: [0, ok, 0, 0, failed], buckets: [0, ok, 0, failed, 0, 0, 0, 0, 0, 0, 0, 0], count: ok + failed, exceptions: failed, refused: 0, ...(builds ? { builds } : {}) };
}

describe('MetricsWindow', () => {
  it('puts what the counts gained since the last reading in the minute of the reading, and nothing in idle minutes', () => {
    const window = new MetricsWindow({ started: T0 });
    window.observe(new Map([['p/web', counts(10, 0)]]), T0 + 5000);
    window.observe(new Map([['p/web', counts(15, 1)]]), T0 + 50_000);
    window.observe(new Map([['p/web', counts(15, 1)]]), T0 + MINUTE + 1); // nothing new: no minute
    window.observe(new Map([['p/web', counts(18, 1)]]), T0 + 5 * MINUTE);
    const read = window.app('p/web', T0);
    expect(read.started).toBe(T0);
    expect(read.minutes).toEqual([
      { start: T0, classes: [0, 15, 0, 0, 1], exceptions: 1, refused: 0, buckets: [0, 15, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0] },
      { start: T0 + 5 * MINUTE, classes: [0, 3, 0, 0, 0], exceptions: 0, refused: 0, buckets: [0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] },
    ]);
    expect(window.app('p/web', T0 + MINUTE).minutes.map((m) => m.start)).toEqual([T0 + 5 * MINUTE]);
    expect(window.app('p/other', T0)).toMatchObject({ minutes: [], builds: {} });
  });

  it('counts answers past the last latency bound in the thirteenth bucket, and keeps builds apart while in a rollout', () => {
    const window = new MetricsWindow({ started: T0 });
    const slow = { classes: [0, 3, 0, 0, 0], buckets: [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], count: 3 };
    window.observe(new Map([['p/web', { ...slow, builds: { 'b-2': slow } }]]), T0);
    const read = window.app('p/web', T0);
    expect(read.minutes[0]?.buckets).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
    expect(Object.keys(read.builds)).toEqual(['b-2']);
    expect(read.builds['b-2']?.[0]?.classes).toEqual([0, 3, 0, 0, 0]);
  });

  it('reads an app from its creation on: one deleted and created again under the same key shows nothing of the one before', () => {
    const created = new Map<string, number>();
    const window = new MetricsWindow({ started: T0, createdAt: (key) => created.get(key) });
    window.observe(new Map([['shop/web', counts(5000, 40)]]), T0 + 5000);
    window.observe(new Map(), T0 + 10 * MINUTE); // the first app is gone
    // Registered again by another tenant but not deployed here yet: nothing of the first is shown.
    expect(window.app('shop/web', T0).minutes).toEqual([]);
    expect(window.namespaceTotals('shop', T0).apps).toEqual({});
    created.set('shop/web', T0 + 120 * MINUTE); // deployed, two hours later
    window.observe(new Map([['shop/web', counts(3, 0)]]), T0 + 121 * MINUTE);
    expect(window.app('shop/web', T0).minutes.map((m) => [m.start, m.classes])).toEqual([[T0 + 121 * MINUTE, [0, 3, 0, 0, 0]]]);
    expect(window.namespaceTotals('shop', T0).apps.web?.requests).toBe(3);
  });

  it('starts again from zero only the count that went back: the entry point’s refusals of an app it let go, not its answers', () => {
    const window = new MetricsWindow({ started: T0 });
    window.observe(new Map([['p/web', { ...counts(5000, 0), refused: 7 }]]), T0 + 5000);
    // The dispatcher's counts go on; the entry point's refusals were let go with the app and start again.
    window.observe(new Map([['p/web', { ...counts(5003, 0), refused: 1 }]]), T0 + 2 * MINUTE);
    expect(window.app('p/web', T0 + MINUTE).minutes.map((m) => [m.classes, m.refused])).toEqual([[[0, 3, 0, 0, 0], 1]]);
  });

  it('keeps a day and a quarter of an hour, then drops the oldest minutes', () => {
    const window = new MetricsWindow({ started: T0 });
    for (let m = 0; m <= 1500; m++) window.observe(new Map([['p/web', counts(m + 1, 0)]]), T0 + m * MINUTE);
    const minutes = window.app('p/web', 0).minutes;
    expect(minutes[0]?.start).toBe(T0 + (1500 - 1455) * MINUTE);
    expect(minutes.at(-1)?.start).toBe(T0 + 1500 * MINUTE);
    expect(minutes.every((m) => m.classes[1] === 1)).toBe(true);
  });

  it('sums a namespace’s apps over a span for the apps list', () => {
    const window = new MetricsWindow({ started: T0 });
    window.observe(
      new Map([
        ['p/web', counts(0, 0)],
        ['p/api', counts(0, 0)],
        ['q/web', counts(0, 0)],
      ]),
      T0,
    );
    window.observe(
      new Map([
        ['p/web', counts(8, 2)],
        ['p/api', counts(0, 0)],
        ['q/web', counts(5, 0)],
      ]),
      T0 + 2 * MINUTE,
    );
    expect(window.namespaceTotals('p', T0)).toEqual({ started: T0, apps: { web: { requests: 10, errors: 2, buckets: [0, 8, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0] } } });
  });
});
