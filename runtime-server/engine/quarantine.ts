import type { LimitReason } from '../../src/runtime-contract/report.ts';

export type { LimitReason };

export interface Quarantine {
  readonly reason: LimitReason;
  /** When it started and ends (ms since the epoch). */
  readonly since: number;
  readonly until: number;
  /** Offences counted for the back-off, this one included. */
  readonly offences: number;
  /** For CPU held over a window while other projects' requests waited (`sustained-cpu.ts`), not for one request computing without yielding. */
  readonly sustained?: true;
}

export interface QuarantineOptions {
  /** The first quarantine's length; each further offence doubles it, up to `maxMs`. */
  readonly initialMs: number;
  readonly maxMs: number;
  /** An app with no offence for this long starts again from `initialMs` (default a day). */
  readonly forgetAfterMs?: number;
  /** Called when an app's quarantine starts or ends (its report changes). */
  readonly onChange?: (key: string) => void;
}

/**
 * Apps the runtime does not route to for a while, by app key, after one of their requests stopped a shard.
 * The back-off doubles with each offence (an app that keeps doing it is served less and less often), and an
 * app forgiven after a quiet day starts again from the first length. In memory, per replica.
 */
export class Quarantines {
  readonly #options: QuarantineOptions;
  readonly #active = new Map<string, Quarantine & { readonly timer: NodeJS.Timeout }>();
  readonly #offences = new Map<string, { count: number; last: number }>();

  constructor(options: QuarantineOptions) {
    this.#options = options;
  }

  /** How many apps are quarantined now (the entry point looks only when some are). */
  get size(): number {
    return this.#active.size;
  }

  /** Quarantines `key` for its next back-off period; `sustained`: for CPU held over a window (`Quarantine.sustained`). */
  impose(key: string, reason: LimitReason, now = Date.now(), sustained = false): Quarantine {
    const previous = this.#offences.get(key);
    const forgotten = !previous || now - previous.last > (this.#options.forgetAfterMs ?? 86_400_000);
    const count = forgotten ? 1 : previous.count + 1;
    this.#offences.set(key, { count, last: now });
    const length = Math.min(this.#options.initialMs * 2 ** Math.min(count - 1, 30), this.#options.maxMs);
    clearTimeout(this.#active.get(key)?.timer);
    const timer = setTimeout(() => this.#lift(key), length);
    timer.unref();
    const quarantine: Quarantine = { reason, since: now, until: now + length, offences: count, ...(sustained ? { sustained: true } : {}) };
    this.#active.set(key, { ...quarantine, timer });
    this.#options.onChange?.(key);
    return quarantine;
  }

  /** The app's quarantine, while it lasts. */
  get(key: string): Quarantine | undefined {
    const q = this.#active.get(key);
    return q && { reason: q.reason, since: q.since, until: q.until, offences: q.offences, ...(q.sustained ? { sustained: true } : {}) };
  }

  /** Every quarantine in force, by app key. */
  list(): Map<string, Quarantine> {
    return new Map([...this.#active.keys()].map((key) => [key, this.get(key)!]));
  }

  /** The app is gone: its quarantine and record of offences go too. */
  forget(key: string): void {
    clearTimeout(this.#active.get(key)?.timer);
    this.#offences.delete(key);
    if (this.#active.delete(key)) this.#options.onChange?.(key);
  }

  clear(): void {
    for (const q of this.#active.values()) clearTimeout(q.timer);
    this.#active.clear();
  }

  #lift(key: string): void {
    if (this.#active.delete(key)) this.#options.onChange?.(key);
  }
}
