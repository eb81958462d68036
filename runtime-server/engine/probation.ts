import { splitKey } from '../../src/kube/types.ts';

/** How long a turn just given is kept for its holder before its request is in flight (the entry point sends it a few promise steps later). */
const RESERVED_MS = 100;

/**
 * Apps suspected together of stopping a shard (several could have been running; see `blame.ts`), for a while,
 * and with them their projects. On their shard the projects take turns: while an app of one has a request in
 * flight there (or finished one within the grace in which work after an answer still runs), requests of the
 * other projects' apps are held back (`held-requests.ts`), so the next stall has suspects of at most one of them,
 * and the stop is that project's. By project, not by app: a project's other apps (one it creates for the purpose) share
 * its turn, so a tenant cannot pair each stall with a fresh app to keep every verdict shared. A project waiting
 * for its turn makes the one holding it give way once its requests are done. Nobody is quarantined on suspicion.
 */
export class Probation {
  readonly #periodMs: number;
  /** App key → when its probation ends. */
  readonly #until = new Map<string, number>();
  /** Shard → the project whose turn it is (and when it was given), and whether another is waiting for it. */
  readonly #lanes = new Map<number, { holder?: string; since: number; waiting: boolean }>();

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

  /** Whether `app` itself is on probation now. */
  has(app: string, now = Date.now()): boolean {
    const until = this.#until.get(app);
    if (until === undefined) return false;
    if (until > now) return true;
    this.#until.delete(app);
    return false;
  }

  /** Whether `project` has an app on probation now: each of its apps then waits for the project's turn. */
  covers(project: string, now = Date.now()): boolean {
    for (const app of this.#until.keys()) if (splitKey(app).namespace === project && this.has(app, now)) return true;
    return false;
  }

  /** Every app on probation now. */
  list(now = Date.now()): string[] {
    return [...this.#until.keys()].filter((app) => this.has(app, now));
  }

  /**
   * May a request of an app of `project` (on probation, served by `shard`) go to its shard now? `busy(other)` says
   * whether an app of another project has a request there in flight or just finished one.
   */
  admit(shard: number, project: string, busy: (project: string) => boolean, now = Date.now()): boolean {
    let lane = this.#lanes.get(shard);
    if (!lane) this.#lanes.set(shard, (lane = { since: now, waiting: false }));
    const holder = lane.holder;
    if (holder === project) {
      if (!lane.waiting) return true;
      if (!busy(project)) lane.holder = undefined; // done: the turn passes to the project that waited
      return false;
    }
    // A turn just given is the holder's before its request is in flight: requests let go together (at a
    // shard's switch) must not all take it.
    if (holder !== undefined && this.covers(holder, now) && (busy(holder) || now - lane.since < RESERVED_MS)) {
      lane.waiting = true;
      return false;
    }
    lane.holder = project;
    lane.since = now;
    lane.waiting = false;
    return true;
  }

  /** The project on probation whose turn it is on `shard`, if one's is. */
  holder(shard: number, now = Date.now()): string | undefined {
    const holder = this.#lanes.get(shard)?.holder;
    return holder !== undefined && this.covers(holder, now) ? holder : undefined;
  }

  forget(app: string): void {
    this.#until.delete(app);
  }
}
