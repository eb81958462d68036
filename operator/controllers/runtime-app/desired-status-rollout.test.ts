// desiredStatus during a rollout: Deployed follows what servingPlan asks of the replicas, not the spec alone.
import { describe, expect, it } from 'vitest';
import type { RolloutStatus } from '../../../src/apis/v1alpha1/rollout.ts';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { findCondition } from '../../../src/conditions/index.ts';
import { releaseOf } from '../../../src/runtime-contract/releases.ts';
import type { RuntimeAppReport } from '../../../src/runtime-contract/report.ts';
import { desiredStatus } from './desired-status.ts';

const t1 = new Date('2026-01-01T00:00:00Z');
const v1 = releaseOf({ displayName: 'a', activeBuildId: 'b1' })!;
const v2 = releaseOf({ displayName: 'a', activeBuildId: 'b2' })!;
const app = (rollout: RolloutStatus, policy = true): RuntimeApp => ({
  metadata: { name: 'hello', namespace: 'p', generation: 2 },
  spec: { displayName: 'a', activeBuildId: 'b2', ...(policy ? { rollout: { steps: [{ weight: 10 }] } } : {}) },
  status: { rollout },
});
const report = (over: Partial<RuntimeAppReport>): RuntimeAppReport => ({ namespace: 'p', app: 'hello', hosts: ['hello.p'], servedGeneration: 2, observedGeneration: 2, ...over });
const split = (weight: number) => report({ servingBuildId: 'b2', rollout: { release: v2.release, weight, stable: { requests: 0, errors: 0 }, canary: { requests: 0, errors: 0 } } });
const single = report({ servingBuildId: 'b1', servedGeneration: 1 });
const progressing: RolloutStatus = { phase: 'Progressing', stable: v1, canary: v2, step: 0, weight: 10, message: 'Step 1 of 1: 10 % of traffic on build b2.' };
const aborted: RolloutStatus = {
  ...progressing,
  phase: 'Aborted',
  weight: 0,
  message: 'Analysis failed: 41 of 50 requests of build b2 failed (82 %), above the 5 % allowed. Build b1 serves all traffic.',
};

describe('desiredStatus during a rollout', () => {
  it.each<[string, RolloutStatus, RuntimeAppReport[], string, string, string]>([
    ['every replica splits at the weight', progressing, [split(10), split(10)], 'True', 'Serving', 'Builds b1 and b2 are served, 10 % of traffic on build b2.'],
    ['a replica at another weight', progressing, [split(10), split(0)], 'False', 'RollingOut', 'Moving to 10 % of traffic on build b2. 1 of 2 runtime replicas serve it.'],
    [
      'a replica serving the stable build alone yet',
      progressing,
      [split(10), single],
      'False',
      'RollingOut',
      'Rolling out build b2. The app keeps serving build b1. 1 of 2 runtime replicas serve it.',
    ],
    ['aborted: every replica serves the stable release alone', aborted, [single], 'True', 'Serving', 'Build b1 is served, the stable release of the rollout.'],
    ['aborted: a replica still splits', aborted, [single, split(10)], 'False', 'RollingOut', 'Rolling out build b1. The app keeps serving build b2. 1 of 2 runtime replicas serve it.'],
  ])('%s → Deployed=%s %s', (_name, rollout, replicas, status, reason, message) => {
    const result = desiredStatus(app(rollout), t1, { kind: 'observed', replicas, buildExists: true });
    expect(findCondition(result.conditions, 'Deployed')).toMatchObject({ status, reason, message });
  });

  it('Ready is False with the reason of the abort while the spec asks for the aborted release', () => {
    const result = desiredStatus(app(aborted), t1, { kind: 'observed', replicas: [single], buildExists: true });
    expect(findCondition(result.conditions, 'Ready')).toMatchObject({ status: 'False', reason: 'RolloutAborted', message: aborted.message });
    expect(findCondition(result.conditions, 'RolloutProgressing')).toMatchObject({ status: 'False', reason: 'Aborted', message: aborted.message });
  });

  it.each<[RolloutStatus['phase'], string]>([
    ['Progressing', 'True'],
    ['Paused', 'True'],
    ['Succeeded', 'False'],
  ])('RolloutProgressing while %s is %s', (phase, status) => {
    const result = desiredStatus(app({ ...progressing, phase }), t1, { kind: 'observed', replicas: [split(10)], buildExists: true });
    expect(findCondition(result.conditions, 'RolloutProgressing')).toMatchObject({ status, reason: phase });
  });

  it('without a rollout there is no RolloutProgressing condition and the spec is served as it is', () => {
    const before = desiredStatus(app(progressing), t1, { kind: 'observed', replicas: [split(10)], buildExists: true });
    const { rollout: _r, ...rest } = before;
    const result = desiredStatus({ ...app(progressing, false), status: rest }, t1, { kind: 'observed', replicas: [report({ servingBuildId: 'b2' })], buildExists: true });
    expect(findCondition(result.conditions, 'RolloutProgressing')).toBeUndefined();
    expect(findCondition(result.conditions, 'Ready')).toMatchObject({ status: 'True', reason: 'Serving' });
  });
});
