import type { Static } from 'typebox';
import type { RolloutPolicy, RolloutStatus } from '../../src/apis/v1alpha1/rollout.ts';
import { BadRequestError } from '../../src/errors.ts';
import type { RolloutBody, RolloutStatusView } from '../schemas/app-rollout.ts';

// The rollout policy between the API's words and the RuntimeApp's `spec.rollout`, and the status as the API
// shows it. The body's schema holds the bounds; the rules it cannot say are checked here, as the CRD's CEL
// rules check them, so the API refuses with the field named what the apiserver would refuse.

export type RolloutBody = Static<typeof RolloutBody>;
export type RolloutStatusView = Static<typeof RolloutStatusView>;

/** `manual`: a pause without a duration, which only a promote ends. */
export const MANUAL_PAUSE = 'manual';

/**
 * The body as `spec.rollout`.
 * @throws BadRequestError naming the field when the weights do not increase, the analysis has no threshold
 *   or the affinity is not exactly one of cookie and header
 */
export function policyFromBody(body: RolloutBody): RolloutPolicy {
  body.steps.forEach((step, i) => {
    const before = body.steps[i - 1];
    if (before && step.weight <= before.weight) throw new BadRequestError(`body.steps.${i}.weight: step weights must increase (${step.weight} follows ${before.weight}).`);
  });
  const { affinity, analysis } = body;
  if (affinity && (affinity.cookie === undefined) === (affinity.header === undefined)) throw new BadRequestError('body.affinity: name a cookie or a header, one of the two.');
  if (analysis && analysis.max_error_percent === undefined && analysis.max_percent_above_stable === undefined) {
    throw new BadRequestError('body.analysis: needs max_error_percent or max_percent_above_stable (the threshold a failed interval crosses).');
  }
  return {
    steps: body.steps.map((s) => ({ weight: s.weight, ...(s.pause === undefined ? {} : { pause: s.pause === MANUAL_PAUSE ? {} : { duration: s.pause } }) })),
    ...(affinity ? { affinity: affinity.cookie === undefined ? { header: affinity.header } : { cookie: affinity.cookie } } : {}),
    ...(analysis
      ? {
          analysis: {
            ...(analysis.interval ? { interval: analysis.interval } : {}),
            minRequests: analysis.min_requests,
            ...(analysis.max_error_percent === undefined ? {} : { maxErrorPercent: analysis.max_error_percent }),
            ...(analysis.max_percent_above_stable === undefined ? {} : { maxPercentAboveStable: analysis.max_percent_above_stable }),
            ...(analysis.failure_limit === undefined ? {} : { failureLimit: analysis.failure_limit }),
          },
        }
      : {}),
    // Spelled out (the operator's default): a PUT of the same policy then compares equal and writes nothing.
    onFailure: body.on_failure === 'pause' ? 'Pause' : 'Abort',
  };
}

/** `spec.rollout` in the API's words. */
export function policyView(policy: RolloutPolicy): RolloutBody {
  const { affinity, analysis } = policy;
  return {
    steps: policy.steps.map((s) => ({ weight: s.weight, ...(s.pause ? { pause: s.pause.duration ?? MANUAL_PAUSE } : {}) })),
    ...(affinity?.cookie !== undefined ? { affinity: { cookie: affinity.cookie } } : affinity?.header !== undefined ? { affinity: { header: affinity.header } } : {}),
    ...(analysis
      ? {
          analysis: {
            ...(analysis.interval ? { interval: analysis.interval } : {}),
            min_requests: analysis.minRequests,
            ...(analysis.maxErrorPercent === undefined ? {} : { max_error_percent: analysis.maxErrorPercent }),
            ...(analysis.maxPercentAboveStable === undefined ? {} : { max_percent_above_stable: analysis.maxPercentAboveStable }),
            ...(analysis.failureLimit === undefined ? {} : { failure_limit: analysis.failureLimit }),
          },
        }
      : {}),
    on_failure: policy.onFailure === 'Pause' ? 'pause' : 'abort',
  };
}

/** `status.rollout` in the API's words; `steps` is the policy's count (0 once the policy is gone). */
export function statusView(status: RolloutStatus, steps: number): RolloutStatusView {
  const { analysis } = status;
  return {
    phase: status.phase,
    step: status.step,
    steps,
    weight: status.weight,
    stable_build_id: status.stable.buildId,
    ...(status.canary ? { canary_build_id: status.canary.buildId } : {}),
    ...(status.stepStartedAt ? { step_started_at: status.stepStartedAt } : {}),
    ...(analysis ? { analysis: { stable: analysis.stable, canary: analysis.canary, failures: analysis.failures, checked_at: analysis.checkedAt } } : {}),
    ...(status.message ? { message: status.message } : {}),
    ...(status.lastHandledPromote ? { last_handled_promote: status.lastHandledPromote } : {}),
    ...(status.lastHandledAbort ? { last_handled_abort: status.lastHandledAbort } : {}),
    ...(status.lastHandledRetry ? { last_handled_retry: status.lastHandledRetry } : {}),
  };
}
