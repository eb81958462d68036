// The analysis of a rollout: the replicas' cumulative counts per build, each run of a replica's split minus its
// own counts at the last judgement, summed, give one interval's counts; the new build's error percent in that interval, alone and against the
// stable build's, passes or fails it. Pure.
import type { RequestCounts, RolloutAnalysis } from '../../../../src/apis/v1alpha1/rollout.ts';
import type { RuntimeAppReport } from '../../../../src/runtime-contract/report.ts';

export interface BuildCounts {
  readonly stable: RequestCounts;
  readonly canary: RequestCounts;
}

const ZERO: RequestCounts = { requests: 0, errors: 0 };
export const NO_COUNTS: BuildCounts = { stable: ZERO, canary: ZERO };

const plus = (a: RequestCounts, b: RequestCounts): RequestCounts => ({ requests: a.requests + b.requests, errors: a.errors + b.errors });
const sum = (a: BuildCounts, b: BuildCounts): BuildCounts => ({ stable: plus(a.stable, b.stable), canary: plus(a.canary, b.canary) });

/**
 * The counts of the replicas that split for `release` (others count nothing for it yet), per run of a replica's
 * split (`RolloutReport.run`: a replica restarting, or its split starting again, is a new run counted from zero);
 * reports that name no run are summed under ''.
 */
export function runTotals(replicas: ReadonlyArray<RuntimeAppReport | undefined>, release: string): Map<string, BuildCounts> {
  const runs = new Map<string, BuildCounts>();
  for (const report of replicas) {
    const r = report?.rollout;
    if (r?.release !== release) continue;
    const run = r.run ?? '';
    runs.set(run, sum(runs.get(run) ?? NO_COUNTS, { stable: r.stable, canary: r.canary }));
  }
  return runs;
}

/** The counts of every run, summed. */
export function sumOfRuns(runs: ReadonlyMap<string, BuildCounts>): BuildCounts {
  return [...runs.values()].reduce(sum, NO_COUNTS);
}

/** The sum of the counts of the replicas that split for `release`. */
export function totals(replicas: ReadonlyArray<RuntimeAppReport | undefined>, release: string): BuildCounts {
  return sumOfRuns(runTotals(replicas, release));
}

/**
 * One build's counts since the baseline. A total below its baseline means a replica restarted and counts from
 * zero again: what it lost is unknown, so the interval is the totals alone (an undercount, never a negative).
 */
function since(total: RequestCounts, baseline: RequestCounts): RequestCounts {
  if (total.requests < baseline.requests || total.errors < baseline.errors) return total;
  return { requests: total.requests - baseline.requests, errors: total.errors - baseline.errors };
}

export function intervalCounts(now: BuildCounts, baseline: BuildCounts): BuildCounts {
  return { stable: since(now.stable, baseline.stable), canary: since(now.canary, baseline.canary) };
}

/**
 * One interval's counts from each run's own baseline, summed: a run new since the baseline counts whole, a run gone
 * (its replica stopped) counts nothing, so a replica restarting or leaving changes only its own part.
 */
export function runIntervalCounts(now: ReadonlyMap<string, BuildCounts>, baselines: Readonly<Record<string, BuildCounts>>): BuildCounts {
  let total = NO_COUNTS;
  for (const [run, counts] of now) total = sum(total, intervalCounts(counts, Object.hasOwn(baselines, run) ? baselines[run]! : NO_COUNTS));
  return total;
}

export type Verdict = { readonly kind: 'inconclusive' } | { readonly kind: 'passed' } | { readonly kind: 'failed'; readonly why: string };

const percent = (c: RequestCounts): number => (c.requests === 0 ? 0 : (100 * c.errors) / c.requests);
/** One decimal at most, so a message stays readable (and the same for the same counts). */
const shown = (n: number): string => `${Math.round(n * 10) / 10}`;

/** The judgement of one interval's counts; `why` names the figures (the status message and the Event say it). */
export function judge(counts: BuildCounts, policy: RolloutAnalysis, canaryBuild: string): Verdict {
  const { canary, stable } = counts;
  if (canary.requests < policy.minRequests) return { kind: 'inconclusive' };
  const canaryPercent = percent(canary);
  const figures = `${canary.errors} of ${canary.requests} requests of build ${canaryBuild} failed (${shown(canaryPercent)} %)`;
  if (policy.maxErrorPercent !== undefined && canaryPercent > policy.maxErrorPercent) {
    return { kind: 'failed', why: `${figures}, above the ${shown(policy.maxErrorPercent)} % allowed` };
  }
  if (policy.maxPercentAboveStable !== undefined && stable.requests >= 1) {
    const stablePercent = percent(stable);
    if (canaryPercent - stablePercent > policy.maxPercentAboveStable) {
      return {
        kind: 'failed',
        why: `${figures}, ${shown(canaryPercent - stablePercent)} points above the stable build's ${shown(stablePercent)} % (${stable.errors} of ${stable.requests}), more than the ${shown(policy.maxPercentAboveStable)} allowed`,
      };
    }
  }
  return { kind: 'passed' };
}
