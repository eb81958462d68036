/**
 * Callers waiting for the engine to converge, by app key. Each waits for a version of the desired state;
 * a convergence pass that started from version `upTo` settles every waiter at or below it, so a deploy
 * that arrives mid-pass waits for the next pass.
 */
export class Waiters<T> {
  readonly #waiting = new Map<string, Array<{ version: number; resolve: (value: T) => void; reject: (err: unknown) => void }>>();

  add(key: string, version: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const list = this.#waiting.get(key) ?? [];
      list.push({ version, resolve, reject });
      this.#waiting.set(key, list);
    });
  }

  keys(): string[] {
    return [...this.#waiting.keys()];
  }

  /** Settles the waiters of `key` at or below `upTo`: rejected with `error` if given, else resolved with `value()`. */
  settle(key: string, upTo: number, outcome: { error: unknown } | { value: () => T }): void {
    const list = this.#waiting.get(key) ?? [];
    const rest = list.filter((w) => w.version > upTo);
    if (rest.length > 0) this.#waiting.set(key, rest);
    else this.#waiting.delete(key);
    for (const waiter of list) {
      if (waiter.version > upTo) continue;
      if ('error' in outcome) waiter.reject(outcome.error);
      else waiter.resolve(outcome.value());
    }
  }

  rejectAll(error: unknown): void {
    for (const key of this.keys()) this.settle(key, Infinity, { error });
  }
}
