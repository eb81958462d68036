import { FifoSet } from '../collections/fifo-set.ts';
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
  /**
   * At most `limit` keys of one group (`of`: a key's group, such as its namespace) are handed out at once; the
   * group's other keys wait while other groups' go, so one tenant's slow reconciles cannot hold every worker.
   */
  perGroup?: { readonly of: (key: K) => string; readonly limit: number };
}

/**
 * Which keys are handed out first: `urgent` (someone waits on the key now: a request for an app a replica has not
 * acted on yet), then `changed` (a watch event, a timed or backed-off retry), then `backlog` (an informer's first
 * list and periodic resyncs). As controller-runtime's priority queue gives the initial list a low priority: a
 * process starting with 100,000 objects to go through acts on a change made meanwhile (a deploy) at once, not
 * after the whole list.
 */
export type Priority = 'urgent' | 'changed' | 'backlog';

const PRIORITIES: readonly Priority[] = ['urgent', 'changed', 'backlog'];
const RANK: Readonly<Record<Priority, number>> = { urgent: 0, changed: 1, backlog: 2 };
/** Every this many hand-outs, the backlog's oldest key goes first, so a steady stream of changes cannot starve it. */
const BACKLOG_TURN = 8;

/**
 * A keyed, de-duplicating work queue with client-go's semantics:
 *
 * - a key added several times before a worker takes it is handed out once (the "dirty" set);
 * - a key is never handed to two workers at once: re-added while processing, it waits and is queued again
 *   when {@link done} is called (the "processing" set);
 * - {@link addAfter} delays a key, keeping the earliest deadline when delayed twice;
 * - {@link addRateLimited} delays it by the per-key backoff, {@link forget} resets that backoff;
 * - keys wait in {@link Priority} order, first in first out within one (and the backlog gets every
 *   {@link BACKLOG_TURN}th turn); a key added again with a higher priority moves up, never down; a delayed or
 *   backed-off key comes back at the priority it was handed out with (as controller-runtime's priority queue).
 *
 * With `perGroup`, a key whose group has its limit handed out waits aside until one of them is done, and then goes
 * back to its lane (at its end).
 *
 * Unlike client-go's `ShutDown`, {@link shutDown} drops keys not yet handed out: a controller that stops is
 * giving up leadership, and the next leader relists everything anyway.
 */
