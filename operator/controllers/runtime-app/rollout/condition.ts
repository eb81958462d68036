import type { RolloutStatus } from '../../../../src/apis/v1alpha1/rollout.ts';
import type { ConditionUpdate } from '../../../../src/conditions/index.ts';

/** RolloutProgressing: True (Progressing, Paused) while traffic is split, False (Succeeded, Aborted) after; none without a rollout. */
export function rolloutCondition(rollout: RolloutStatus | undefined): ConditionUpdate | undefined {
  if (!rollout) return undefined;
  const status = rollout.phase === 'Progressing' || rollout.phase === 'Paused' ? 'True' : 'False';
  const message = rollout.message ?? (rollout.phase === 'Succeeded' ? `Build ${rollout.stable.buildId} serves all traffic.` : rollout.phase);
  return { type: 'RolloutProgressing', status, reason: rollout.phase, message };
}
