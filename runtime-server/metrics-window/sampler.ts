import type { Logger } from '../../src/logging/log.ts';
import type { AppCumulative, MetricsWindow } from './metrics-window.ts';

/** How often the window reads the dispatchers' counts: a minute's answers land in it at most this late. */
export const SAMPLE_INTERVAL_MS = 10_000;

/** What the sampler reads of the engine (`RuntimeEngine`): the dispatchers' counts and the entry point's refusals. */
export interface CountsSource {
  requestStats(): Promise<ReadonlyMap<string, AppCumulative>>;
  readonly entryRefusals: ReadonlyMap<string, number>;
}

/**
 * Feeds a `MetricsWindow` from the engine: the dispatchers' cumulative counts (the same read `/metrics` makes)
 * plus the entry point's own refusals (answered 503 within the first latency bucket, as the dispatcher counts
 * its own), every `SAMPLE_INTERVAL_MS` on the clock's ten-second marks, and before an answer of the window.
 */
export class MetricsSampler {
  readonly #engine: CountsSource;
  readonly #window: MetricsWindow;
  readonly #log: Logger;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  /** Reads run one after another, in the order asked for. */
  #chain: Promise<void> = Promise.resolve();
  /** A caller's read that has not started yet: callers meanwhile share it (it begins after they asked). */
  #pending: Promise<void> | undefined;

  constructor(engine: CountsSource, window: MetricsWindow, log: Logger) {
    this.#engine = engine;
    this.#window = window;
    this.#log = log;
  }

  start(intervalMs = SAMPLE_INTERVAL_MS): void {
    const tick = () => {
      // On the mark just passed, less a millisecond: what came in the ten seconds before a minute's end is that minute's.
      const mark = Math.floor(Date.now() / intervalMs) * intervalMs - 1;
      void this.sample(mark).finally(schedule);
    };
    const schedule = () => {
      if (this.#stopped) return; // a read under way at stop() schedules no other
      this.#timer = setTimeout(tick, intervalMs - (Date.now() % intervalMs));
      this.#timer.unref();
    };
    schedule();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  /** Brings the window up to date: resolves once a read begun after this call has been taken in. */
  fresh(): Promise<void> {
    this.#pending ??= this.#enqueue(() => {
      this.#pending = undefined;
      return Date.now();
    });
    return this.#pending;
  }

  /** Reads the counts, attributed to the minute of `at`. */
  sample(at: number): Promise<void> {
    return this.#enqueue(() => at);
  }

  #enqueue(at: () => number): Promise<void> {
    const reading = this.#chain.then(async () => {
      const time = at();
      try {
        const stats = await this.#engine.requestStats();
        this.#window.observe(withRefusals(stats, this.#engine.entryRefusals), time);
      } catch (err) {
        this.#log.warn('cannot read the request counts for the metrics window', { err });
      }
    });
    this.#chain = reading;
    return reading;
  }
}

function withRefusals(stats: ReadonlyMap<string, AppCumulative>, refusals: ReadonlyMap<string, number>): Map<string, AppCumulative> {
  const out = new Map(stats);
  for (const [key, n] of refusals) {
    const c = out.get(key) ?? { classes: [0, 0, 0, 0, 0], buckets: [], count: 0 };
    const classes = [...c.classes];
    classes[4] = (classes[4] ?? 0) + n;
    const buckets = [...c.buckets];
    buckets[0] = (buckets[0] ?? 0) + n;
    out.set(key, { ...c, classes, buckets, count: c.count + n, refused: (c.refused ?? 0) + n });
  }
  return out;
}
