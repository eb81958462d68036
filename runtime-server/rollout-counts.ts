// The per-release counts of the apps this replica serves in a rollout, read from the engine on a timer so
// that the replica's report carries them to the operator's analysis without a metrics backend.
import type { RolloutCounts, RuntimeEngine } from './engine/index.ts';
import type { Logger } from '../src/logging/log.ts';

/** How often the counts are read while some app is in a rollout: the operator sees them at most this late (plus the publisher's coalescing). */
export const ROLLOUT_COUNTS_INTERVAL_MS = 2500;

/**
 * Reads `engine.rolloutCounts()` every `intervalMs` and calls `changed` when they moved. With no app in a
 * rollout the read is a look at the engine's memory (no workerd is asked), and nothing changes: the 99 % of
 * apps that are not in one cost nothing.
 */
export class RolloutCountsReader {
  readonly #engine: Pick<RuntimeEngine, 'rolloutCounts'>;
  readonly #changed: (key: string) => void;
  readonly #log: Logger;
  #counts = new Map<string, RolloutCounts>();
  #timer: NodeJS.Timeout | undefined;
  #reading: Promise<void> = Promise.resolve();
  #queued = false;

  constructor(engine: Pick<RuntimeEngine, 'rolloutCounts'>, changed: (key: string) => void, log: Logger) {
    this.#engine = engine;
    this.#changed = changed;
    this.#log = log;
  }

  /** The counts of the app `key` at the last read, if it is in a rollout. */
  get(key: string): RolloutCounts | undefined {
    return this.#counts.get(key);
  }

  start(intervalMs = ROLLOUT_COUNTS_INTERVAL_MS): void {
    this.#timer = setInterval(() => this.refresh(), intervalMs);
    this.#timer.unref();
  }

  /**
   * Reads again soon (after a read under way): a split served or ended changes which apps have counts. Calls
   * while one is waiting are one (a burst of reconciles at start is one read).
   */
  refresh(): void {
    if (this.#queued) return;
    this.#queued = true;
    this.#reading = this.#reading.then(() => {
      this.#queued = false;
      return this.read();
    });
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#reading;
  }

  /** Reads the counts now; `changed` is called when they differ from the last read's. */
  async read(): Promise<void> {
    try {
      const counts = await this.#engine.rolloutCounts();
      const moved = new Set([...counts.keys(), ...this.#counts.keys()].filter((key) => JSON.stringify(counts.get(key)) !== JSON.stringify(this.#counts.get(key))));
      this.#counts = counts;
      for (const key of moved) this.#changed(key);
    } catch (err) {
      this.#log.warn('cannot read the rollout counts', { err });
    }
  }
}
