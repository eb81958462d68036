/** What the checks need of the engine. */
export interface BuildCheckHost {
  /** Whether `key`'s deployment is still untried here, with a fallback to serve if it fails. */
  untried(key: string): boolean;
  /**
   * Whether `key`'s deployment failed here for a reason that may pass (no room on disk, a bucket that did not
   * answer), not because the build is refused: it is worth trying again.
   */
  failedForNow(key: string): boolean;
  /** Prepares `key` as its first request would; resolves either way (the preparation records a failure). */
  check(key: string): Promise<void>;
  /** Resolves once no request waits for a preparation. */
  whenIdle(): Promise<void>;
}

export interface BuildCheckOptions {
  /** How long a check waits for requests' preparations before it runs anyway (default 30 s). */
  readonly idleWaitMs?: number;
  /** The wait before a check that failed for now runs again, doubled each time it fails again (default 30 s). */
  readonly retryMs?: number;
  /** The longest wait between tries (default 10 min). */
  readonly maxRetryMs?: number;
}

/**
 * The new builds a replica serving on demand was given with a fallback (a replica started since they were deployed:
 * `recorded-fallback.ts`), tried in the background so that whether they load here is known without a request: until
 * then the replica reports the app rolling out, not served, lest the operator record a build that cannot load as
 * the release every replica served. One at a time, and while no request waits for a preparation (for at most
 * `idleWaitMs`, so a steady stream of first requests slows checks but cannot stop them): a tenant with many apps
 * whose newest builds were refused delays no one's first request, only its own checks. A check that failed for a
 * reason that may pass is tried again later, with backoff, until its build is served or refused.
 */
export class BuildChecks {
  readonly #host: BuildCheckHost;
  readonly #idleWaitMs: number;
  readonly #retryMs: number;
  readonly #maxRetryMs: number;
  /** In the order deployed; a key added again goes last. */
  readonly #queue = new Set<string>();
  /** Checks that failed for now: how many times, and the timer that queues the next. */
  readonly #retries = new Map<string, { failures: number; timer?: NodeJS.Timeout }>();
  #running = false;
  #stopped = false;

  constructor(host: BuildCheckHost, options: BuildCheckOptions = {}) {
    this.#host = host;
    this.#idleWaitMs = options.idleWaitMs ?? 30_000;
    this.#retryMs = options.retryMs ?? 30_000;
    this.#maxRetryMs = options.maxRetryMs ?? 600_000;
  }

  /** `key` was deployed anew (or let go untried): checked in its turn, its earlier failures forgotten. */
  add(key: string): void {
    this.#clearRetry(key);
    this.#enqueue(key);
  }

  /** `key`'s deployment failed for now outside a check (its deploy's own pass): checked after the backoff, not at once. */
  later(key: string): void {
    if (!this.#stopped && !this.#queue.has(key)) this.#retryLater(key);
  }

  /** `key` was removed. */
  forget(key: string): void {
    this.#queue.delete(key);
    this.#clearRetry(key);
  }

  /** Checks queued, and those waiting to be tried again. */
  get pending(): number {
    let waiting = 0;
    for (const [key, retry] of this.#retries) if (retry.timer && !this.#queue.has(key)) waiting += 1;
    return this.#queue.size + waiting;
  }

  stop(): void {
    this.#stopped = true;
    this.#queue.clear();
    for (const retry of this.#retries.values()) clearTimeout(retry.timer);
    this.#retries.clear();
  }

  #enqueue(key: string): void {
    if (this.#stopped) return;
    this.#queue.delete(key);
    this.#queue.add(key);
    void this.#drain();
  }

  async #drain(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      // A Set's iteration sees the keys added while it runs.
      for (const key of this.#queue) {
        await this.#idleOrBound();
        if (this.#stopped) return;
        // Removed, deployed anew, or prepared by a request meanwhile: nothing left to find out.
        if (!this.#queue.delete(key) || !(this.#host.untried(key) || this.#host.failedForNow(key))) {
          this.#clearRetry(key);
          continue;
        }
        await this.#host.check(key);
        if (this.#stopped) return;
        if (this.#host.failedForNow(key)) this.#retryLater(key);
        else this.#clearRetry(key);
      }
    } finally {
      this.#running = false;
    }
  }

  async #idleOrBound(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#idleWaitMs)));
    await Promise.race([this.#host.whenIdle(), bound]);
    clearTimeout(timer);
  }

  #retryLater(key: string): void {
    const retry = this.#retries.get(key) ?? { failures: 0 };
    retry.failures += 1;
    clearTimeout(retry.timer);
    retry.timer = setTimeout(
      () => {
        delete retry.timer;
        this.#enqueue(key);
      },
      Math.min(this.#maxRetryMs, this.#retryMs * 2 ** (retry.failures - 1)),
    );
    retry.timer.unref();
    this.#retries.set(key, retry);
  }

  #clearRetry(key: string): void {
    clearTimeout(this.#retries.get(key)?.timer);
    this.#retries.delete(key);
  }
}
