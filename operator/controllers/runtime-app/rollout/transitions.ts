// The building blocks of the rollout state machine: each returns the next status.rollout from the current one.
// Pure; `machine.ts` decides which applies.
import type { RolloutPolicy, RolloutRelease, RolloutStatus } from '../../../../src/apis/v1alpha1/rollout.ts';
import { formatTime } from '../../../../src/kube/time.ts';
import { NO_COUNTS } from './analysis.ts';

/** Progressing or Paused: traffic is split between the stable and the new release. */
export const underWay = (r: RolloutStatus): boolean => r.phase === 'Progressing' || r.phase === 'Paused';

/** What the current step does, in the words of its Event and of the status message. */
export function stepMessage(r: RolloutStatus, steps: number): string {
  return `Step ${r.step + 1} of ${steps}: ${r.weight} % of traffic on build ${r.canary?.buildId ?? r.stable.buildId}.`;
}

/**
 * A rollout of `canary` from `stable`, at its first step, with the analysis' counts and failures reset. The step
 * begins (`stepStartedAt`) once every replica applies its weight (`stepping.ts`), so a pause is never spent waiting.
 */
export function start(current: RolloutStatus, stable: RolloutRelease, canary: RolloutRelease, policy: RolloutPolicy, now: Date): RolloutStatus {
  const { analysis: _analysis, stepStartedAt: _begun, ...kept } = current;
  const next: RolloutStatus = { ...kept, phase: 'Progressing', stable, canary, step: 0, weight: policy.steps[0]?.weight ?? 0 };
  if (policy.analysis) next.analysis = { ...NO_COUNTS, baseline: NO_COUNTS, baselines: {}, failures: 0, passes: 0, checkedAt: formatTime(now) };
  return { ...next, message: stepMessage(next, policy.steps.length) };
}

/**
 * The next step, or success after the last. The analysis carries on from its last judgement (a build's error
 * percent does not depend on its weight); a step needs passes of its own. A promote out of a failed analysis'
 * pause is the user accepting the build: its failures are forgiven.
 */
export function nextStep(r: RolloutStatus, policy: RolloutPolicy): RolloutStatus {
  const step = r.step + 1;
  const weight = policy.steps[step]?.weight;
  if (weight === undefined) return succeed(r, policy);
  const failureLimit = policy.analysis?.failureLimit ?? 0;
  const analysis = r.analysis && { ...r.analysis, passes: 0, failures: r.analysis.failures > failureLimit ? 0 : r.analysis.failures };
  const { stepStartedAt: _begun, ...rest } = r;
  const next: RolloutStatus = { ...rest, phase: 'Progressing', step, weight, ...(analysis ? { analysis } : {}) };
  return { ...next, message: stepMessage(next, policy.steps.length) };
}

/** All traffic on the new release, which becomes the stable one: servingPlan serves the spec again. */
export function succeed(r: RolloutStatus, policy: RolloutPolicy): RolloutStatus {
  const canary = r.canary ?? r.stable;
  return { ...r, phase: 'Succeeded', stable: canary, step: policy.steps.length, weight: 100, message: `Build ${canary.buildId} serves all traffic.` };
}

/** All traffic back on the stable release. */
export function abort(r: RolloutStatus, message: string): RolloutStatus {
  return { ...r, phase: 'Aborted', weight: 0, message };
}
