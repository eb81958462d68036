// The rollout state machine of a RuntimeApp: from its spec (the release it asks for, the policy), its request
// annotations, the current status.rollout and the replicas' reports, the next status.rollout. Pure and
// table-tested; the RuntimeApp controller, its only writer, writes it with the rest of the status.
import { ROLLOUT_ABORT_ANNOTATION, ROLLOUT_PROMOTE_ANNOTATION, ROLLOUT_RETRY_ANNOTATION, type RolloutPolicy, type RolloutRelease, type RolloutStatus } from '../../../../src/apis/v1alpha1/rollout.ts';
import type { RuntimeApp } from '../../../../src/apis/v1alpha1/runtime-app.ts';
import { releaseOf } from '../../../../src/runtime-contract/releases.ts';
import type { RuntimeAppReport } from '../../../../src/runtime-contract/report.ts';
import { unansweredRequest } from '../../../../src/kube/request-annotation.ts';
import { advance, type Outcome } from './stepping.ts';
import { abort, nextStep, start, underWay } from './transitions.ts';

export interface RolloutInput {
  readonly app: RuntimeApp;
  /** One per counted runtime replica (`ReplicaReports.app`); `undefined` for one that has not acted on the app. */
  readonly replicas: ReadonlyArray<RuntimeAppReport | undefined>;
  readonly now: Date;
}

/**
 * The next status.rollout (`undefined`: none, the app has no policy) and when to look again.
 *
 * A policy applies to the next change: set on an app that has a build, it records what is served as the stable
 * release (`status.served`, once every replica serves it; else the spec's); a change of the spec's release (build
 * or environment), later or in the same edit as the policy, rolls out from it.
 */
export function nextRollout({ app, replicas, now }: RolloutInput): { rollout: RolloutStatus | undefined; requeueAfter?: number } {
  const policy = app.spec.rollout;
  const spec = releaseOf(app.spec);
  if (!policy) return { rollout: undefined };
  if (!spec) return { rollout: app.status?.rollout };
  const current = app.status?.rollout ?? { phase: 'Succeeded', stable: app.status?.served ?? spec, step: policy.steps.length, weight: 100 };
  if (!app.status?.rollout && current.stable.release === spec.release) return { rollout: current };
  const requested = answerRequests(app, followSpec(current, spec, policy, now), spec, policy, now);
  if (underWay(requested) && requested.canary?.release === spec.release) return advance(requested, policy, replicas, now) satisfies Outcome;
  return { rollout: requested };
}

/** A change of the spec's release starts, replaces or (back to the stable one) ends a rollout. */
function followSpec(r: RolloutStatus, spec: RolloutRelease, policy: RolloutPolicy, now: Date): RolloutStatus {
  if (spec.release === r.stable.release) {
    if (!underWay(r)) return r;
    return abort(r, `The active release was set back to build ${spec.buildId}: the rollout of build ${r.canary?.buildId ?? ''} ended and build ${spec.buildId} serves all traffic.`);
  }
  // The same release again: under way, it goes on; aborted, re-applying the same manifest does not restart it.
  if (spec.release === r.canary?.release && r.phase !== 'Succeeded') return r;
  // A third release during a rollout replaces the new one; the stable release stays.
  return start(r, r.stable, spec, policy, now);
}

/** Promote, abort and retry requests, each echoed in its lastHandled field even when it had nothing to do. */
function answerRequests(app: RuntimeApp, current: RolloutStatus, spec: RolloutRelease, policy: RolloutPolicy, now: Date): RolloutStatus {
  let r = current;
  const abortAsked = unansweredRequest(app, ROLLOUT_ABORT_ANNOTATION, r.lastHandledAbort);
  if (abortAsked !== undefined) {
    r = underWay(r) ? abort(r, `Aborted on request: build ${r.stable.buildId} serves all traffic.`) : { ...r, message: `Abort request ${abortAsked} had nothing to abort: the rollout is ${r.phase}.` };
    r = { ...r, lastHandledAbort: abortAsked };
  }
  const retryAsked = unansweredRequest(app, ROLLOUT_RETRY_ANNOTATION, r.lastHandledRetry);
  if (retryAsked !== undefined) {
    if (r.phase === 'Aborted' && r.canary?.release === spec.release) r = start(r, r.stable, spec, policy, now);
    else if (r.phase === 'Aborted') r = { ...r, message: `Retry request ${retryAsked} had nothing to retry: the spec no longer asks for the aborted release.` };
    else r = { ...r, message: `Retry request ${retryAsked} had nothing to retry: the rollout is ${r.phase}, not Aborted.` };
    r = { ...r, lastHandledRetry: retryAsked };
  }
  const promoteAsked = unansweredRequest(app, ROLLOUT_PROMOTE_ANNOTATION, r.lastHandledPromote);
  if (promoteAsked !== undefined) {
    r = underWay(r) ? nextStep(r, policy) : { ...r, message: `Promote request ${promoteAsked} had nothing to promote: the rollout is ${r.phase}.` };
    r = { ...r, lastHandledPromote: promoteAsked };
  }
  return r;
}
