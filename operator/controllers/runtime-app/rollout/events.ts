// The Events of a rollout, from the status before and after a write: only a change records one, so an operator
// restarted mid-rollout, which re-derives the same status, repeats none.
import type { RolloutStatus } from '../../../../src/apis/v1alpha1/rollout.ts';
import type { EventType } from '../../../../src/controller-runtime/events.ts';

export interface RolloutEvent {
  readonly type: EventType;
  readonly reason: 'RolloutStep' | 'RolloutPaused' | 'RolloutSucceeded' | 'RolloutAborted';
  readonly message: string;
}

export function rolloutEvents(before: RolloutStatus | undefined, after: RolloutStatus | undefined): RolloutEvent[] {
  if (!after || !before) return [];
  const message = after.message ?? '';
  const moved = before.phase !== after.phase || before.step !== after.step || before.canary?.release !== after.canary?.release;
  if (!moved) return [];
  switch (after.phase) {
    case 'Progressing':
      return [{ type: 'Normal', reason: 'RolloutStep', message }];
    case 'Paused':
      return before.phase === 'Paused' ? [] : [{ type: 'Normal', reason: 'RolloutPaused', message }];
    case 'Succeeded':
      return [{ type: 'Normal', reason: 'RolloutSucceeded', message }];
    case 'Aborted':
      return [{ type: 'Warning', reason: 'RolloutAborted', message }];
  }
}
