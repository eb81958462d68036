import type { DeployFailure } from '../src/runtime-contract/report.ts';
import type { AppRecord } from './app-report.ts';

/**
 * Per app key (`namespace/name`), what this replica last did: which generation it deployed, which one is
 * served, and why the last one failed. Only the reconciler of that key writes its record (the work queue
 * never runs one key twice at once), so there are no races between writers.
 */
export class AppRecords {
  readonly #records = new Map<string, AppRecord>();
  readonly #onChange: (key: string) => void;

  /** `onChange` hears every write, with the app's key (the replica publishes its reports from them, coalesced). */
  constructor(onChange: (key: string) => void = () => {}) {
    this.#onChange = onChange;
  }

  get(key: string): AppRecord | undefined {
    return this.#records.get(key);
  }

  has(key: string): boolean {
    return this.#records.has(key);
  }

  /**
   * A deploy of `generation` (with the app's admitted `hostnames`, `linked` token generations and serving
   * `plan`, `planSignature`) starts; an earlier failure no longer describes it.
   */
  attempt(key: string, generation: number, buildId: string, hostnames: readonly string[] = [], linked = '', plan = 'spec'): void {
    const previous = this.#records.get(key);
    this.#records.set(key, {
      generation,
      buildId,
      ...(hostnames.length > 0 ? { hostnames } : {}),
      ...(linked ? { linked } : {}),
      ...(plan !== 'spec' ? { plan } : {}),
      ...(previous?.servedGeneration !== undefined ? { servedGeneration: previous.servedGeneration } : {}),
      ...(previous?.rollout ? { rollout: previous.rollout } : {}),
    });
    this.#onChange(key);
  }

  /** `generation` is served, with the split of a rollout (`rollout`: its new release and weight) or without one. */
  served(key: string, generation: number, rollout?: AppRecord['rollout']): void {
    const record = this.#records.get(key);
    if (record) {
      const { failure: _gone, rollout: _before, ...kept } = record;
      this.#records.set(key, { ...kept, servedGeneration: generation, ...(rollout ? { rollout } : {}) });
    }
    this.#onChange(key);
  }

  failed(key: string, failure: DeployFailure): void {
    const record = this.#records.get(key);
    if (record) this.#records.set(key, { ...record, failure });
    this.#onChange(key);
  }

  delete(key: string): void {
    if (this.#records.delete(key)) this.#onChange(key);
  }

  /** How many apps have a failed deploy, by reason (for metrics). */
  failureCounts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const record of this.#records.values()) {
      if (record.failure) counts.set(record.failure.reason, (counts.get(record.failure.reason) ?? 0) + 1);
    }
    return counts;
  }
}
