import { describe, expect, it } from 'vitest';
import type { PreparedBuild } from './build-store.ts';
import { routedApp, servedApp, type Served } from './served.ts';
import { silentRuntimeLogger } from '../../src/runtime-contract/log.ts';
import { HostAssignment } from '../../src/runtime-contract/host-assignment.ts';

const build = { buildId: 'b1', digest: 'd', unpackedBytes: 1, modules: [], assetConfig: {}, compatibilityDate: '2025-01-01', compatibilityFlags: [] } as unknown as PreparedBuild;
function served(maxConcurrentRequests?: number, tailed = false): Served {
  return { live: { app: { project: 'p', appId: 'web', buildId: 'b1', env: {}, hostnames: [], ...(maxConcurrentRequests ? { maxConcurrentRequests } : {}) }, build }, id: 'p/web@b1~f~0', tailed };
}

describe('routedApp', () => {
  it.each<[string, Served, { defaultMaxConcurrentRequests?: number; queueDepthFactor?: number }, object]>([
    ['the default limit and a queue as deep', served(), {}, { limit: 100, depth: 100 }],
    ["the engine's default", served(), { defaultMaxConcurrentRequests: 7 }, { limit: 7, depth: 7 }],
    ["the app's own limit over the default", served(3), { defaultMaxConcurrentRequests: 7 }, { limit: 3, depth: 3 }],
    ['a queue as a rounded-up multiple', served(3), { queueDepthFactor: 0.5 }, { limit: 3, depth: 2 }],
    ['no queue', served(3), { queueDepthFactor: 0 }, { limit: 3, depth: 0 }],
    ['a queue of 256 at most, whatever the limit (found in review: 2,000 waiters saturated the shard)', served(2000), {}, { limit: 2000, depth: 256 }],
  ])('%s', (_name, s, o, want) => {
    expect(routedApp(s, { baseDomain: 'apps.test', ...o })).toEqual({ id: 'p/web@b1~f~0', build: 'b1', ...want });
  });

  it('marks an app followed by the tail worker', () => {
    expect(routedApp(served(undefined, true), { baseDomain: 'apps.test' }).tailed).toBe(true);
    expect(routedApp(served(), { baseDomain: 'apps.test' })).not.toHaveProperty('tailed');
  });
});

describe('servedApp', () => {
  it('says the default host first, the hosts assigned to it, and the public URL', () => {
    const assignment = new HostAssignment('apps.test', silentRuntimeLogger);
    assignment.set('p/web', { project: 'p', appId: 'web', hostnames: ['www.example.com'] });
    assignment.set('p/other', { project: 'p', appId: 'other', hostnames: ['other.example.com'] });
    expect(servedApp('p/web', served(5), assignment, { baseDomain: 'apps.test', publicScheme: 'http', publicPort: 8080 })).toEqual({
      project: 'p',
      appId: 'web',
      buildId: 'b1',
      hosts: ['web.p.apps.test', 'www.example.com'],
      url: 'http://web.p.apps.test:8080',
      maxConcurrentRequests: 5,
    });
  });

  it('is https without a port by default', () => {
    expect(servedApp('p/web', served(), new HostAssignment('apps.test', silentRuntimeLogger), { baseDomain: 'apps.test' })).toMatchObject({
      url: 'https://web.p.apps.test',
      maxConcurrentRequests: 100,
    });
  });
});
