import type { Refusal, Route, SettledRoute } from './entry-proxy.ts';
import type { Shard } from './shard.ts';
import type { UpstreamPool } from './upstream.ts';

/** A request its shard cannot take yet: its project's probation turn is another's, or the shard is restarting. */
export interface Held {
  readonly shard: number;
  readonly key: string;
  readonly why: 'turn' | 'restart';
  /** Its answer if it is still held when its wait ends. */
  readonly refusal: Refusal;
}

/** Where a request goes now, or that it is held. */
export type Placement = Route | { readonly held: Held };

export interface HeldRequestsOptions {
  /** How long a held request waits before it is answered its refusal. */
  readonly waitMs: number;
  /** How long a request waits for a probation turn before the project holding it has its requests cut short. */
  readonly turnMs: number;
  /** How long after a project's last answer its turn still counts as taken (`UpstreamPool.busy`). */
  readonly graceMs: number;
  /** Held requests of one project at once; past it, a request is answered its refusal at once. */
  readonly maxPerProject: number;
  shard(index: number): Shard | undefined;
  turnHolder(shard: number): string | undefined;
  /** Counts a request of `project` held for `shard`'s turn in (`+1`) or out (`-1`): who waits makes the holder give way. */
  waiting(shard: number, project: string, delta: 1 | -1): void;
  /** Calls `listener` once when `shard`'s turn next changes hands; returns what unsubscribes it. */
  onHandover(shard: number, listener: () => void): () => void;
  /** Cuts short the requests of the project holding `shard`'s turn sent before `sentBefore`, for a request that waited `waitedMs`. */
  endTurn(shard: number, pool: UpstreamPool, waitedMs: number, sentBefore: number): void;
  /** A request was answered a refusal (counted per app). */
  refused(key: string): void;
}

/** While the holder of a turn has nothing in flight, its turn passes at the workerd's next sign of life; this is how often the wait looks again meanwhile. */
const IDLE_HOLDER_RECHECK_MS = 100;

/**
 * Requests held at the entry point instead of refused: while the projects on probation take turns on a shard
 * (`probation.ts`), a request of one waits for its project's turn, and while a shard's workerd is started again
 * after a stop, its requests wait for it, each for a bounded time, then answered 503 as before. So a tenant on
 * probation beside a looping one sees its requests delayed by the moment the looper takes to be stopped, not
 * refused; and a project that keeps the turn with requests that never end has those cut short once another has
 * waited `turnMs` for it. A held request whose client leaves is let go at once.
 */
export class HeldRequests {
  readonly #o: HeldRequestsOptions;
  /** Project → its requests held now. */
  readonly #held = new Map<string, number>();

  constructor(options: HeldRequestsOptions) {
    this.#o = options;
  }

  /** Requests held now (all projects). */
  get size(): number {
    let n = 0;
    for (const count of this.#held.values()) n += count;
    return n;
  }

  /**
   * Holds the request until `place` routes it (asked again whenever its turn or its shard may have changed) or its
   * wait ends; answers its refusal at once when its project has too many held already. `cancel` lets it go (its
   * client left): it settles with its refusal, not counted, and cuts nobody short on its behalf.
   */
  hold(first: Held, place: () => Placement): Route {
    const project = first.key.slice(0, first.key.indexOf('/'));
    const held = this.#held.get(project) ?? 0;
    if (held >= this.#o.maxPerProject) {
      this.#o.refused(first.key);
      return { refusal: first.refusal };
    }
    this.#held.set(project, held + 1);
    const wait = new Wait();
    const pending = this.#wait(first, place, wait, project).finally(() => {
      const left = (this.#held.get(project) ?? 1) - 1;
      if (left > 0) this.#held.set(project, left);
      else this.#held.delete(project);
    });
    return { pending, cancel: () => wait.cancel() };
  }