/** Node's longest timer: a longer delay is taken as 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export class WorkQueue<K = string> {
  /** Per priority, the keys waiting there, in arrival order (a key moving up leaves at once). */
  readonly #lanes: Record<Priority, FifoSet<K>> = { urgent: new FifoSet(), changed: new FifoSet(), backlog: new FifoSet() };
  /** The keys waiting in a lane, and at which priority. */
  readonly #queued = new Map<K, Priority>();
  /** Keys added again while processing, and the priority they go back in with when done. */
  readonly #requeued = new Map<K, Priority>();
  readonly #dirty = new Set<K>();
  /** Keys handed out and not done, with the priority they were handed out with. */
  readonly #processing = new Map<K, Priority>();
  readonly #waiting = new Map<K, { readyAt: number; timer: NodeJS.Timeout; priority: Priority }>();
  #handedOut = 0;
  /** Per group, the keys handed out; and the keys waiting aside while it is at its limit, by priority, in arrival order. */
  readonly #groupsOut = new Map<string, number>();
  readonly #aside = new Map<string, Record<Priority, FifoSet<K>>>();
  /**
   * The group each key aside or handed out was counted in: a key's group may change meanwhile (a project's account
   * known once the Projects are listed), and its slot must be given back, or its place found, where it was taken.
   */
  readonly #countedIn = new Map<K, string>();
  readonly #perGroup: WorkQueueOptions<K>['perGroup'];
  readonly #getters: Array<(key: K | undefined) => void> = [];
  readonly #drained: Array<() => void> = [];
  readonly #limiter: RateLimiter<K>;
  readonly #metrics: QueueMetrics | undefined;
  #shuttingDown = false;

  constructor(options: WorkQueueOptions<K> = {}) {
    this.#limiter = options.rateLimiter ?? controllerRateLimiter<K>();
    this.#metrics = options.metrics;
    this.#perGroup = options.perGroup;
  }

  /** Queues `key` unless it is already waiting (then it only moves up to `priority`); ignored after shutdown. */
  add(key: K, priority: Priority = 'changed'): void {
    if (this.#shuttingDown) return;
    if (this.#dirty.has(key)) {
      const waiting = this.#queued.get(key);
      if (waiting !== undefined && RANK[priority] < RANK[waiting]) {
        if (this.#lanes[waiting].delete(key)) this.#push(key, priority);
        else this.#setAside(key, priority, waiting);
      }
      const again = this.#requeued.get(key);
      if (again !== undefined && RANK[priority] < RANK[again]) this.#requeued.set(key, priority);
      return;
    }
    this.#dirty.add(key);
    this.#metrics?.added();
    this.#metrics?.depth(this.#dirty.size);
    if (this.#processing.has(key)) {
      this.#requeued.set(key, priority); // done() queues it again
      return;
    }
    this.#push(key, priority);
  }

  /**
   * Queues `key` after `delayMs`; a key already delayed keeps the earlier of the two deadlines. It comes back at
   * `priority`, by default the one it was handed out with if it is being processed (a reconcile asking to be
   * run again), else `changed`.
   */
  addAfter(key: K, delayMs: number, priority: Priority = this.#processing.get(key) ?? 'changed'): void {
    if (this.#shuttingDown) return;
    if (delayMs <= 0) return this.add(key, priority);
    const readyAt = Date.now() + delayMs;
    const pending = this.#waiting.get(key);
    if (pending && pending.readyAt <= readyAt) return;
    if (pending) clearTimeout(pending.timer);
    this.#arm(key, readyAt, pending && RANK[pending.priority] < RANK[priority] ? pending.priority : priority);
  }

  /** Queues `key` at `readyAt`; a delay past Node's longest timer is waited for in steps (else it fires at once). */
  #arm(key: K, readyAt: number, priority: Priority): void {
    const timer = setTimeout(
      () => {
        if (Date.now() < readyAt) return this.#arm(key, readyAt, priority);
        this.#waiting.delete(key);
        this.add(key, priority);
      },
      Math.min(readyAt - Date.now(), MAX_TIMER_MS),
    );
    this.#waiting.set(key, { readyAt, timer, priority });
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
    const key = this.#take();
    if (key !== undefined) return Promise.resolve(key);
    if (this.#shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  /** Marks `key` processed; if it was re-added meanwhile it is queued again now. */
  done(key: K): void {
    if (this.#processing.delete(key) && this.#perGroup) {
      const group = this.#countedIn.get(key) ?? this.#perGroup.of(key);
      this.#countedIn.delete(key);
      this.#groupDone(group);
    }
    const again = this.#requeued.get(key);
    this.#requeued.delete(key);
    if (this.#dirty.has(key) && !this.#shuttingDown) this.#push(key, again ?? 'changed');
    if (this.#processing.size === 0 && this.#shuttingDown) {
      for (const resolve of this.#drained.splice(0)) resolve();
    }
  }

  /** Keys waiting to be handed out (excluding delayed ones). */
  len(): number {
    return this.#queued.size;
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
    for (const priority of PRIORITIES) this.#lanes[priority].clear();
    this.#aside.clear();
    for (const key of this.#countedIn.keys()) if (!this.#processing.has(key)) this.#countedIn.delete(key);
    this.#queued.clear();
    this.#requeued.clear();
    this.#dirty.clear();
    this.#metrics?.depth(0);
    for (const resolve of this.#getters.splice(0)) resolve(undefined);
    if (this.#processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  #push(key: K, priority: Priority): void {
    this.#lanes[priority].add(key);
    this.#queued.set(key, priority);
    this.#serveGetters();
  }

  #serveGetters(): void {
    while (this.#getters.length > 0) {
      const key = this.#take();
      if (key === undefined) return;
      this.#getters.shift()!(key);
    }
  }

  /** One of the group's keys is done: the first of its keys waiting aside, of the highest priority, goes back to its lane. */
  #groupDone(group: string): void {
    const out = (this.#groupsOut.get(group) ?? 1) - 1;
    if (out > 0) this.#groupsOut.set(group, out);
    else this.#groupsOut.delete(group);
    const aside = this.#aside.get(group);
    if (!aside) return;
    const priority = PRIORITIES.find((p) => aside[p].size > 0);
    const key = priority && aside[priority].shift();
    if (PRIORITIES.every((p) => aside[p].size === 0)) this.#aside.delete(group);
    if (key === undefined) return;
    this.#countedIn.delete(key);
    this.#push(key, priority!);
  }

  /** Keeps `key` aside at `priority` (from `from`, where it waited aside before, when it moves up). */
  #setAside(key: K, priority: Priority, from?: Priority): void {
    const group = (from !== undefined ? this.#countedIn.get(key) : undefined) ?? this.#perGroup!.of(key);
    this.#countedIn.set(key, group);
    let aside = this.#aside.get(group);
    if (!aside) {
      aside = { urgent: new FifoSet(), changed: new FifoSet(), backlog: new FifoSet() };
      this.#aside.set(group, aside);
    }
    if (from !== undefined) aside[from].delete(key);
    aside[priority].add(key);
    this.#queued.set(key, priority);
  }

  /**
   * The first waiting key of the highest priority (the backlog's, every {@link BACKLOG_TURN}th time) whose group
   * is under its limit; those found over it are set aside on the way. `undefined` when none waits in a lane.
   */
  #take(): K | undefined {
    for (;;) {
      const backlogTurn = (this.#handedOut + 1) % BACKLOG_TURN === 0 && this.#lanes.backlog.size > 0;
      const lane = backlogTurn ? this.#lanes.backlog : PRIORITIES.map((p) => this.#lanes[p]).find((l) => l.size > 0);
      const key = lane?.shift();
      if (key === undefined) return undefined;
      const group = this.#perGroup?.of(key);
      if (group !== undefined && (this.#groupsOut.get(group) ?? 0) >= this.#perGroup!.limit) {
        this.#setAside(key, this.#queued.get(key) ?? 'changed');
        continue;
      }
      if (group !== undefined) {
        this.#groupsOut.set(group, (this.#groupsOut.get(group) ?? 0) + 1);
        this.#countedIn.set(key, group);
      }
      this.#handedOut++;
      const priority = this.#queued.get(key) ?? 'changed';
      this.#queued.delete(key);
      this.#processing.set(key, priority);
      this.#dirty.delete(key);
      this.#metrics?.depth(this.#dirty.size);
      return key;
    }
  }
}
