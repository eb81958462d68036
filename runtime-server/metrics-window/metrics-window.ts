import { LATENCY_BUCKETS_MS, type AppTotals, type MinuteCounts, type ReplicaAppMetrics, type ReplicaNamespaceTotals } from '../../src/runtime-contract/app-metrics.ts';
import { BUCKETS, CLASSES, EXCEPTIONS, FIELDS, REFUSED } from './minute-record.ts';
import { Series, vectorOf, type Cumulative } from './series.ts';

/** An app's cumulative counts, with its builds' while it was in a rollout. */
export interface AppCumulative extends Cumulative {
  readonly builds?: Readonly<Record<string, Cumulative>> | undefined;
}

/** 24 hours, and a quarter of an hour more: a day's chart starts at a step boundary up to 15 minutes earlier. */
export const WINDOW_MINUTES = 24 * 60 + 15;

const MINUTE_MS = 60_000;

interface AppSeries {
  readonly all: Series;
  builds?: Map<string, Series>;
}

/**
 * A replica's rolling window of its apps' answers at one-minute resolution: requests by status class,
 * exceptions, refusals and latency buckets per app, and per build for apps in a rollout. It is fed the
 * dispatchers' cumulative counts (`observe`, on a timer and before each read), so serving a request costs
 * nothing more; the difference from the last reading goes to the current minute. A minute with no answers
 * costs no memory, a closed one a few bytes (`minute-record.ts`), minutes past the window are dropped.
 */
export class MetricsWindow {
  readonly started: number;
  readonly #minutes: number;
  readonly #apps = new Map<string, AppSeries>();
  readonly #createdAt: ((key: string) => number | undefined) | undefined;
  /** The latest minute a reading went to: readings never go back to an earlier one (a late timer after a caller's read). */
  #minute = 0;

  /**
   * `createdAt`: when the app now served under a key was created (its RuntimeApp's creationTimestamp), `undefined`
   * for a key this replica does not serve now. Its minutes are read from then on, and none of a key not served:
   * an app deleted and created again under the same key, or a project id a new tenant took, never shows the
   * answers of the one before (nor does the new one before it is deployed).
   */
  constructor(options: { started?: number; minutes?: number; createdAt?: (key: string) => number | undefined } = {}) {
    this.started = options.started ?? Date.now();
    this.#minutes = options.minutes ?? WINDOW_MINUTES;
    this.#createdAt = options.createdAt;
  }

  /** The first minute of `key`'s to read for `since` (ms): not before the app now under that key was created. */
  #from(key: string, since: number): number {
    if (!this.#createdAt) return Math.floor(since / MINUTE_MS);
    const created = this.#createdAt(key);
    return created === undefined ? Infinity : Math.max(Math.floor(since / MINUTE_MS), Math.floor(created / MINUTE_MS));
  }

  /** Takes a reading of every app's cumulative counts at `now`. */
  observe(apps: ReadonlyMap<string, AppCumulative>, now: number = Date.now()): void {
    const minute = (this.#minute = Math.max(this.#minute, Math.floor(now / MINUTE_MS)));
    const keepFrom = minute - this.#minutes;
    for (const [key, counts] of apps) {
      let app = this.#apps.get(key);
      if (!app) {
        // Counted before the window knew it (the first reading): those answers are in this minute.
        app = { all: new Series(new Float64Array(FIELDS)) };
        this.#apps.set(key, app);
      }
      app.all.observe(vectorOf(counts), minute, keepFrom);
      for (const [build, c] of Object.entries(counts.builds ?? {})) {
        app.builds ??= new Map();
        let series = app.builds.get(build);
        if (!series) app.builds.set(build, (series = new Series(new Float64Array(FIELDS))));
        series.observe(vectorOf(c), minute, keepFrom);
      }
    }
    for (const [key, app] of this.#apps) {
      if (apps.has(key)) continue;
      app.all.close(minute, keepFrom);
      for (const series of app.builds?.values() ?? []) series.close(minute, keepFrom);
    }
  }

  /** The app's minutes from `since` (ms) on, as the status port answers them. */
  app(key: string, since: number): ReplicaAppMetrics {
    const app = this.#apps.get(key);
    const from = this.#from(key, since);
    const builds: Record<string, MinuteCounts[]> = {};
    for (const [build, series] of app?.builds ?? []) {
      const minutes = minutesOf(series, from);
      if (minutes.length > 0) builds[build] = minutes;
    }
    return { started: this.started, bucketsMs: LATENCY_BUCKETS_MS, minutes: app ? minutesOf(app.all, from) : [], builds };
  }

  /** The totals from `since` (ms) on of every app of `namespace` with answers in that span. */
  namespaceTotals(namespace: string, since: number): ReplicaNamespaceTotals {
    const apps: Record<string, AppTotals> = {};
    for (const [key, app] of this.#apps) {
      if (!key.startsWith(`${namespace}/`)) continue;
      const total = new Float64Array(FIELDS);
      app.all.read(this.#from(key, since), (_, v) => {
        for (let i = 0; i < FIELDS; i++) total[i] = (total[i] ?? 0) + (v[i] ?? 0);
      });
      const requests = total.subarray(0, CLASSES).reduce((a, b) => a + b, 0);
      if (requests > 0) apps[key.slice(namespace.length + 1)] = { requests, errors: total[CLASSES - 1] ?? 0, buckets: [...total.subarray(BUCKETS)] };
    }
    return { started: this.started, apps };
  }

  /** Apps with a series (answers seen since the replica started). */
  get size(): number {
    return this.#apps.size;
  }

  /** Bytes in the series' typed arrays: the packed minutes, open minutes and last readings. */
  get bytes(): number {
    let bytes = 0;
    for (const key of this.#apps.keys()) bytes += this.bytesOf(key);
    return bytes;
  }

  /** Bytes in one app's typed arrays (its builds' included). */
  bytesOf(key: string): number {
    const app = this.#apps.get(key);
    let bytes = app?.all.bytes ?? 0;
    for (const series of app?.builds?.values() ?? []) bytes += series.bytes;
    return bytes;
  }
}

function minutesOf(series: Series, from: number): MinuteCounts[] {
  const out: MinuteCounts[] = [];
  series.read(from, (minute, v) =>
    out.push({ start: minute * MINUTE_MS, classes: [...v.subarray(0, CLASSES)], exceptions: v[EXCEPTIONS] ?? 0, refused: v[REFUSED] ?? 0, buckets: [...v.subarray(BUCKETS)] }),
  );
  return out;
}
