/** One app's requests as a dispatcher counts them (`dispatcher.js`, `GET /stats` on the control socket). */
export interface AppRequestCounts {
  /** Requests being served now, and waiting for a slot. */
  readonly active: number;
  readonly queued: number;
  /** Answers by status class: 1xx … 5xx. */
  readonly classes: readonly number[];
  /** Answers by latency bucket (`bucketsMs`, not cumulative). */
  readonly buckets: readonly number[];
  readonly count: number;
  readonly sumMs: number;
}

export interface DispatcherStats {
  readonly loads: number;
  readonly bucketsMs: readonly number[];
  readonly apps: Readonly<Record<string, AppRequestCounts>>;
}

const add = (a: readonly number[], b: readonly number[]): number[] => a.map((v, i) => v + (b[i] ?? 0));

/**
 * Request counts across workerd generations: each dispatcher counts from zero, so the final counts of a
 * retired one are kept here and added to the live ones, and the totals never go back, not even when a
 * dispatcher does not answer a read (its last answer stands in) or has crashed (its last answer is final).
 */
export class RequestStats {
  readonly #base = new Map<string, AppRequestCounts>();
  /** Generations whose final counts are in `#base`: a read of them still under way is not added again. */
  readonly #retired = new Set<number>();
  /** Each live generation's last answer. */
  readonly #last = new Map<number, DispatcherStats>();
  #bucketsMs: readonly number[] = [];

  get bucketsMs(): readonly number[] {
    return this.#bucketsMs;
  }

  /** `final`: the generation's last counts, if it could still be read. */
  retire(generation: number, final?: DispatcherStats): void {
    if (this.#retired.has(generation)) return;
    this.#retired.add(generation);
    const counts = final ?? this.#last.get(generation);
    this.#last.delete(generation);
    if (!counts) return;
    this.#bucketsMs = counts.bucketsMs;
    for (const [key, c] of Object.entries(counts.apps)) this.#base.set(key, sum(this.#base.get(key), { ...c, active: 0, queued: 0 }));
  }

  /** The totals, given what each live generation answered now (`undefined`: it did not). */
  merged(live: ReadonlyArray<{ readonly generation: number; readonly stats: DispatcherStats | undefined }>): Map<string, AppRequestCounts> {
    const out = new Map(this.#base);
    for (const { generation, stats: answered } of live) {
      if (this.#retired.has(generation)) continue;
      if (answered) this.#last.set(generation, answered);
      const stats = answered ?? this.#last.get(generation);
      if (!stats) continue;
      this.#bucketsMs = stats.bucketsMs;
      for (const [key, counts] of Object.entries(stats.apps)) out.set(key, sum(out.get(key), answered ? counts : { ...counts, active: 0, queued: 0 }));
    }
    return out;
  }
}

function sum(a: AppRequestCounts | undefined, b: AppRequestCounts): AppRequestCounts {
  if (!a) return b;
  return { active: a.active + b.active, queued: a.queued + b.queued, classes: add(a.classes, b.classes), buckets: add(a.buckets, b.buckets), count: a.count + b.count, sumMs: a.sumMs + b.sumMs };
}
