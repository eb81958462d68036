// The RuntimeApp CRD against the real apiserver: a rollout policy it cannot carry out, and an environment past the
// API's bound in bytes, are refused at the door, with the field named, whoever writes them (the API, kubectl, a
// GitOps tool).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RolloutPolicy } from '../../../src/apis/v1alpha1/rollout.ts';
import { MAX_ENVIRONMENT_BYTES, type RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
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
const createWith = (spec: Partial<RuntimeApp['spec']>) => apps.create({ metadata: { name: `app-${++n}`, namespace: namespace.name }, spec: { displayName: 'a', ...spec } });
const create = (rollout: unknown) => createWith({ activeBuildId: 'b1', rollout: rollout as RolloutPolicy });
const refusal = async (rollout: unknown, written = create(rollout)): Promise<KubeApiError> => {
  const err = await written.then(
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

/** `count` variables `V0…` whose values repeat `char` `length` times. */
const variables = (count: number, char: string, length: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`V${i}`, char.repeat(length)]));

// Every runtime replica keeps every app's environment in memory: it is bounded however the app is written.
describe('the RuntimeApp CRD bounds the environment in bytes, as the API does', () => {
  it('accepts an environment of just under the bound', async () => {
    // 16 values of 4,000 bytes and their two- or three-byte names: 64,038 bytes.
    const environment = variables(16, 'x', 4000);
    expect((await createWith({ environment })).spec.environment).toEqual(environment);
  });

  it.each<[string, Record<string, string>]>([
    ['17 values of 4,000 characters', variables(17, 'x', 4000)],
    // 40,000 characters, but 80,000 bytes of UTF-8: bytes are what is counted.
    ['10 values of 4,000 two-byte characters', variables(10, 'é', 4000)],
  ])('refuses %s, naming the field and the bound', async (_name, environment) => {
    const err = await refusal(undefined, createWith({ environment }));
    expect(err.message).toContain('spec.environment');
    expect(err.message).toContain(`at most ${MAX_ENVIRONMENT_BYTES} bytes`);
  });
});
