/** A waiting build not asked about again for this long is taken for gone (deleted without a word). */
const WAITER_TTL_MS = 60_000;

/** Builds running at once: in all, per project, and per user (over every project the user created). */
export interface BuildConcurrency {
  readonly total: number;
  readonly perProject: number;
  readonly perUser: number;
}

/** Who a build is counted to: its project, and the user who created that project (the project itself when none is known). */
export interface BuildAccount {
  readonly project: string;
  readonly user: string;
}

/**
 * Which builds may run now: at most `total` at once, `perProject` per project and `perUser` over the projects one
 * user created, so one project's burst of pushes waits behind its own builds, and one person's many projects behind
 * that person's, never holding up anyone else's. A free slot goes to the build that has waited longest among those
 * with room, whichever is asked about first: the wake-up after a release looks at every queued build in no
 * particular order. Held in memory: after a restart, the builds found running take their slots back first (`force`).
 */
export class BuildSlots {
  readonly #limits: BuildConcurrency;
  /** Build key → whom it is counted to. */
  readonly #held = new Map<string, BuildAccount>();
  /** Builds refused a slot, in the order they first waited: key → whom it is counted to, and when it last asked. */
  readonly #waiting = new Map<string, { account: BuildAccount; askedAt: number }>();
  readonly #freed: () => void;
  readonly #now: () => number;

  /** `freed`: called on every release of a held slot, so the builds waiting for one are looked at now, not at the next resync. */
  constructor(limits: BuildConcurrency, freed: () => void = () => {}, now: () => number = Date.now) {
    this.#limits = limits;
    this.#freed = freed;
    this.#now = now;
  }

  holds(key: string): boolean {
    return this.#held.has(key);
  }

  /** Takes a slot for the build `key` when one is free and it is its turn (or `force`); answers whether it holds one. */
  take(key: string, account: BuildAccount, force = false): boolean {
    if (this.#held.has(key)) return true;
    const now = this.#now();
    if (!force && !(this.#hasRoom(account) && this.#isTurnOf(key, now))) {
      this.#waiting.set(key, { account, askedAt: now });
      return false;
    }
    this.#waiting.delete(key);
    this.#held.set(key, account);
    return true;
  }

  /** Frees the build's slot, or its place in the queue (a build deleted or cancelled while it waited). */
  release(key: string): void {
    this.#waiting.delete(key);
    if (this.#held.delete(key)) this.#freed();
  }

  #hasRoom(account: BuildAccount): boolean {
    if (this.#held.size >= this.#limits.total) return false;
    let ofProject = 0;
    let ofUser = 0;
    for (const held of this.#held.values()) {
      if (held.project === account.project) ofProject += 1;
      if (held.user === account.user) ofUser += 1;
    }
    return ofProject < this.#limits.perProject && ofUser < this.#limits.perUser;
  }

  /** No build that waited longer, and has room, is still waiting. */
  #isTurnOf(key: string, now: number): boolean {
    for (const [waiter, { account, askedAt }] of this.#waiting) {
      if (waiter === key) return true;
      if (now - askedAt > WAITER_TTL_MS) this.#waiting.delete(waiter);
      else if (this.#hasRoom(account)) return false;
    }
    return true;
  }
}
