/**
 * A per-tenant mutex held by a stream. Why: the engine is synchronous and runs with busy_timeout 0, so two
 * connections of one tenant that both write would fail with SQLITE_BUSY instead of waiting (waiting inside SQLite
 * would block the event loop). A stream takes its tenant's lock for each pipeline request and keeps it while its
 * connection is inside a transaction, so an interactive transaction spanning requests excludes other streams of
 * that tenant until it commits, rolls back or its stream expires. Other tenants are never affected.
 */
export class TenantLock {
  #holder: object | null = null;
  readonly #waiters: { owner: object; grant: () => void }[] = [];

  /** The current holder, if any. */
  get holder(): object | null {
    return this.#holder;
  }

  /**
   * Resolves once `owner` holds the lock (at once if it already does). Rejects with `onTimeout()`'s error after
   * `timeoutMs` without it (`Infinity`: never). `first` puts the owner ahead of every waiter (an in-place restore, which must not wait
   * behind requests that would only run on data it is about to replace).
   */
  acquire(owner: object, timeoutMs: number, onTimeout: () => Error, options: { first?: boolean } = {}): Promise<void> {
    if (this.#holder === null || this.#holder === owner) {
      this.#holder = owner;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        owner,
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer =
        timeoutMs === Infinity
          ? undefined
          : setTimeout(() => {
              this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
              reject(onTimeout());
            }, timeoutMs);
      if (options.first) this.#waiters.unshift(waiter);
      else this.#waiters.push(waiter);
    });
  }

  /** Releases the lock if `owner` holds it, handing it to the longest waiter. */
  release(owner: object): void {
    if (this.#holder !== owner) return;
    const next = this.#waiters.shift();
    this.#holder = next?.owner ?? null;
    next?.grant();
  }

  /** True when nobody holds or waits for the lock, so its entry can be dropped. */
  get idle(): boolean {
    return this.#holder === null && this.#waiters.length === 0;
  }
}
