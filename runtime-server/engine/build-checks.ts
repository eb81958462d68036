/** What the checks need of the engine. */
export interface BuildCheckHost {
  /** Whether `key`'s deployment is still untried here, with a fallback to serve if it fails. */
  untried(key: string): boolean;
  /** Prepares `key` as its first request would; resolves either way (the preparation records a failure). */
  check(key: string): Promise<void>;
  /** Resolves once no request waits for a preparation. */
  whenIdle(): Promise<void>;
}

/**
 * The new builds a replica serving on demand was given with a fallback (a replica started since they were deployed:
 * `recorded-fallback.ts`), tried in the background so that whether they load here is known without a request: until
 * then the replica reports the app rolling out, not served, lest the operator record a build that cannot load as
 * the release every replica served. One at a time, and only while no request waits for a preparation: a tenant with
 * many apps whose newest builds were refused delays no one's first request, only its own checks.
 */
export class BuildChecks {
  readonly #host: BuildCheckHost;
  /** In the order deployed; a key added again goes last. */
  readonly #queue = new Set<string>();
  #running = false;
  #stopped = false;

  constructor(host: BuildCheckHost) {
    this.#host = host;
  }

  add(key: string): void {
    if (this.#stopped) return;
    this.#queue.delete(key);
    this.#queue.add(key);
    void this.#drain();
  }

  /** `key` was removed. */
  forget(key: string): void {
    this.#queue.delete(key);
  }

  get pending(): number {
    return this.#queue.size;
  }

  stop(): void {
    this.#stopped = true;
    this.#queue.clear();
  }

  async #drain(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      // A Set's iteration sees the keys added while it runs.
      for (const key of this.#queue) {
        await this.#host.whenIdle();
        if (this.#stopped) return;
        // Removed, deployed anew, or prepared by a request meanwhile: nothing left to find out.
        if (!this.#queue.delete(key) || !this.#host.untried(key)) continue;
        await this.#host.check(key);
      }
    } finally {
      this.#running = false;
    }
  }
}
