import { controllerRateLimiter, type RateLimiter } from './rate-limiter.ts';

/** Hooks for `workqueue_*` metrics; the queue itself knows nothing about Prometheus. */
export interface QueueMetrics {
  /** A key entered the queue (was not already waiting). */
  added(): void;
  /** Number of keys waiting to be handed out (client-go's "dirty" set). */
  depth(n: number): void;
  /** A key was re-added through the rate limiter. */
  retried(): void;
}

export interface WorkQueueOptions<K> {
  rateLimiter?: RateLimiter<K>;
  metrics?: QueueMetrics;
}

/**
 * A keyed, de-duplicating work queue with client-go's semantics:
 *
 * - a key added several times before a worker takes it is handed out once (the "dirty" set);
 * - a key is never handed to two workers at once: re-added while processing, it waits and is queued again
 *   when {@link done} is called (the "processing" set);
 * - {@link addAfter} delays a key, keeping the earliest deadline when delayed twice;
 * - {@link addRateLimited} delays it by the per-key backoff, {@link forget} resets that backoff.
 *
 * Unlike client-go's `ShutDown`, {@link shutDown} drops keys not yet handed out: a controller that stops is
 * giving up leadership, and the next leader relists everything anyway.
 */
/** Node's longest timer: a longer delay is taken as 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export class WorkQueue<K = string> {
  readonly #queue: K[] = [];
  readonly #dirty = new Set<K>();
  readonly #processing = new Set<K>();
  readonly #waiting = new Map<K, { readyAt: number; timer: NodeJS.Timeout }>();
  readonly #getters: Array<(key: K | undefined) => void> = [];
  readonly #drained: Array<() => void> = [];
  readonly #limiter: RateLimiter<K>;
  readonly #metrics: QueueMetrics | undefined;
  #shuttingDown = false;

  constructor(options: WorkQueueOptions<K> = {}) {
    this.#limiter = options.rateLimiter ?? controllerRateLimiter<K>();
    this.#metrics = options.metrics;
  }

  /** Queues `key` unless it is already waiting; ignored after shutdown. */
  add(key: K): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#dirty.add(key);
    this.#metrics?.added();
    this.#metrics?.depth(this.#dirty.size);
    if (this.#processing.has(key)) return; // done() queues it again
    this.#push(key);
  }

  /** Queues `key` after `delayMs`; a key already delayed keeps the earlier of the two deadlines. */
  addAfter(key: K, delayMs: number): void {
    if (this.#shuttingDown) return;
    if (delayMs <= 0) return this.add(key);
    const readyAt = Date.now() + delayMs;
    const pending = this.#waiting.get(key);
    if (pending && pending.readyAt <= readyAt) return;
    if (pending) clearTimeout(pending.timer);
    this.#arm(key, readyAt);
  }

  /** Queues `key` at `readyAt`; a delay past Node's longest timer is waited for in steps (else it fires at once). */
  #arm(key: K, readyAt: number): void {
    const timer = setTimeout(
      () => {
        if (Date.now() < readyAt) return this.#arm(key, readyAt);
        this.#waiting.delete(key);
        this.add(key);
      },
      Math.min(readyAt - Date.now(), MAX_TIMER_MS),
    );
    this.#waiting.set(key, { readyAt, timer });
  }

  /** Queues `key` after its exponential backoff, and counts one more failure for it. */
  addRateLimited(key: K): void {
    if (this.#shuttingDown) return;
    this.#metrics?.retried();
    this.addAfter(key, this.#limiter.when(key));
  }

  /** Resets the backoff of `key`; call it after a successful run. */
  forget(key: K): void {
    this.#limiter.forget(key);
  }

  numRequeues(key: K): number {
    return this.#limiter.numRequeues(key);
  }

  /**
   * The next key to process, waiting until there is one. Resolves `undefined` once the queue is shut down.
   * The caller owns the key until it calls {@link done}.
   */
  get(): Promise<K | undefined> {
    if (this.#queue.length > 0) return Promise.resolve(this.#take());
    if (this.#shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  /** Marks `key` processed; if it was re-added meanwhile it is queued again now. */
  done(key: K): void {
    this.#processing.delete(key);
    if (this.#dirty.has(key) && !this.#shuttingDown) this.#push(key);
    if (this.#processing.size === 0 && this.#shuttingDown) {
      for (const resolve of this.#drained.splice(0)) resolve();
    }
  }

  /** Keys waiting to be handed out (excluding delayed ones). */
  len(): number {
    return this.#queue.length;
  }

  /** Keys currently handed out and not yet done. */
  processing(): number {
    return this.#processing.size;
  }

  isShuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /**
   * Stops handing out keys and accepting new ones, and resolves once every key already handed out is done.
   * Waiting {@link get} calls resolve `undefined`.
   */
  shutDown(): Promise<void> {
    this.#shuttingDown = true;
    for (const { timer } of this.#waiting.values()) clearTimeout(timer);
    this.#waiting.clear();
    this.#queue.length = 0;
    this.#dirty.clear();
    this.#metrics?.depth(0);
    for (const resolve of this.#getters.splice(0)) resolve(undefined);
    if (this.#processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  #push(key: K): void {
    this.#queue.push(key);
    const getter = this.#getters.shift();
    if (getter) getter(this.#take());
  }

  #take(): K {
    const key = this.#queue.shift() as K;
    this.#processing.add(key);
    this.#dirty.delete(key);
    this.#metrics?.depth(this.#dirty.size);
    return key;
  }
}
