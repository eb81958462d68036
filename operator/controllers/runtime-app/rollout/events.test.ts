import { describe, expect, it } from 'vitest';
import type { RolloutStatus } from '../../../../src/apis/v1alpha1/rollout.ts';
import { rolloutEvents } from './events.ts';

const v1 = { release: 'r1', buildId: 'b1' };
const v2 = { release: 'r2', buildId: 'b2' };
const v3 = { release: 'r3', buildId: 'b3' };
const r = (over: Partial<RolloutStatus>): RolloutStatus => ({ phase: 'Progressing', stable: v1, canary: v2, step: 0, weight: 10, message: 'm', ...over });

describe('rolloutEvents', () => {
  it.each<[string, RolloutStatus | undefined, RolloutStatus, string[]]>([
    ['the first record of a policy', undefined, r({ phase: 'Succeeded', canary: undefined }), []],
    ['a rollout starting', r({ phase: 'Succeeded', canary: undefined }), r({}), ['Normal RolloutStep']],
    ['a step', r({}), r({ step: 1, weight: 50 }), ['Normal RolloutStep']],
    ['a canary replaced at the same step', r({}), r({ canary: v3 }), ['Normal RolloutStep']],
    ['a pause', r({ step: 1 }), r({ step: 1, phase: 'Paused' }), ['Normal RolloutPaused']],
    ['a success', r({ step: 2 }), r({ phase: 'Succeeded', step: 3, stable: v2 }), ['Normal RolloutSucceeded']],
    ['an abort', r({}), r({ phase: 'Aborted', weight: 0 }), ['Warning RolloutAborted']],
    ['a retry', r({ phase: 'Aborted', weight: 0 }), r({}), ['Normal RolloutStep']],
    ['nothing moved (an analysis judgement, a restart re-deriving the status)', r({}), r({ message: 'other' }), []],
  ])('%s', (_name, before, after, expected) => {
    expect(rolloutEvents(before, after).map((e) => `${e.type} ${e.reason}`)).toEqual(expected);
  });
});
