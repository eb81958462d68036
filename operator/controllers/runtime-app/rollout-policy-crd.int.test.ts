// The RuntimeApp CRD against the real apiserver: a rollout policy it cannot carry out is refused at the
// door, with the field named, whoever writes it (the API, kubectl, a GitOps tool).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RolloutPolicy } from '../../../src/apis/v1alpha1/rollout.ts';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { KubeApiError } from '../../../src/kube/api-error.ts';
import { objectClient } from '../../../src/kube/index.ts';
import { testConnection, testNamespace } from '../../../src/kube/testing/test-kube.ts';
import { RUNTIME_APPS } from '../../../src/platform/resources.ts';

const conn = testConnection();
const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
let namespace: { name: string; remove: () => Promise<void> };

beforeAll(async () => {
  namespace = await testNamespace(conn, 'rollout-crd');
});
afterAll(async () => {
  await namespace?.remove();
});

let n = 0;
const create = (rollout: unknown) => apps.create({ metadata: { name: `app-${++n}`, namespace: namespace.name }, spec: { displayName: 'a', activeBuildId: 'b1', rollout: rollout as RolloutPolicy } });
const refusal = async (rollout: unknown): Promise<KubeApiError> => {
  const err = await create(rollout).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(KubeApiError);
  expect((err as KubeApiError).code).toBe(422);
  return err as KubeApiError;
};

describe('the RuntimeApp CRD refuses rollout policies it cannot carry out', () => {
  it('accepts a full policy', async () => {
    const policy: RolloutPolicy = {
      steps: [{ weight: 0, pause: {} }, { weight: 10, pause: { duration: '30s' } }, { weight: 50, pause: { duration: '1h30m' } }, { weight: 100 }],
      affinity: { header: 'x-user' },
      analysis: { interval: '1m', minRequests: 20, maxErrorPercent: 5, maxPercentAboveStable: 2.5, failureLimit: 1 },
      onFailure: 'Pause',
    };
    expect((await create(policy)).spec.rollout).toEqual(policy);
  });

  it.each<[string, unknown, string]>([
    ['a weight above 100', { steps: [{ weight: 101 }] }, 'spec.rollout.steps[0].weight'],
    ['a negative weight', { steps: [{ weight: 10 }, { weight: -1 }] }, 'spec.rollout.steps[1].weight'],
    ['weights that decrease', { steps: [{ weight: 50 }, { weight: 10 }] }, 'spec.rollout.steps'],
    ['a weight repeated', { steps: [{ weight: 10 }, { weight: 10 }] }, 'spec.rollout.steps'],
    ['a pause that does not parse', { steps: [{ weight: 10, pause: { duration: '5 minutes' } }] }, 'spec.rollout.steps[0].pause.duration'],
    ['an analysis interval that does not parse', { steps: [{ weight: 10 }], analysis: { interval: '1d', minRequests: 10, maxErrorPercent: 5 } }, 'spec.rollout.analysis.interval'],
    ['analysis without minRequests', { steps: [{ weight: 10 }], analysis: { maxErrorPercent: 5 } }, 'spec.rollout.analysis.minRequests'],
    ['analysis without a threshold', { steps: [{ weight: 10 }], analysis: { minRequests: 10 } }, 'spec.rollout.analysis'],
    ['affinity by both cookie and header', { steps: [{ weight: 10 }], affinity: { cookie: 'c', header: 'h' } }, 'spec.rollout.affinity'],
    ['no steps', { steps: [] }, 'spec.rollout.steps'],
  ])('%s, naming %s', async (_name, rollout, field) => {
    const err = await refusal(rollout);
    expect(err.message).toContain(field);
  });

  it('says why in the words of the rule', async () => {
    expect((await refusal({ steps: [{ weight: 50 }, { weight: 10 }] })).message).toContain('step weights must increase');
    expect((await refusal({ steps: [{ weight: 10 }], analysis: { minRequests: 10 } })).message).toContain('analysis needs maxErrorPercent or maxPercentAboveStable');
    expect((await refusal({ steps: [{ weight: 10 }], affinity: { cookie: 'c', header: 'h' } })).message).toContain('affinity is a cookie or a header, not both');
  });
});
