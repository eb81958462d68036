// Work per key, one run at a time: a key scheduled while its run waits to start joins that run; scheduled while it
// runs, it runs once more afterwards. Level-based work (resolve a webhook, write its status) needs nothing else.
export class SerialRuns {
  readonly #running = new Map<string, Promise<void>>();
  readonly #due = new Set<string>();
  readonly #onError: (err: unknown, key: string) => void;

  constructor(onError: (err: unknown, key: string) => void) {
    this.#onError = onError;
  }

  schedule(key: string, work: (key: string) => Promise<void>): void {
    if (this.#due.has(key)) return;
    this.#due.add(key);
    const previous = this.#running.get(key) ?? Promise.resolve();
    const next = previous
      .then(() => {
        this.#due.delete(key);
        return work(key);
      })
      .catch((err: unknown) => this.#onError(err, key))
      .finally(() => {
        if (this.#running.get(key) === next) this.#running.delete(key);
      });
    this.#running.set(key, next);
  }

  /** Resolves once nothing runs or waits. */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running.values());
  }
}
