import { describe, expect, it } from 'vitest';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { deploymentOf } from './desired.ts';

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
});
