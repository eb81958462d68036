/** Options of {@link ShardTime}. */
export interface ShardTimeOptions {
  /** How fast a project's use of the shard is forgotten: half of it after this long. Default 10 s. */
  halfLifeMs?: number;
  /** A project whose remembered use passes this is a hog while others use the shard too. Default 1 s. */
  hogMs?: number;
  /** What a hog's statements may run, at most, while it is one. Default 250 ms. */
  capMs?: number;
  now?: () => number;
}

interface Use {
  /** Statement time remembered, as of `at`. */
  ms: number;
  at: number;
}

/**
 * Who has used a shard's one thread lately, by project, and the cap on a hog's statements. A statement is
 * synchronous native code: while it runs, every other database of the shard waits, whatever the turns. A project
 * whose statements took more than `hogMs` of the shard's recent time (decayed by `halfLifeMs`) while another
 * project used the shard too has its next statements cut at `capMs`, until its use decays or it is alone: so a
 * tenant that aims long statements at a neighbour's shard stalls it once, for one statement time limit, then for
 * a quarter of a second at a time. A project alone on its shard is never capped.
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

  /** The cap on `project`'s statements now: `capMs` while it is a hog and another project used the shard lately; else none. */
  capFor(project: string): number | undefined {
    const now = this.#now();
    if (this.#decayed(this.#use.get(project), now) <= this.#hogMs) return undefined;
    for (const [other, use] of this.#use) if (other !== project && now - use.at <= this.#halfLifeMs) return this.capMs;
    return undefined;
  }

  #decayed(use: Use | undefined, now: number): number {
    return use === undefined ? 0 : use.ms * 2 ** (-(now - use.at) / this.#halfLifeMs);
  }
}
