/**
 * At most `permits` holders at once; the others wait, taking turns by key (arrival order within a key): one key with
 * many waiting (a tenant's many builds to prepare) is given the next permit no sooner than another key's first waiter.
 * Without a key, every waiter shares one turn: arrival order.
 */
export class Semaphore {
  #free: number;
  /** Each key's waiters, the keys in turn order: the first is served next, then goes to the back if it waits still. */
  readonly #waiting = new Map<string, (() => void)[]>();

  constructor(permits: number) {
    if (!Number.isInteger(permits) || permits < 1) throw new RangeError(`permits must be a positive integer, got ${permits}`);
    this.#free = permits;
  }

  /** Holders waiting for a permit, every key's. */
  get waiting(): number {
    let count = 0;
    for (const queue of this.#waiting.values()) count += queue.length;
    return count;
  }

  /** Resolves with the release function once a permit is held; call it exactly once. */
  async acquire(key = ''): Promise<() => void> {
    if (this.#free > 0) this.#free -= 1;
    else
      await new Promise<void>((resolve) => {
        const queue = this.#waiting.get(key);
        if (queue) queue.push(resolve);
        else this.#waiting.set(key, [resolve]);
      });
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#nextWaiter();
      if (next) next();
      else this.#free += 1;
    };
  }

  #nextWaiter(): (() => void) | undefined {
    const first = this.#waiting.entries().next();
    if (first.done) return undefined;
    const [key, queue] = first.value;
    const next = queue.shift();
    this.#waiting.delete(key);
    if (queue.length > 0) this.#waiting.set(key, queue);
    return next;
  }
}
