// How a rollout under way moves on by itself: once every replica applies the step's weight (the step begins
// then), its pause runs out and its analysis passes. Timers are the status' own times (stepStartedAt, analysis.checkedAt), so an
// operator restarted mid-step waits only what is left; the caller requeues after `requeueAfter`.
import { DEFAULT_ANALYSIS_INTERVAL, type RolloutAnalysis, type RolloutPolicy, type RolloutStatus } from '../../../../src/apis/v1alpha1/rollout.ts';
import { formatTime } from '../../../../src/kube/time.ts';
import type { RuntimeAppReport } from '../../../../src/runtime-contract/report.ts';
import { intervalCounts, judge, NO_COUNTS, runIntervalCounts, runTotals, sumOfRuns, type BuildCounts } from './analysis.ts';
import { parseDuration } from './duration.ts';
import { abort, nextStep, stepMessage, succeed } from './transitions.ts';

export interface Outcome {
  readonly rollout: RolloutStatus;
  /** Milliseconds until a timer of the step (its pause, the next judgement) runs out; absent: wait on watches. */
  readonly requeueAfter?: number;
}

/** Every counted replica splits for the new release at the status' weight; no replica: not yet. */
export function applied(replicas: ReadonlyArray<RuntimeAppReport | undefined>, r: RolloutStatus): boolean {
  return replicas.length > 0 && replicas.every((report) => report?.rollout?.release === r.canary?.release && report?.rollout?.weight === r.weight);
}

const failedTooOften = (r: RolloutStatus, analysis: RolloutAnalysis | undefined): boolean => analysis !== undefined && (r.analysis?.failures ?? 0) > (analysis.failureLimit ?? 0);

/** The rollout after this pass: judged, paused, moved on or unchanged. */
export function advance(r: RolloutStatus, policy: RolloutPolicy, replicas: ReadonlyArray<RuntimeAppReport | undefined>, now: Date): Outcome {
  const step = policy.steps[r.step];
  // The policy lost steps since this one began: the rollout is past its last.
  if (!step) return { rollout: succeed(r, policy) };
  // The new release stopped a runtime shard (past the CPU bound or out of memory): its replicas send it nothing.
  const stopped = replicas.filter((report) => report?.rollout?.release === r.canary?.release && report?.rollout?.suspended === true).length;
  if (stopped > 0) {
    return {
      rollout: abort(
        r,
        `Build ${r.canary?.buildId ?? ''} stopped a runtime shard (it ran past the CPU bound or out of memory) on ${stopped} of ${replicas.length} runtime replicas. Build ${r.stable.buildId} serves all traffic.`,
      ),
    };
  }
  // A failed analysis' pause waits for a promote or an abort; so does a step not applied yet, by watch.
  if ((r.phase === 'Paused' && failedTooOften(r, policy.analysis)) || !applied(replicas, r)) return { rollout: r };
  const waits: number[] = [];
  // The step begins on the first pass every replica applies it: its pause counts from here, not from when it was
  // asked for (a build held for its migrations, or slow to load, would otherwise spend the pause at the old weight).
  let next = r.stepStartedAt === undefined ? { ...r, stepStartedAt: formatTime(now) } : r;
  if (policy.analysis) {
    const judged = analyse(next, policy, replicas, now);
    if (judged.rollout.phase === 'Aborted' || failedTooOften(judged.rollout, policy.analysis)) return { rollout: judged.rollout };
    next = judged.rollout;
    if (judged.requeueAfter !== undefined) waits.push(judged.requeueAfter);
  }
  const soonest = waits.length > 0 ? Math.min(...waits) : undefined;
  const waiting = (rollout: RolloutStatus, more?: number): Outcome => {
    const after = more === undefined ? soonest : Math.min(more, soonest ?? more);
    return after === undefined ? { rollout } : { rollout, requeueAfter: after };
  };
  if (step.pause && step.pause.duration === undefined) {
    const message = `${stepMessage(next, policy.steps.length)} Paused until a promote.`;
    return waiting(next.phase === 'Paused' ? next : { ...next, phase: 'Paused', message });
  }
  if (step.pause?.duration !== undefined) {
    const ends = Date.parse(next.stepStartedAt ?? formatTime(now)) + (parseDuration(step.pause.duration) ?? 0);
    if (now.getTime() < ends) return waiting(next, ends - now.getTime());
  }
  if (policy.analysis && (next.analysis?.passes ?? 0) < 1) return waiting(next);
  return { rollout: nextStep(next, policy) };
}

