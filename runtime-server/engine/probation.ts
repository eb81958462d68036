/**
 * Apps suspected together of stopping a shard (several could have been running; see `blame.ts`), for a while.
 * On their shard they take turns: while one of them has a request in flight there (or finished one within the
 * grace in which work after an answer still runs), requests of the others are refused with 503, so the next
 * stall has at most one of them among its suspects and blames it alone. An app that waits for its turn makes
 * the one holding it give way once its requests are done. Nobody is quarantined on suspicion.
 */
export class Probation {
  readonly #periodMs: number;
  /** App key → when its probation ends. */
  readonly #until = new Map<string, number>();
  /** Shard → the suspect whose turn it is, and whether another is waiting for it. */
  readonly #lanes = new Map<number, { holder?: string; waiting: boolean }>();

  constructor(periodMs: number) {
    this.#periodMs = periodMs;
  }

  /** How many apps are on probation (the entry point looks only when some are). */
  get size(): number {
    return this.#until.size;
  }

  add(apps: Iterable<string>, now = Date.now()): void {
    for (const app of apps) this.#until.set(app, now + this.#periodMs);
  }

  /** Whether `app` is on probation now. */
  has(app: string, now = Date.now()): boolean {
    const until = this.#until.get(app);
    if (until === undefined) return false;
    if (until > now) return true;
    this.#until.delete(app);
    return false;
  }

  /** Every app on probation now. */
  list(now = Date.now()): string[] {
    return [...this.#until.keys()].filter((app) => this.has(app, now));
  }

  /**
   * May a request of `app` (on probation, served by `shard`) go to its shard now? `busy(other)` says whether
   * another app has a request there in flight or just finished one.
   */
  admit(shard: number, app: string, busy: (app: string) => boolean, now = Date.now()): boolean {
    let lane = this.#lanes.get(shard);
    if (!lane) this.#lanes.set(shard, (lane = { waiting: false }));
    const holder = lane.holder;
    if (holder === app) {
      if (!lane.waiting) return true;
      if (!busy(app)) lane.holder = undefined; // done: the turn passes to the app that waited
      return false;
    }
    if (holder !== undefined && this.has(holder, now) && busy(holder)) {
      lane.waiting = true;
      return false;
    }
    lane.holder = app;
    lane.waiting = false;
    return true;
  }

  forget(app: string): void {
    this.#until.delete(app);
  }
}
