// The wake-up machinery the events role's lanes share (the bridges' catch-ups, the push mark): wake-ups of a unit
// (a repository and a target; a repository) become runs, at most `concurrency` at a time, one at a time per unit
// and, when units have a group (a repository's owner), at most `perGroup` of a group's at once: a group whose runs
// are slow (a receiver that never answers) holds its share, and the runs of other groups take the rest, the queue
// passing over units whose group is full rather than waiting behind them. A bounded queue takes them (and a group's
// units at most `queueLimitPerGroup` of its places, so a slow group's pile leaves room for the others): a wake-up
// of a unit already waiting joins it, so a storm of them is one run (one more after the run under way, which may
// have read the repository before what the storm reports). Beyond the bound a notification is refused (the next
// sweep gets it) and a sweep or a retry waits for room. A unit whose run failed is retried after a backoff, and
// wake-ups meanwhile do not hammer it.
import { KeyedSlots } from '../../src/collections/keyed-slots.ts';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.ts';

export type Trigger = 'notify' | 'sweep' | 'retry';

/** Why a wake-up did not run: the queue is stopping, the unit is backing off, or the queue was full. */
export type Refusal =
  | { readonly outcome: 'abandoned' }
  | { readonly outcome: 'deferred'; readonly reason: string; readonly retryInMs: number }
  | { readonly outcome: 'not_queued'; readonly queueLimit: number };

export interface WakeQueueOptions<U, R> {
  /** Runs of units with one key never overlap. */
  readonly key: (unit: U) => string;
  /** The work; a failure it reports calls {@link WakeQueue.failed} so the unit is retried. Never throws. */
  readonly run: (unit: U, key: string, triggers: ReadonlySet<Trigger>) => Promise<R>;
  /** The answer of a wake-up that did not run. */
  readonly refused: (unit: U, refusal: Refusal) => R;
  /** Whether a run succeeded: a unit woken while its retry ran goes again only then (else the next retry does). */
  readonly succeeded: (result: R) => boolean;
  /** Told of every run's result. */
  readonly onDone?: (unit: U, result: R) => void;
  /** What a retry runs: the unit as it is now (a webhook changed meanwhile), or `undefined` when it is gone. */
  readonly retryUnit?: (unit: U) => U | undefined;
  readonly concurrency: number;
  /** The group a unit's runs count against (its repository's owner). Default: one group for all. */
  readonly group?: (unit: U) => string;
  /** Runs of one group at once at most. Default `concurrency`. */
  readonly perGroup?: number;
  readonly queueLimit: number;
  /**
   * Places of the queue one group's units may hold at most (default `queueLimit`): a group whose runs are slow
   * piles up waiting units, and other groups' notifications must still find room.
   */
  readonly queueLimitPerGroup?: number;
  readonly backoff?: BackoffPolicy | undefined;
}

interface Queued<U, R> {
  readonly unit: U;
  readonly group: string;
  readonly triggers: Set<Trigger>;
  readonly done: Promise<R>;
  resolve(result: R): void;
}

interface Backoff {
  readonly failures: number;
  readonly retryAt: number;
  readonly reason: string;
  readonly timer: NodeJS.Timeout;
}

export class WakeQueue<U, R> {
  readonly #options: WakeQueueOptions<U, R>;
  readonly #queued = new Map<string, Queued<U, R>>();
  /** Units waiting, per group. */
  readonly #queuedPerGroup = new Map<string, number>();
  readonly #running = new Map<string, Promise<void>>();
  /** The runs under way, per group: `concurrency` in all, `perGroup` of one group. */
  readonly #slots: KeyedSlots;
  readonly #backoff = new Map<string, Backoff>();
  /** Units woken while their retry ran: run again if it succeeds. */
  readonly #behind = new Set<string>();
  #roomWaiters: (() => void)[] = [];
  #stopped = false;