/** Judges the interval when it is due; `requeueAfter` says when the next one is. */
function analyse(r: RolloutStatus, policy: RolloutPolicy, replicas: ReadonlyArray<RuntimeAppReport | undefined>, now: Date): Outcome {
  const analysis = policy.analysis as RolloutAnalysis;
  const interval = parseDuration(analysis.interval ?? DEFAULT_ANALYSIS_INTERVAL) ?? 60_000;
  const state = r.analysis ?? { ...NO_COUNTS, baseline: NO_COUNTS, baselines: {}, failures: 0, passes: 0, checkedAt: formatTime(now) };
  const due = Date.parse(state.checkedAt) + interval;
  if (now.getTime() < due) return { rollout: { ...r, analysis: state }, requeueAfter: due - now.getTime() };
  const runs = runTotals(replicas, r.canary?.release ?? '');
  const total = sumOfRuns(runs);
  // Per run when the last judgement recorded them (an operator before them recorded the sum alone).
  const counts = state.baselines ? runIntervalCounts(runs, state.baselines) : intervalCounts(total, state.baseline);
  const verdict = judge(counts, analysis, r.canary?.buildId ?? '');
  const checkedAt = formatTime(now);
  // Too few requests to judge: the interval runs on from the same baseline.
  if (verdict.kind === 'inconclusive') return { rollout: { ...r, analysis: { ...state, checkedAt } }, requeueAfter: interval };
  const judged = { ...state, ...counts, baseline: total, baselines: carriedBaselines(runs, state.baselines), checkedAt };
  if (verdict.kind === 'passed') return { rollout: { ...r, analysis: { ...judged, passes: (state.passes ?? 0) + 1 } }, requeueAfter: interval };
  const failures = state.failures + 1;
  const next: RolloutStatus = { ...r, analysis: { ...judged, failures } };
  const limit = analysis.failureLimit ?? 0;
  if (failures <= limit)
    return { rollout: { ...next, message: `${stepMessage(next, policy.steps.length)} Analysis: ${verdict.why} (failure ${failures}, ${limit} tolerated).` }, requeueAfter: interval };
  if (policy.onFailure === 'Pause') return { rollout: { ...next, phase: 'Paused', message: `Analysis failed: ${verdict.why}. Paused until a promote or an abort.` } };
  return { rollout: abort(next, `Analysis failed: ${verdict.why}. Build ${r.stable.buildId} serves all traffic.`) };
}

/** Runs a judgement keeps the baselines of, those reported at it first. */
const MAX_BASELINES = 64;

/**
 * The baselines after a judgement: each reported run's counts now, and the baselines kept of runs not reported at it
 * (a replica not counted for a moment: a late Lease renewal), so one seen again goes on from its own baseline, where
 * its whole run was counted again as the interval's (old errors failing a clean interval, or old successes hiding
 * new errors: found in review). Bounded: a run whose replica went for good is let go past the bound, oldest first.
 */
function carriedBaselines(runs: ReadonlyMap<string, BuildCounts>, before: Readonly<Record<string, BuildCounts>> | undefined): Record<string, BuildCounts> {
  const now = Object.fromEntries(runs);
  const carried = Object.entries(before ?? {}).filter(([run]) => !runs.has(run));
  return { ...Object.fromEntries(carried.slice(Math.max(0, carried.length - (MAX_BASELINES - runs.size)))), ...now };
}
