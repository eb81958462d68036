/** Requests and errors (5xx answers, uncaught exceptions included) of one release of a rollout. */
export interface ReleaseCounts {
  readonly requests: number;
  readonly errors: number;
}

/** A rollout's counts per release since this pair of releases (`tag`, `RoutedSplit.tag`) began serving. */
export interface RolloutCounts {
  readonly tag: string;
  readonly stable: ReleaseCounts;
  readonly canary: ReleaseCounts;
}

/** Answers of one build, as `AppRequestCounts` has them for the whole app. */
export interface BuildCounts {
  /** Answers by status class: 1xx … 5xx. */
  readonly classes: readonly number[];
  /** Answers by latency bucket (`bucketsMs`, not cumulative). */
  readonly buckets: readonly number[];
  readonly count: number;
  readonly sumMs: number;
  /** Uncaught exceptions (each answered 500, so among the 5xx). */
  readonly exceptions?: number;
  /** 503s the dispatcher gave without calling the app: its queue was full or the wait too long. */
  readonly refused?: number;
}

/** One app's requests as a dispatcher counts them (`dispatcher.js`, `GET /stats` on the control socket). */
export interface AppRequestCounts extends BuildCounts {
  /** Requests being served now, and waiting for a slot. */
  readonly active: number;
  readonly queued: number;
  /** Apps that have been in a rollout: the counts of its current (or last) pair of releases. */
  readonly rollout?: RolloutCounts;
  /** Apps that have been in a rollout: their answers while in one, per build (part of the totals above). */
  readonly builds?: Readonly<Record<string, BuildCounts>>;
}

export interface DispatcherStats {
  readonly loads: number;
  readonly bucketsMs: readonly number[];
  readonly apps: Readonly<Record<string, AppRequestCounts>>;
}

const add = (a: readonly number[], b: readonly number[]): number[] => a.map((v, i) => v + (b[i] ?? 0));

/** Builds an app keeps counts of across generations; dispatcher.js is given it too (its `BUILDS_KEPT` binding), so both keep as many. */
export const BUILDS_KEPT = 4;

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

  /**
   * `final`: the generation's last counts, if it could still be read. Only those of apps `deployed` now are kept: a
   * workerd retiring as an app is removed (a change of its shard's assets) still routed it, and would bring back the
   * counts {@link forget} dropped (found in review).
   */
  retire(generation: number, final?: DispatcherStats, deployed: (key: string) => boolean = () => true): void {
    if (this.#retired.has(generation)) return;
    this.#retired.add(generation);
    const counts = final ?? this.#last.get(generation);
    this.#last.delete(generation);
    if (!counts) return;
    this.#bucketsMs = counts.bucketsMs;
    for (const [key, c] of Object.entries(counts.apps)) if (deployed(key)) this.#base.set(key, sum(this.#base.get(key), { ...c, active: 0, queued: 0 }));
  }

  /**
   * Drops the counts of an app removed from the replica, once its live dispatchers dropped theirs: its series vanish
   * at once rather than go down. Deployed again under the same key, it counts from zero, as Prometheus reads a reset.
   */
  forget(key: string): void {
    this.#base.delete(key);
    for (const [generation, last] of this.#last) {
      if (!(key in last.apps)) continue;
      const apps = { ...last.apps };
      delete apps[key];
      this.#last.set(generation, { ...last, apps });
    }
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
  const rollout = sumRollout(a.rollout, b.rollout);
  const builds = a.builds || b.builds ? sumBuilds(a.builds ?? {}, b.builds ?? {}) : undefined;
  return {
    active: a.active + b.active,
    queued: a.queued + b.queued,
    ...sumBuild(a, b),
    ...(rollout ? { rollout } : {}),
    ...(builds ? { builds } : {}),
  };
}

function sumBuild(a: BuildCounts, b: BuildCounts): BuildCounts {
  return {
    classes: add(a.classes, b.classes),
    buckets: add(a.buckets, b.buckets),
    count: a.count + b.count,
    sumMs: a.sumMs + b.sumMs,
    // Counted by dispatchers since the metrics window (issue 42): absent from older counts' shape.
    ...(a.exceptions !== undefined || b.exceptions !== undefined ? { exceptions: (a.exceptions ?? 0) + (b.exceptions ?? 0) } : {}),
    ...(a.refused !== undefined || b.refused !== undefined ? { refused: (a.refused ?? 0) + (b.refused ?? 0) } : {}),
  };
}

/**
 * The builds of the later counts `b` (its dispatcher keeps the current pair among them), and of the earlier `a`'s
 * others the latest while fewer than {@link BUILDS_KEPT}: a build a dispatcher let go leaves with its series (its
 * answers stay in the app's totals), rather than its series going back to what a retired generation counted.
 */
function sumBuilds(a: Readonly<Record<string, BuildCounts>>, b: Readonly<Record<string, BuildCounts>>): Record<string, BuildCounts> {
  const others = Object.keys(a).filter((build) => !(build in b));
  const room = Math.max(0, BUILDS_KEPT - Object.keys(b).length);
  const out: Record<string, BuildCounts> = {};
  for (const build of others.slice(Math.max(0, others.length - room))) out[build] = a[build]!;
  for (const [build, c] of Object.entries(b)) out[build] = a[build] ? sumBuild(a[build], c) : c;
  return out;
}

/** Counts of the same pair of releases add up across generations; another pair's are of an earlier rollout (the later generation's win). */
function sumRollout(a: RolloutCounts | undefined, b: RolloutCounts | undefined): RolloutCounts | undefined {
  if (!a || !b || a.tag !== b.tag) return b ?? a;
  const plus = (x: ReleaseCounts, y: ReleaseCounts) => ({ requests: x.requests + y.requests, errors: x.errors + y.errors });
  return { tag: a.tag, stable: plus(a.stable, b.stable), canary: plus(a.canary, b.canary) };
}
