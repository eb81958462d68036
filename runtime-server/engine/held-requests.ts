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
  endTurn(shard: number, pool: UpstreamPool, waitedMs: number): number;
  /** A request was answered a refusal (counted per app). */
  refused(key: string): void;
}

/**
 * Requests held at the entry point instead of refused: while the projects on probation take turns on a shard
 * (`probation.ts`), a request of one waits for its project's turn, and while a shard's workerd is started again
 * after a stop, its requests wait for it, each for a bounded time, then answered 503 as before. So a tenant on
 * probation beside a looping one sees its requests delayed by the moment the looper takes to be stopped, not
 * refused; and a project that keeps the turn with requests that never end has them cut short once another has
 * waited `turnMs`.
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
   * wait ends; answers its refusal at once when its project has too many held already.
   */
  hold(first: Held, place: () => Placement): Route {
    const project = first.key.slice(0, first.key.indexOf('/'));
    const held = this.#held.get(project) ?? 0;
    if (held >= this.#o.maxPerProject) {
      this.#o.refused(first.key);
      return { refusal: first.refusal };
    }
    this.#held.set(project, held + 1);
    const pending = this.#wait(first, place).finally(() => {
      const left = (this.#held.get(project) ?? 1) - 1;
      if (left > 0) this.#held.set(project, left);
      else this.#held.delete(project);
    });
    return { pending };
  }

  async #wait(first: Held, place: () => Placement): Promise<SettledRoute> {
    const started = Date.now();
    const until = started + this.#o.waitMs;
    let held = first;
    let cut = false;
    for (;;) {
      const now = Date.now();
      if (now >= until) {
        this.#o.refused(held.key);
        return { refusal: held.refusal };
      }
      const turnEnds = !cut && held.why === 'turn' ? started + this.#o.turnMs : Infinity;
      await this.#change(held, Math.min(until, turnEnds) - now);
      if (!cut && held.why === 'turn' && Date.now() >= turnEnds) {
        cut = true;
        const pool = this.#o.shard(held.shard)?.current?.upstream.pool;
        if (pool) this.#o.endTurn(held.shard, pool, Date.now() - started);
      }
      const placed = place();
      if (!('held' in placed)) return 'pending' in placed ? placed.pending : placed;
      held = placed.held;
    }
  }

  /**
   * Resolves when the request may be placed now, or after `ms`: its shard switched workerd, or (waiting for a
   * turn) the project holding it has no request left there, its grace past; no holder, after the grace.
   */
  #change(held: Held, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const unsubscribe: Array<() => void> = [];
      let timer: NodeJS.Timeout;
      const done = () => {
        clearTimeout(timer);
        for (const stop of unsubscribe) stop();
        resolve();
      };
      const after = (delayMs: number) => {
        clearTimeout(timer);
        timer = setTimeout(done, Math.max(0, delayMs));
      };
      after(ms);
      const shard = this.#o.shard(held.shard);
      if (!shard) return;
      unsubscribe.push(shard.onSwitch(done));
      if (held.why !== 'turn') return;
      const holder = this.#o.turnHolder(held.shard);
      const pool = shard.current?.upstream.pool;
      if (holder === undefined || !pool) after(Math.min(ms, this.#o.graceMs + 1));
      else unsubscribe.push(pool.onProjectIdle(holder, () => after(Math.min(ms, this.#o.graceMs + 1))));
    });
  }
}