  async #wait(first: Held, place: () => Placement, wait: Wait, project: string): Promise<SettledRoute> {
    const until = Date.now() + this.#o.waitMs;
    let held = first;
    /** Since when it has waited for a turn (a wait for a restart does not count toward the turn bound). */
    let turnSince: number | undefined;
    let cut = false;
    /** The shard whose turn it is counted as waiting for, while it is. */
    let counted: number | undefined;
    const count = (shard: number | undefined) => {
      if (counted === shard) return;
      if (counted !== undefined) this.#o.waiting(counted, project, -1);
      if (shard !== undefined) this.#o.waiting(shard, project, 1);
      counted = shard;
    };
    try {
      for (;;) {
        count(held.why === 'turn' ? held.shard : undefined);
        if (wait.canceled) return { refusal: held.refusal };
        const now = Date.now();
        if (now >= until) {
          this.#o.refused(held.key);
          return { refusal: held.refusal };
        }
        if (held.why === 'turn') turnSince ??= now;
        const turnEnds = !cut && turnSince !== undefined ? turnSince + this.#o.turnMs : Infinity;
        await wait.next((wake) => this.#listen(held, wake), Math.min(until, turnEnds));
        if (wait.canceled) return { refusal: held.refusal };
        if (!cut && turnSince !== undefined && Date.now() >= turnEnds) {
          cut = true;
          // Never its own project's requests: a holder's request held behind another's wait cuts nobody.
          const pool = this.#o.shard(held.shard)?.current?.upstream.pool;
          if (pool && this.#o.turnHolder(held.shard) !== project) this.#o.endTurn(held.shard, pool, Date.now() - turnSince, turnSince);
        }
        const placed = place();
        if (!('held' in placed)) return 'pending' in placed ? placed.pending : placed;
        held = placed.held;
      }
    } finally {
      count(undefined);
    }
  }

  /**
   * Calls `wake` when the request may be placed now: its shard switched workerd, or (waiting for a turn) the
   * project holding it has nothing left in flight there and the workerd showed a sign of life past its grace (the
   * turn passes then). Returns what stops listening.
   */
  #listen(held: Held, wake: (afterMs?: number) => void): Array<() => void> {
    const shard = this.#o.shard(held.shard);
    if (!shard) return [];
    const stops = [shard.onSwitch(() => wake())];
    if (held.why !== 'turn') return stops;
    stops.push(this.#o.onHandover(held.shard, () => wake()));
    const holder = this.#o.turnHolder(held.shard);
    const pool = shard.current?.upstream.pool;
    if (holder === undefined || !pool) {
      wake(0); // the turn is free (given up a moment ago): placed again at once
      return stops;
    }
    if (pool.hasInFlight(holder)) {
      stops.push(pool.onProjectIdle(holder, () => wake(this.#o.graceMs + 1)));
      return stops;
    }
    // Nothing of the holder in flight: its turn passes at the workerd's first sign of life past the grace after
    // its last answer (listened for only while there was none, or it would wake at once again and again), or
    // when its reservation of a turn just given lapses.
    const ended = pool.endedAt(holder);
    if (ended !== undefined && pool.lastOutput <= ended + this.#o.graceMs) stops.push(pool.onOutputAfter(ended + this.#o.graceMs, () => wake()));
    wake(IDLE_HOLDER_RECHECK_MS);
    return stops;
  }
}

/** One held request's waiting: a wake-up at a time, with a deadline, that its cancellation ends at once. */
class Wait {
  canceled = false;
  #resolve: (() => void) | undefined;

  cancel(): void {
    this.canceled = true;
    this.#resolve?.();
  }

  /** Resolves when `listen` wakes it (after the delay it gives, if any), at `deadline` (epoch ms), or when canceled. */
  next(listen: (wake: (afterMs?: number) => void) => Array<() => void>, deadline: number): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      let stops: Array<() => void> = [];
      let settled = false;
      const done = () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        for (const stop of stops) stop();
        this.#resolve = undefined;
        resolve();
      };
      const at = (delayMs: number) => {
        clearTimeout(timer);
        timer = setTimeout(done, Math.max(0, delayMs));
      };
      this.#resolve = done;
      at(deadline - Date.now());
      stops = listen((afterMs) => (afterMs === undefined ? done() : at(Math.min(afterMs, deadline - Date.now()))));
      if (settled) for (const stop of stops) stop();
    });
  }
}
