/**
 * Bounds the requests an app serves at once. A request over the limit waits in a small FIFO queue
 * (at most `queueDepth` requests, each for at most `queueTimeoutMs`); when the queue is full or the
 * wait times out, the router answers 503 with `Retry-After`. A short queue absorbs bursts without
 * letting a slow app pile up unbounded work in the proxy.
 */
export class ConcurrencyLimiter {
  #limit: number;
  #queueDepth: number;
  readonly #queueTimeoutMs: number;
  #active = 0;
  readonly #queue: Array<(granted: boolean) => void> = [];

  constructor(limit: number, queueDepth: number, queueTimeoutMs: number) {
    this.#limit = limit;
    this.#queueDepth = queueDepth;
    this.#queueTimeoutMs = queueTimeoutMs;
  }

  get active(): number {
    return this.#active;
  }

  get queued(): number {
    return this.#queue.length;
  }

  get limit(): number {
    return this.#limit;
  }

  /** Changes the bounds; a raised limit admits queued requests at once. */
  setLimits(limit: number, queueDepth: number): void {
    this.#limit = limit;
    this.#queueDepth = queueDepth;
    this.#drain();
  }

  /** Takes a slot if one is free, without waiting. The hot path: no promise, no allocation. */
  tryAcquire(): boolean {
    if (this.#active >= this.#limit || this.#queue.length > 0) return false;
    this.#active += 1;
    return true;
  }

  /**
   * Waits for a slot: resolves `true` holding one, or `false` when the queue is full, the wait timed out
   * or `signal` aborted (the client went away).
   */
  wait(signal?: AbortSignal): Promise<boolean> {
    if (this.tryAcquire()) return Promise.resolve(true);
    if (this.#queue.length >= this.#queueDepth || signal?.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const settle = (granted: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(granted);
      };
      const leave = () => {
        const at = this.#queue.indexOf(settle);
        if (at !== -1) this.#queue.splice(at, 1);
        settle(false);
      };
      const onAbort = () => leave();
      const timer = setTimeout(leave, this.#queueTimeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(settle);
    });
  }

  /** Returns a slot taken by `tryAcquire` or a granted `wait`. */
  release(): void {
    this.#active -= 1;
    this.#drain();
  }

  #drain(): void {
    while (this.#active < this.#limit && this.#queue.length > 0) {
      const next = this.#queue.shift();
      this.#active += 1;
      next?.(true);
    }
  }
}
