/**
 * Who follows each app's logs, and for how long after the last one left its logs are still collected.
 * Collecting costs every request of the app (a tail worker invocation), so it runs only while someone follows
 * and for `lingerMs` after, as `wrangler tail` does: a client that reconnects does not reload the isolate.
 */
export class LogFollowers {
  /** App key → followers; 0 while lingering after the last one left. */
  readonly #count = new Map<string, number>();
  readonly #lingers = new Map<string, NodeJS.Timeout>();
  readonly #lingerMs: number;
  readonly #ended: (key: string) => void;

  /** `ended` is called when an app's logs stop being collected: its linger ran out with no follower back. */
  constructor(lingerMs: number, ended: (key: string) => void) {
    this.#lingerMs = lingerMs;
    this.#ended = ended;
  }

  /** Logs of `key` are collected: someone follows them, or did within the linger. */
  collecting(key: string): boolean {
    return this.#count.has(key);
  }

  /**
   * Adds a follower of `key`. `first`: nobody else follows now (the app must report to the tail worker, if it
   * does not already); `leave` (idempotent) starts the linger once the last follower has left.
   */
  join(key: string): { first: boolean; leave: () => void } {
    clearTimeout(this.#lingers.get(key));
    this.#lingers.delete(key);
    const count = (this.#count.get(key) ?? 0) + 1;
    this.#count.set(key, count);
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      const remaining = (this.#count.get(key) ?? 1) - 1;
      this.#count.set(key, Math.max(remaining, 0));
      if (remaining > 0) return;
      const timer = setTimeout(() => {
        this.#lingers.delete(key);
        if ((this.#count.get(key) ?? 0) > 0) return;
        this.#count.delete(key);
        this.#ended(key);
      }, this.#lingerMs);
      timer.unref();
      this.#lingers.set(key, timer);
    };
    return { first: count === 1, leave };
  }

  /** Stops every linger (the engine stops): nothing is called after. */
  stop(): void {
    for (const timer of this.#lingers.values()) clearTimeout(timer);
    this.#lingers.clear();
  }
}
