import { splitKey } from '../../src/kube/types.ts';

/** How long a turn just given is kept for its holder before its request is in flight (the entry point sends it a few promise steps later). */
const RESERVED_MS = 100;

/** A shard's turns: the project holding it (and since when), and the projects whose requests wait, in arrival order. */
interface Lane {
  holder?: string;
  since: number;
  /** Project → its requests held for the turn now (`held-requests.ts` counts them in and out). */
  readonly waiting: Map<string, number>;
  readonly listeners: Set<() => void>;
}

/**
 * Apps suspected together of stopping a shard (several could have been running; see `blame.ts`), for a while,
 * and with them their projects. On their shard the projects take turns: while an app of one has a request in
 * flight there (or finished one within the grace in which work after an answer still runs), requests of the
 * other projects' apps are held back (`held-requests.ts`), so the next stall has suspects of at most one of them,
 * and the stop is that project's. By project, not by app: a project's other apps (one it creates for the purpose) share
 * its turn, so a tenant cannot pair each stall with a fresh app to keep every verdict shared. When others wait, the
 * holder gives way once its requests are done, handing the turn to the project that has waited longest (never
 * back to itself while another waits). Nobody is quarantined on suspicion.
 */
export class Probation {
  readonly #periodMs: number;
  /** App key → when its probation ends. */
  readonly #until = new Map<string, number>();
  readonly #lanes = new Map<number, Lane>();

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
   * whether an app of another project has a request there in flight or just finished one. A request refused is
   * held, and counted in with `waiting` until it settles.
   */
  admit(shard: number, project: string, busy: (project: string) => boolean, now = Date.now()): boolean {
    const lane = this.#lane(shard, now);
    const holder = lane.holder;
    // A turn just given is its holder's before its request is in flight: requests let go together (at a shard's
    // switch, at a handover) must not all take it, nor may the holder give it away before using it.
    const reserved = now - lane.since < RESERVED_MS;
    if (holder === project) {
      const next = this.#next(lane, project);
      if (next === undefined || reserved || busy(project)) return next === undefined || reserved;
      this.#give(lane, next, now); // done, and another waits: the turn passes to the one that waited longest
      return false;
    }
    if (holder !== undefined && this.covers(holder, now) && (busy(holder) || reserved)) return false;
    // The turn is free: to this project, unless another has waited for it longer.
    const next = this.#next(lane, holder);
    if (next !== undefined && next !== project) {
      this.#give(lane, next, now);
      return false;
    }
    this.#give(lane, project, now);
    return true;
  }

  /** Counts a request of `project` held for `shard`'s turn in (`+1`) or out (`-1`). */
  waiting(shard: number, project: string, delta: 1 | -1): void {
    const lane = this.#lane(shard, Date.now());
    const count = (lane.waiting.get(project) ?? 0) + delta;
    if (count > 0) lane.waiting.set(project, count);
    else lane.waiting.delete(project);
  }

  /** Calls `listener` once when `shard`'s turn next changes hands; returns what unsubscribes it. */
  onHandover(shard: number, listener: () => void): () => void {
    const listeners = this.#lane(shard, Date.now()).listeners;
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  /** The project on probation whose turn it is on `shard`, if one's is. */
  holder(shard: number, now = Date.now()): string | undefined {
    const holder = this.#lanes.get(shard)?.holder;
    return holder !== undefined && this.covers(holder, now) ? holder : undefined;
  }

  forget(app: string): void {
    this.#until.delete(app);
  }

  #lane(shard: number, now: number): Lane {
    let lane = this.#lanes.get(shard);
    if (!lane) this.#lanes.set(shard, (lane = { since: now - RESERVED_MS, waiting: new Map(), listeners: new Set() }));
    return lane;
  }

  /** The project that has waited longest for the turn, other than `except`. */
  #next(lane: Lane, except: string | undefined): string | undefined {
    for (const project of lane.waiting.keys()) if (project !== except) return project;
    return undefined;
  }

  #give(lane: Lane, project: string, now: number): void {
    if (lane.holder === project) return;
    lane.holder = project;
    lane.since = now;
    const listeners = [...lane.listeners];
    lane.listeners.clear();
    for (const listener of listeners) listener();
  }
}
