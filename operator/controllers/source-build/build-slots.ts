/** A waiting build not asked about again for this long is taken for gone (deleted without a word). */
const WAITER_TTL_MS = 60_000;

/**
 * Which builds may run now: at most `total` at once, and `perProject` per project, so one project's burst of
 * pushes waits behind its own builds and never holds up another project's. A free slot goes to the build that has
 * waited longest among those whose project has room, whichever is asked about first: the wake-up after a release
 * looks at every queued build in no particular order. Held in memory: after a restart, the builds found running
 * take their slots back first (`force`).
 */
export class BuildSlots {
  readonly #total: number;
  readonly #perProject: number;
  /** Build key → its project. */
  readonly #held = new Map<string, string>();
  /** Builds refused a slot, in the order they first waited: key → project and when it last asked. */
  readonly #waiting = new Map<string, { project: string; askedAt: number }>();
  readonly #freed: () => void;
  readonly #now: () => number;

  /** `freed`: called on every release of a held slot, so the builds waiting for one are looked at now, not at the next resync. */
  constructor(limits: { total: number; perProject: number }, freed: () => void = () => {}, now: () => number = Date.now) {
    this.#total = limits.total;
    this.#perProject = limits.perProject;
    this.#freed = freed;
    this.#now = now;
  }

  holds(key: string): boolean {
    return this.#held.has(key);
  }

  /** Takes a slot for the build `key` of `project` when one is free and it is its turn (or `force`); answers whether it holds one. */
  take(key: string, project: string, force = false): boolean {
    if (this.#held.has(key)) return true;
    const now = this.#now();
    if (!force && !(this.#hasRoom(project) && this.#isTurnOf(key, now))) {
      this.#waiting.set(key, { project, askedAt: now });
      return false;
    }
    this.#waiting.delete(key);
    this.#held.set(key, project);
    return true;
  }

  /** Frees the build's slot, or its place in the queue (a build deleted or cancelled while it waited). */
  release(key: string): void {
    this.#waiting.delete(key);
    if (this.#held.delete(key)) this.#freed();
  }

  #hasRoom(project: string): boolean {
    const ofProject = [...this.#held.values()].filter((p) => p === project).length;
    return this.#held.size < this.#total && ofProject < this.#perProject;
  }

  /** No build that waited longer, and whose project has room, is still waiting. */
  #isTurnOf(key: string, now: number): boolean {
    for (const [waiter, { project, askedAt }] of this.#waiting) {
      if (waiter === key) return true;
      if (now - askedAt > WAITER_TTL_MS) this.#waiting.delete(waiter);
      else if (this.#hasRoom(project)) return false;
    }
    return true;
  }
}
