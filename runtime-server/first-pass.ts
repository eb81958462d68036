/** How long a new replica waits at most for the apps of its first list before it reports ready anyway. */
export const FIRST_PASS_WAIT_MS = 2 * 60 * 1000;

/**
 * The apps of the informer's first list that have not settled yet (served, or refused for good). A replica
 * is ready once all have, so that behind a load balancer it never answers 404 for an app it is still
 * loading; but not later than `waitMs` after the list: one app whose deploy keeps failing (its artifact
 * unreadable, say) must not keep every new replica, and so every other app, out of service. The apps left
 * then are served as soon as they settle, like any change.
 */
export class FirstPass {
  readonly #pending: Set<string>;
  /** One promise per pending app someone waits on (a request for it), resolved when it settles. */
  readonly #waiting = new Map<string, { settled: Promise<void>; resolve: () => void }>();
  readonly #deadlineMs: number;
  readonly #now: () => number;

  constructor(keys: Iterable<string>, options: { waitMs?: number; now?: () => number } = {}) {
    this.#pending = new Set(keys);
    this.#now = options.now ?? Date.now;
    this.#deadlineMs = this.#now() + (options.waitMs ?? FIRST_PASS_WAIT_MS);
  }

  settled(key: string): void {
    this.#pending.delete(key);
    this.#waiting.get(key)?.resolve();
    this.#waiting.delete(key);
  }

  /** Whether `key` is an app of the first list not settled yet. */
  has(key: string): boolean {
    return this.#pending.has(key);
  }

  /** Resolves once every app of `keys` has settled (at once for those not pending); `false` when `waitMs` passed first. */
  async whenSettled(keys: readonly string[], waitMs: number): Promise<boolean> {
    const all = Promise.all(keys.filter((key) => this.#pending.has(key)).map((key) => this.#settledPromise(key)));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), waitMs)));
    try {
      return await Promise.race([all.then(() => true as const), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  #settledPromise(key: string): Promise<void> {
    const existing = this.#waiting.get(key);
    if (existing) return existing.settled;
    let resolve = () => {};
    const settled = new Promise<void>((r) => (resolve = r));
    this.#waiting.set(key, { settled, resolve });
    return settled;
  }

  /** Every app settled, or the wait is over. */
  done(): boolean {
    return this.#pending.size === 0 || this.#now() >= this.#deadlineMs;
  }

  /** The apps not settled yet (for the log once the wait is over). */
  get pending(): readonly string[] {
    return [...this.#pending];
  }
}
