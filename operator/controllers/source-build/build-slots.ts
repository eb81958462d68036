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
 * that person's, never holding up anyone else's. A free slot goes, among the waiting builds with room, to the user
 * who was last given one longest ago (never first), then to that user's build that has waited longest, whichever is
 * asked about first: the wake-up after a release looks at every queued build in no particular order. By waiting time
 * alone, a person's backlog (queued before anyone else's push) won every slot that person had room for, so two
 * accounts with backlogs kept every other user's build queued until theirs drained (review-162 F8). Held in memory:
 * after a restart, the builds found running take their slots back first (`force`).
 */
export class BuildSlots {
  readonly #limits: BuildConcurrency;
  /** Build key → whom it is counted to. */
  readonly #held = new Map<string, BuildAccount>();
  /** Builds refused a slot, in the order they first waited: key → whom it is counted to, and when it last asked. */
  readonly #waiting = new Map<string, { account: BuildAccount; askedAt: number }>();
  /** User → the turn at which that user was last given a slot (a count of slots given). */
  readonly #servedAt = new Map<string, number>();
  #turns = 0;
  readonly #freed: () => void;
  readonly #now: () => number;

  /** `freed`: called on every release of a held slot (and of a waiter while one is free), so the builds waiting for one are looked at now, not at the next resync. */
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
    if (!force && !(this.#hasRoom(account) && this.#isTurnOf(key, account, now))) {
      this.#waiting.set(key, { account, askedAt: now });
      return false;
    }
    this.#waiting.delete(key);
    this.#held.set(key, account);
    this.#servedAt.set(account.user, ++this.#turns);
    return true;
  }

  /**
   * The builds still waiting, as the cache lists them when a slot frees: the others are forgotten, these count as asked
   * now. A build waits far longer than {@link WAITER_TTL_MS} between two frees (a build runs for minutes), and one
   * taken for gone there lost its place to whichever build the wake-up asked about first.
   */
  stillWaiting(keys: ReadonlySet<string>): void {
    const now = this.#now();
    for (const [key, waiter] of this.#waiting) {
      if (keys.has(key)) waiter.askedAt = now;
      else this.#waiting.delete(key);
    }
  }

  /**
   * Frees the build's slot, or its place in the queue (a build deleted or cancelled while it waited). A waiter going
   * while a slot is free wakes the others too: it may have held the turn a refused one waited behind (review-167 F3).
   */
  release(key: string): void {
    const waited = this.#waiting.delete(key);
    if (this.#held.delete(key) || (waited && this.#held.size < this.#limits.total)) this.#freed();
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

  /** No waiting build with room comes first: one of a user served longer ago, or of one served as long ago (the same user) that waited longer. */
  #isTurnOf(key: string, account: BuildAccount, now: number): boolean {
    const mine = this.#servedAt.get(account.user) ?? 0;
    let before = true; // the waiters met before `key` in the queue have waited longer
    for (const [waiter, { account: theirs, askedAt }] of this.#waiting) {
      if (waiter === key) {
        before = false;
        continue;
      }
      if (now - askedAt > WAITER_TTL_MS) {
        this.#waiting.delete(waiter);
        continue;
      }
      if (!this.#hasRoom(theirs)) continue;
      const served = this.#servedAt.get(theirs.user) ?? 0;
      if (served < mine || (served === mine && before)) return false;
    }
    return true;
  }
}
