// The window's memory per app, measured: 1,000 apps with synthetic traffic through a day and an hour of
// minutes, the heap measured after a full collection with and without the window.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { MetricsWindow, type AppCumulative } from './metrics-window.ts';

const APPS = 1000;
const MINUTES = 25 * 60;
/** The target of issue 42: a day at one-minute steps in at most 20 KB per app. */
const MAX_BYTES_PER_APP = 20 * 1024;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A deterministic generator (mulberry32), so every run sends the same traffic. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One app's traffic: its cumulative counts, and how much it gets a minute. */
interface App {
  readonly key: string;
  /** Requests a minute on average; `activeShare`: the share of minutes with any. */
  readonly perMinute: number;
  readonly activeShare: number;
  /** Its latencies centre on this bucket. */
  readonly bucket: number;
  /** In a rollout from minute 600 to 720 (2 h) between two builds. */
  readonly rollout: boolean;
  classes: number[];
  buckets: number[];
  count: number;
  exceptions: number;
  builds: Record<string, { classes: number[]; buckets: number[]; count: number; exceptions: number }>;
}

const rnd = random(42);
const apps: App[] = Array.from({ length: APPS }, (_, i) => {
  // Half busy (50–150 requests/s all day), 40 % steady (20–300 a minute), 10 % light (a few requests, now and then).
  const kind = i % 10;
  const perMinute = kind < 5 ? 3000 + rnd() * 6000 : kind < 9 ? 20 + rnd() * 280 : 1 + rnd() * 9;
  return {
    key: `project-${i % 100}/app-${i}`,
    perMinute,
    activeShare: kind === 9 ? 0.2 : 1,
    bucket: 1 + Math.floor(rnd() * 5),
    rollout: i % 20 === 0,
    classes: [0, 0, 0, 0, 0],
    buckets: Array.from({ length: 12 }, () => 0),
    count: 0,
    exceptions: 0,
    builds: {},
  };
});

/** Adds one minute of `app`'s answers to `into` (cumulative counts) and, during its rollout, to a build's. */
function serve(app: App, minute: number): void {
  if (rnd() >= app.activeShare) return;
  const n = Math.max(1, Math.round(app.perMinute * (0.7 + rnd() * 0.6)));
  const e5 = Math.round(n * 0.003 * rnd() * 2);
  const e4 = Math.round(n * 0.01 * rnd() * 2);
  const ex = Math.round(e5 * rnd());
  const ok = n - e5 - e4;
  const targets = [app];
  const build = app.rollout && minute >= 600 && minute < 720 ? (rnd() < 0.3 ? 'b-new' : 'b-old') : undefined;
  if (build) targets.push((app.builds[build] ??= { classes: [0, 0, 0, 0, 0], buckets: Array.from({ length: 12 }, () => 0), count: 0, exceptions: 0 }) as App);
  for (const t of targets) {
    t.classes[1]! += ok;
    t.classes[3]! += e4;
    t.classes[4]! += e5;
    t.count += n;
    t.exceptions += ex;
    // Latencies over the app's bucket and its two neighbours (a few answers slower).
    let left = n;
    for (const [offset, share] of [
      [-1, 0.25],
      [0, 0.6],
      [1, 0.13],
    ] as const) {
      const k = Math.min(left, Math.round(n * share));
      t.buckets[app.bucket + offset]! += k;
      left -= k;
    }
    t.buckets[app.bucket + 2]! += left;
  }
}

function reading(): Map<string, AppCumulative> {
  return new Map(
    apps.map((a) => [
      a.key,
      {
        classes: [...a.classes],
        buckets: [...a.buckets],
        count: a.count,
        exceptions: a.exceptions,
        builds: Object.fromEntries(Object.entries(a.builds).map(([b, c]) => [b, { ...c, classes: [...c.classes], buckets: [...c.buckets] }])),
      },
    ]),
  );
}

function retained(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

it('keeps 1,000 apps’ day of minutes within 20 KB per app', { timeout: 120_000 }, () => {
  const t0 = Date.UTC(2026, 10, 29);
  const before = retained();
  let window: MetricsWindow | undefined = new MetricsWindow({ started: t0 });
  const started = performance.now();
  for (let minute = 0; minute < MINUTES; minute++) {
    for (const app of apps) serve(app, minute);
    // One reading a minute: the replica takes six, but the minutes it closes are the same.
    window.observe(reading(), t0 + minute * 60_000 + 59_000);
  }
  const feedMs = performance.now() - started;
  const after = retained();
  const perApp = (after - before) / APPS;
  const typed = window.bytes / APPS;
  const busiest = (inRollout: boolean) => Math.max(...apps.filter((a) => a.rollout === inRollout).map((a) => window!.bytesOf(a.key)));
  const read = window.app(apps[0]!.key, t0 + (MINUTES - 60) * 60_000);
  process.stdout.write(
    `metrics window: ${APPS} apps, ${MINUTES} minutes fed in ${Math.round(feedMs)} ms; retained ${(perApp / 1024).toFixed(1)} KB per app (heap + buffers), ${(typed / 1024).toFixed(1)} KB of it in typed arrays; the busiest app ${(busiest(false) / 1024).toFixed(1)} KB of typed arrays, ${(busiest(true) / 1024).toFixed(1)} KB with 2 h of a rollout's two builds\n`,
  );
  expect(read.minutes.length).toBe(60);
  expect(window.size).toBe(APPS);
  expect(perApp).toBeLessThanOrEqual(MAX_BYTES_PER_APP);
  // The busiest app all day, its buffers and its share of the objects around them, is within the target too.
  expect(busiest(false) + (perApp - typed)).toBeLessThanOrEqual(MAX_BYTES_PER_APP);
  expect(perApp).toBeGreaterThan(typed); // the measurement sees at least the window's own buffers
  window = undefined;
  expect(retained() - before).toBeLessThan(APPS * 1024); // and they are the window's: gone with it
});
