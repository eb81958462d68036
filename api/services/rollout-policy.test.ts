import { describe, expect, it } from 'vitest';
import { RolloutDuration } from '../../src/apis/v1alpha1/rollout.ts';
import { DURATION } from '../schemas/app-rollout.ts';
import { policyFromBody, policyView, statusView } from './rollout-policy.ts';

describe('rollout policy', () => {
  it('takes the durations the kind takes', () => {
    expect((RolloutDuration as unknown as { pattern: string }).pattern).toBe(`^${DURATION}$`);
  });

  it('writes a manual pause as an empty pause and spells out the default on_failure, and reads it back', () => {
    const body = {
      steps: [{ weight: 10, pause: '30s' }, { weight: 50, pause: 'manual' }, { weight: 100 }],
      affinity: { header: 'x-user' },
      analysis: { interval: '1m', min_requests: 20, max_error_percent: 5, failure_limit: 1 },
    };
    const policy = policyFromBody(body);
    expect(policy).toStrictEqual({
      steps: [{ weight: 10, pause: { duration: '30s' } }, { weight: 50, pause: {} }, { weight: 100 }],
      affinity: { header: 'x-user' },
      analysis: { interval: '1m', minRequests: 20, maxErrorPercent: 5, failureLimit: 1 },
      onFailure: 'Abort',
    });
    expect(policyView(policy)).toStrictEqual({ ...body, on_failure: 'abort' });
  });

  it.each([
    [{ steps: [{ weight: 50 }, { weight: 50 }] }, 'body.steps.1.weight: step weights must increase'],
    [{ steps: [{ weight: 50 }, { weight: 10 }] }, 'body.steps.1.weight'],
    [{ steps: [{ weight: 10 }], affinity: { cookie: 'a', header: 'b' } }, 'body.affinity: name a cookie or a header'],
    [{ steps: [{ weight: 10 }], affinity: {} }, 'body.affinity'],
    [{ steps: [{ weight: 10 }], analysis: { min_requests: 5 } }, 'body.analysis: needs max_error_percent or max_percent_above_stable'],
  ])('refuses %j naming the field', (body, detail) => {
    expect(() => policyFromBody(body)).toThrow(detail);
  });

  it('shows the status with the policy’s count of steps', () => {
    const counts = { requests: 10, errors: 1 };
    expect(
      statusView(
        {
          phase: 'Paused',
          stable: { release: 'r1', buildId: 'b-1' },
          canary: { release: 'r2', buildId: 'b-2' },
          step: 1,
          weight: 50,
          analysis: { stable: counts, canary: counts, baseline: { stable: counts, canary: counts }, failures: 0, checkedAt: '2026-01-01T00:00:00Z' },
          lastHandledPromote: 'p1',
        },
        3,
      ),
    ).toStrictEqual({
      phase: 'Paused',
      step: 1,
      steps: 3,
      weight: 50,
      stable_build_id: 'b-1',
      canary_build_id: 'b-2',
      analysis: { stable: counts, canary: counts, failures: 0, checked_at: '2026-01-01T00:00:00Z' },
      last_handled_promote: 'p1',
    });
  });
});