  constructor(options: WakeQueueOptions<U, R>) {
    this.#options = options;
    this.#slots = new KeyedSlots({ total: options.concurrency, perKey: options.perGroup ?? options.concurrency });
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** The runs under way, and their keys. */
  get running(): ReadonlyMap<string, Promise<void>> {
    return this.#running;
  }

  /** Wakes `unit`: joins its waiting run, or queues one. Never throws. */
  async wake(unit: U, trigger: Trigger): Promise<R> {
    const key = this.#options.key(unit);
    const group = this.#options.group?.(unit) ?? '';
    if (this.#stopped) return this.#options.refused(unit, { outcome: 'abandoned' });
    const backoff = this.#backoff.get(key);
    if (backoff && trigger !== 'retry') {
      // The retry under way may have read the repository before what this wake-up reports: if it succeeds, go again.
      if (this.#running.has(key)) this.#behind.add(key);
      return this.#options.refused(unit, { outcome: 'deferred', reason: backoff.reason, retryInMs: Math.max(0, backoff.retryAt - Date.now()) });
    }
    for (;;) {
      const queued = this.#queued.get(key);
      if (queued) {
        queued.triggers.add(trigger);
        return queued.done;
      }
      if (this.#hasRoom(group)) break;
      // Notifications never wait: the queue bounds what a storm can pile up. Sweeps and retries wait for room.
      if (trigger === 'notify') return this.#options.refused(unit, { outcome: 'not_queued', queueLimit: this.#options.queueLimit });
      await this.room(group);
      if (this.#stopped) return this.#options.refused(unit, { outcome: 'abandoned' });
    }
    let resolve: (result: R) => void = () => {};
    const done = new Promise<R>((r) => (resolve = r));
    this.#queued.set(key, { unit, group, triggers: new Set([trigger]), done, resolve });
    this.#queuedPerGroup.set(group, (this.#queuedPerGroup.get(group) ?? 0) + 1);
    this.#pump();
    return done;
  }

  /** Resolves once the queue has room for one more unit (of `group`), or it stopped (a sweep listing many units waits here). */
  async room(group?: string): Promise<void> {
    while (!this.#stopped && !this.#hasRoom(group)) await new Promise<void>((resolve) => this.#roomWaiters.push(resolve));
  }

  #hasRoom(group: string | undefined): boolean {
    if (this.#queued.size >= this.#options.queueLimit) return false;
    const perGroup = this.#options.queueLimitPerGroup;
    return group === undefined || perGroup === undefined || (this.#queuedPerGroup.get(group) ?? 0) < perGroup;
  }

  #dequeued(key: string, group: string): void {
    this.#queued.delete(key);
    const left = (this.#queuedPerGroup.get(group) ?? 1) - 1;
    if (left > 0) this.#queuedPerGroup.set(group, left);
    else this.#queuedPerGroup.delete(group);
    this.#wakeRoomWaiters();
  }

  /** Records a failure of `unit` and schedules its retry; answers the delay and the failures in a row. */
  failed(unit: U, reason: string): { delayMs: number; failures: number } {
    const key = this.#options.key(unit);
    const previous = this.#backoff.get(key);
    clearTimeout(previous?.timer);
    const failures = (previous?.failures ?? 0) + 1;
    const delayMs = backoffDelay(failures, this.#options.backoff ?? DEFAULT_BACKOFF);
    const timer = setTimeout(() => {
      const retried = this.#options.retryUnit ? this.#options.retryUnit(unit) : unit;
      if (retried !== undefined) void this.wake(retried, 'retry');
      else this.clearBackoff(unit);
    }, delayMs).unref();
    this.#backoff.set(key, { failures, retryAt: Date.now() + delayMs, reason, timer });
    return { delayMs, failures };
  }

  /** `unit` needs no retry (it succeeded, or is gone): its backoff ends. */
  clearBackoff(unit: U): void {
    const key = this.#options.key(unit);
    clearTimeout(this.#backoff.get(key)?.timer);
    this.#backoff.delete(key);
  }

  /** Takes no wake-up any more: what waits is answered `abandoned`, no retry comes. The runs under way go on. */
  stop(): void {
    this.#stopped = true;
    for (const b of this.#backoff.values()) clearTimeout(b.timer);
    for (const queued of this.#queued.values()) queued.resolve(this.#options.refused(queued.unit, { outcome: 'abandoned' }));
    this.#queued.clear();
    this.#queuedPerGroup.clear();
    this.#wakeRoomWaiters();
  }

  /** Starts queued runs while there is capacity, oldest first, never two of one key nor past a group's share. */
  #pump(): void {
    for (const [next, queued] of this.#queued) {
      if (this.#stopped) return;
      if (this.#running.has(next)) continue;
      const slot = this.#slots.take(queued.group);
      if (!('release' in slot)) {
        if (slot.refused === 'total') return;
        continue; // its group holds its share: a later unit of another group may run
      }
      this.#dequeued(next, queued.group);
      const run = this.#options
        .run(queued.unit, next, queued.triggers)
        .then((result) => {
          queued.resolve(result);
          this.#options.onDone?.(queued.unit, result);
          if (this.#behind.delete(next) && this.#options.succeeded(result)) void this.wake(queued.unit, 'retry');
        })
        .finally(() => {
          slot.release();
          this.#running.delete(next);
          this.#pump();
        });
      this.#running.set(next, run);
    }
  }

  #wakeRoomWaiters(): void {
    for (const resolve of this.#roomWaiters.splice(0)) resolve();
  }
}
