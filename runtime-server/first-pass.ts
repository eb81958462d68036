/** How long a new replica waits at most for the apps of its first list before its reports count anyway. */
export const FIRST_PASS_WAIT_MS = 2 * 60 * 1000;

/**
 * The apps of the informer's first list that have not settled yet (served, or refused for good). The replica
 * takes traffic meanwhile (a request for one of them has it deployed next and waits on it), and its reports
 * count once all have settled, so the operator never reads an app not reached yet as not served; but not later
 * than `waitMs` after the list: one app whose deploy keeps failing (its artifact unreadable, say) must not keep
 * every new replica's reports, and so every app's rollout across replicas, from counting. The apps left then are
 * served as soon as they settle, like any change.
 */
export class FirstPass {
  readonly #pending: Set<string>;
  /** Requests waiting on pending apps, each woken when one of the apps it waits on settles. */
  readonly #waiting = new Map<string, Set<() => void>>();
  /** Pending apps a request has had moved up already (once is enough: the queue keeps it there). */
  readonly #promoted = new Set<string>();
  readonly #deadlineMs: number;
  readonly #now: () => number;

  constructor(keys: Iterable<string>, options: { waitMs?: number; now?: () => number } = {}) {
    this.#pending = new Set(keys);
    this.#now = options.now ?? Date.now;
    this.#deadlineMs = this.#now() + (options.waitMs ?? FIRST_PASS_WAIT_MS);
  }

  settled(key: string): void {
    this.#pending.delete(key);
    this.#promoted.delete(key);
    for (const wake of this.#waiting.get(key) ?? []) wake();
    this.#waiting.delete(key);
  }

  /** Whether `key` is an app of the first list not settled yet. */
  has(key: string): boolean {
    return this.#pending.has(key);
  }

  /** True the first time it is asked for a pending `key`: whether to move it up now. */
  promote(key: string): boolean {
    if (!this.#pending.has(key) || this.#promoted.has(key)) return false;
    this.#promoted.add(key);
    return true;
  }

  /**
   * Resolves `true` once one app of `keys` has settled (at once when one is not pending), `false` when `waitMs`
   * passed first. A waiter that gives up leaves nothing behind.
   */
  whenSettled(keys: readonly string[], waitMs: number): Promise<boolean> {
    if (keys.some((key) => !this.#pending.has(key))) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (settled: boolean) => {
        clearTimeout(timer);
        for (const key of keys) this.#waiting.get(key)?.delete(wake);
        resolve(settled);
      };
      const wake = () => finish(true);
      const timer = setTimeout(() => finish(false), waitMs);
      for (const key of keys) {
        const waiters = this.#waiting.get(key) ?? new Set<() => void>();
        waiters.add(wake);
        this.#waiting.set(key, waiters);
      }
    });
  }

  /** Every app settled, or the wait is over. */
  done(): boolean {
    return this.#pending.size === 0 || this.#now() >= this.#deadlineMs;
  }

  /** How many apps are not settled yet. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** The apps not settled yet (for the log once the wait is over). */
  get pending(): readonly string[] {
    return [...this.#pending];
  }
}
