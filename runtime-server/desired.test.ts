import { describe, expect, it } from 'vitest';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { deploymentOf, linkedEntries, planSignature } from './desired.ts';
import type { RolloutStatus } from '../src/apis/v1alpha1/rollout.ts';
import { releaseOf, servingPlan } from '../src/runtime-contract/releases.ts';

function app(spec: Partial<RuntimeApp['spec']>, metadata: RuntimeApp['metadata'] = {}): RuntimeApp {
  return { metadata: { name: 'hello', namespace: 'proj', generation: 3, ...metadata }, spec: { displayName: 'Hello', ...spec } };
}

describe('deploymentOf', () => {
  it('serves the active build with the environment, host names and limit', () => {
    expect(deploymentOf(app({ activeBuildId: 'b-1', environment: { GREETING: 'hi' }, hostnames: ['www.example.com'], maxConcurrentRequests: 7 }))).toEqual({
      project: 'proj',
      appId: 'hello',
      buildId: 'b-1',
      env: { GREETING: 'hi' },
      hostnames: ['www.example.com'],
      maxConcurrentRequests: 7,
    });
  });

  it('defaults to no environment, no extra hosts and the runtime default limit', () => {
    const deployment = deploymentOf(app({ activeBuildId: 'b-1' }));
    expect(deployment).toEqual({ project: 'proj', appId: 'hello', buildId: 'b-1', env: {}, hostnames: [] });
    expect(deployment && 'maxConcurrentRequests' in deployment).toBe(false);
  });

  it.each([
    ['a missing app', undefined],
    ['an app without a build', app({})],
    ['an app being deleted', app({ activeBuildId: 'b-1' }, { deletionTimestamp: '2026-01-01T00:00:00Z' })],
  ])('serves nothing for %s', (_name, input) => {
    expect(deploymentOf(input)).toBeUndefined();
  });
});

describe('deploymentOf with linked variables', () => {
  it('adds the values read for spec.databaseEnvironment to the plain environment', () => {
    const linked = app({ activeBuildId: 'b-1', environment: { A: 'a' }, databaseEnvironment: { DB: { database: 'orders' } } });
    expect(deploymentOf(linked, [], { DB: 'cwdb_token' })?.env).toEqual({ A: 'a', DB: 'cwdb_token' });
  });

  describe('during a rollout (status.rollout)', () => {
    const v1 = { displayName: 'Hello', activeBuildId: 'b-1', environment: { GREETING: 'old' }, databaseEnvironment: { DB: { database: 'main' } } };
    const v2 = { displayName: 'Hello', activeBuildId: 'b-2', environment: { GREETING: 'new' } };
    const stable = releaseOf(v1)!;
    const rolling = (phase: RolloutStatus['phase'], weight: number): RuntimeApp => ({
      ...app({ ...v2, hostnames: ['www.example.com'], maxConcurrentRequests: 9, rollout: { steps: [{ weight: 20 }] } }),
      status: { rollout: { phase, stable, canary: releaseOf(v2)!, step: 0, weight } },
    });

    it('splits the stable release and the spec at the weight, each with its own linked variables', () => {
      expect(deploymentOf(rolling('Paused', 20), ['shop.example.com'], { DB: 'stable-url' }, { X: 'canary' })).toEqual({
        project: 'proj',
        appId: 'hello',
        buildId: 'b-1',
        env: { GREETING: 'old', DB: 'stable-url' },
        hostnames: ['www.example.com', 'shop.example.com'],
        maxConcurrentRequests: 9,
        canary: { buildId: 'b-2', env: { GREETING: 'new', X: 'canary' }, weight: 20, affinity: { cookie: 'cw-rollout' } },
      });
      expect(linkedEntries(rolling('Paused', 20))).toEqual({ serving: { DB: { database: 'main' } } });
    });

    it('serves the stable release alone once aborted, with the spec’s hosts and limit', () => {
      expect(deploymentOf(rolling('Aborted', 0), [], { DB: 'stable-url' })).toEqual({
        project: 'proj',
        appId: 'hello',
        buildId: 'b-1',
        env: { GREETING: 'old', DB: 'stable-url' },
        hostnames: ['www.example.com'],
        maxConcurrentRequests: 9,
      });
      expect(planSignature(servingPlan(rolling('Aborted', 0)))).toBe(`single ${stable.release}`);
      expect(planSignature(servingPlan(rolling('Progressing', 20)))).not.toBe(planSignature(servingPlan(rolling('Progressing', 50))));
    });
  });
});
