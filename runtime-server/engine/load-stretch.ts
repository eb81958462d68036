import type { StartupAdmission } from './startup-budget.ts';
import type { UpstreamPool } from './upstream.ts';

/** Signs of life closer together than this are read as one: what happens within a millisecond stalls nobody. */
const READ_EVERY_MS = 1;

/** One load being measured: the thread's CPU time at its last sign of life, and the longest stretch since the hand-over. */
interface Measure {
  last: number | undefined;
  longest: number;
  readonly finish: () => void;
}

/**
 * What cold starts hold one workerd's thread for: the longest it computed without a sign of life, from the moment it
 * was handed an app's code until every request of the app waiting there then has begun its answer (the one that asked
 * for the code among them, which the load comes before). The signs of life are those only the thread can give once it
 * is free: a response head, an answer to a health check (not body bytes, which Node may read from its socket's buffer
 * while the thread is busy). When one of those requests ends with no answer (its client left mid-load), the measure
 * goes on until a health check sent after that is answered, so the load is measured whole. What another app computes
 * meanwhile in one stretch longer than the load is counted instead, which only overstates it.
 */
export class LoadMeter {
  readonly #cpuMs: () => number | undefined;
  readonly #ping: () => Promise<unknown>;
  readonly #open = new Set<Measure>();
  /** Loader id → whether its code was let in to this workerd (a refusal is forgotten: the next ask is let in or not anew). */
  readonly #handedOver = new Map<string, Promise<StartupAdmission>>();
  #readAt = 0;

  /** `cpuMs` reads the thread's CPU time; `ping` asks the workerd for its health (settles once answered or failed). */
  constructor(cpuMs: () => number | undefined, ping: () => Promise<unknown>) {
    this.#cpuMs = cpuMs;
    this.#ping = ping;
  }

  /**
   * Lets loader id `id`'s code in to this workerd once: `admit` asks its project's budget for the first ask, and
   * concurrent or later asks for the same id (several first requests, each fetching the code; workerd loads it once)
   * share that answer, charged nothing (`first` false).
   */
  admit(id: string, admit: () => Promise<StartupAdmission>): Promise<{ readonly admission: StartupAdmission; readonly first: boolean }> {
    const earlier = this.#handedOver.get(id);
    if (earlier) return earlier.then((admission) => ({ admission: admission.admitted ? { admitted: true, charge: () => {} } : admission, first: false }));
    const asked = admit();
    this.#handedOver.set(id, asked);
    return asked.then((admission) => {
      if (!admission.admitted) this.#handedOver.delete(id);
      return { admission, first: true };
    });
  }

  /** The thread gave a sign of life (a response head, a health answer). */
  alive(): void {
    if (this.#open.size === 0 || performance.now() - this.#readAt < READ_EVERY_MS) return;
    this.#read();
  }

  /** Measures the load of `app`'s code, handed over now, among `pool`'s requests (at most `lookMs`). */
  measure(pool: UpstreamPool, app: string, lookMs = 30_000): Promise<number> {
    return new Promise((resolve) => {
      const measure: Measure = {
        last: this.#cpuMs(),
        longest: 0,
        finish: () => {
          if (!this.#open.delete(measure)) return;
          clearTimeout(timer);
          stop();
          this.#read(measure);
          resolve(measure.longest);
        },
      };
      this.#open.add(measure);
      const timer = setTimeout(measure.finish, lookMs);
      timer.unref();
      const stop = pool.onAnswered(app, (allAnswered) => {
        if (allAnswered) measure.finish();
        else void this.#ping().finally(measure.finish);
      });
    });
  }

  /** The workerd is gone: every measure ends with what was read. */
  end(): void {
    for (const measure of this.#open) measure.finish();
  }

  #read(only?: Measure): void {
    this.#readAt = performance.now();
    const now = this.#cpuMs();
    if (now === undefined) return;
    for (const measure of only ? [only] : this.#open) {
      if (measure.last !== undefined) measure.longest = Math.max(measure.longest, now - measure.last);
      measure.last = now;
    }
  }
}
