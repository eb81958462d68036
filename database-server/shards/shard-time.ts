/** Options of {@link ShardTime}. */
export interface ShardTimeOptions {
  /** How fast a project's use of the shard is forgotten: half of it after this long. Default 10 s. */
  halfLifeMs?: number;
  /** A project whose remembered use passes this is a hog. Default 1 s. */
  hogMs?: number;
  /** What a hog's statements may run, at most, while another project waits for the shard (and the least any project's may); 0: never cut. Default 250 ms. */
  capMs?: number;
  now?: () => number;
}

/** The least a statement runs before it is cut, however many projects contend: enough to get work done. */
const MIN_CAP_MS = 25;

interface Use {
  /** Statement time remembered, as of `at`. */
  ms: number;
  at: number;
}

/**
 * Who has used a shard's one thread lately, by project, and the cap on its statements. A statement is synchronous
 * native code: while it runs, every other database of the shard waits, whatever the turns, and nothing can cut it
 * short but the deadline it was given as it began. Whenever a project takes a turn while another contends for the
 * shard (waits for a turn, had one within the last second, or has a database open here that had one: fair-turns.ts),
 * its statement may run for what is left of `hogMs` after its recent use (CPU time, decayed by `halfLifeMs`), and
 * never less than `capMs`: so a tenant that aims long statements at a neighbour's shard stalls it for about `hogMs`
 * at first (a fresh project too), then for a quarter of a second at a time, however seldom the neighbour asks. A
 * project alone on its shard (no other project's database used there since it opened), nothing is cut, however much
 * it uses.
 */
export class ShardTime {
  readonly capMs: number;
  readonly #halfLifeMs: number;
  readonly #hogMs: number;
  readonly #now: () => number;
  readonly #use = new Map<string, Use>();

  constructor(options: ShardTimeOptions = {}) {
    this.#halfLifeMs = options.halfLifeMs ?? 10_000;
    this.#hogMs = options.hogMs ?? 1_000;
    this.capMs = options.capMs ?? 250;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Counts `ms` of statement time to `project`. */
  add(project: string, ms: number): void {
    const now = this.#now();
    this.#use.set(project, { ms: this.#decayed(this.#use.get(project), now) + ms, at: now });
    // Forgets who has not run for a while (their use decayed to nothing), so the map holds the shard's recent projects.
    if (this.#use.size > 64) for (const [other, use] of this.#use) if (this.#decayed(use, now) < 1) this.#use.delete(other);
  }

  /**
   * The cap on `project`'s statements as it takes a turn while `contenders` other projects contend: what is left of
   * `hogMs` after its recent use, at least `capMs`, divided among the contenders (never under {@link MIN_CAP_MS});
   * none while nobody else does. Divided, because a project waits for a statement of each other one: many projects
   * made to take turns against one neighbour would otherwise stall it a cap each.
   */
  capFor(project: string, contenders: number): number | undefined {
    if (this.capMs === 0 || contenders < 1) return undefined;
    const left = this.#hogMs - this.#decayed(this.#use.get(project), this.#now());
    return Math.max(Math.min(this.capMs, MIN_CAP_MS), Math.round(Math.max(this.capMs, left) / contenders));
  }

  #decayed(use: Use | undefined, now: number): number {
    return use === undefined ? 0 : use.ms * 2 ** (-(now - use.at) / this.#halfLifeMs);
  }
}
