import { describe, expect, it } from 'vitest';
import type { Build } from '../apis/v1alpha1/build.ts';
import type { RuntimeApp } from '../apis/v1alpha1/runtime-app.ts';
import { appView, buildView, newestFirst, UPLOADED_AT_ANNOTATION } from './app-view.ts';

function build(buildId: string, uploadedAt?: string, created = '2026-01-01T00:00:00Z'): Build {
  return {
    metadata: { name: `web-${buildId}`, namespace: 'p1', creationTimestamp: created, ...(uploadedAt ? { annotations: { [UPLOADED_AT_ANNOTATION]: uploadedAt } } : {}) },
    spec: { app: 'web', buildId, digest: 'ab'.repeat(32), size: 42, objectKey: `apps/p1/web/builds/${buildId}.tar.zst` },
  };
}

const app: RuntimeApp = {
  metadata: { name: 'web', namespace: 'p1', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { displayName: 'Web', activeBuildId: 'b-2', hostnames: ['shop.example.com'] },
};

describe('app views', () => {
  it('orders builds by upload time to the millisecond, newest first, then by id', () => {
    const builds = [build('b-1', '2026-01-01T00:00:00.100Z'), build('b-3', '2026-01-01T00:00:00.900Z'), build('b-2', '2026-01-01T00:00:00.900Z'), build('b-0')];
    expect(newestFirst(builds).map((b) => b.spec.buildId)).toEqual(['b-2', 'b-3', 'b-1', 'b-0']);
  });

  it('shows an app: default host first, no status until the runtime reports one', () => {
    expect(appView(app, [build('b-1', '2026-01-01T00:00:01Z'), build('b-2', '2026-01-01T00:00:02Z')], 'apps.localhost')).toStrictEqual({
      app_id: 'web',
      name: 'Web',
      active_build_id: 'b-2',
      builds: [{ build_id: 'b-2' }, { build_id: 'b-1' }],
      hosts: ['web.p1.apps.localhost', 'shop.example.com'],
      ready: false,
      https: { redirect_http: false },
      created_at: '2026-01-01T00:00:00Z',
    });
  });

  it('shows the HTTPS settings, with the defaults of what the spec leaves out', () => {
    const secured: RuntimeApp = { ...app, spec: { ...app.spec, https: { redirectHttp: true, hsts: { includeSubdomains: true } } } };
    expect(appView(secured, [], 'apps.localhost').https).toEqual({ redirect_http: true, hsts: { max_age_seconds: 31_536_000, include_subdomains: true, preload: false } });
  });

  it('shows what the runtime reports', () => {
    const served: RuntimeApp = {
      ...app,
      status: {
        url: 'http://web.p1.apps.localhost',
        conditions: [{ type: 'Ready', status: 'True', reason: 'Serving', message: 'Serving b-2.', lastTransitionTime: '2026-01-01T00:00:00Z' }],
      },
    };
    expect(appView(served, [], 'apps.localhost')).toMatchObject({ url: 'http://web.p1.apps.localhost', ready: true, status_reason: 'Serving', status_message: 'Serving b-2.' });
  });

  it('is not ready while the Ready condition describes an earlier generation (a deploy just written)', () => {
    const status = {
      servingBuildId: 'b-1',
      conditions: [{ type: 'Ready', status: 'True' as const, reason: 'Serving', message: 'Build b-1 is served.', observedGeneration: 2, lastTransitionTime: '2026-01-01T00:00:00Z' }],
    };
    const deployed: RuntimeApp = { ...app, metadata: { ...app.metadata, generation: 3 }, status };
    expect(appView(deployed, [], 'apps.localhost')).toMatchObject({ active_build_id: 'b-2', serving_build_id: 'b-1', ready: false });
    const settled: RuntimeApp = { ...deployed, metadata: { ...deployed.metadata, generation: 2 } };
    expect(appView(settled, [], 'apps.localhost')).toMatchObject({ ready: true });
  });

  it('shows a build with its digest and whether it is active', () => {
    expect(buildView(build('b-2', '2026-01-01T00:00:02.5Z'), 'b-2')).toStrictEqual({
      build_id: 'b-2',
      created_at: '2026-01-01T00:00:02.5Z',
      size: 42,
      digest: `sha256:${'ab'.repeat(32)}`,
      active: true,
    });
    expect(buildView(build('b-1'), 'b-2')).toMatchObject({ created_at: '2026-01-01T00:00:00Z', active: false });
  });

  it('shows the deploy options a build recorded, and none for a build that recorded none', () => {
    const recorded = build('b-3');
    recorded.spec.deployOptions = { hostnames: ['www.example.com'], maxConcurrentRequests: 5 };
    expect(buildView(recorded, 'b-2').deploy_options).toStrictEqual({ hostnames: ['www.example.com'], max_concurrent_requests: 5 });
    expect('deploy_options' in buildView(build('b-1'), 'b-2')).toBe(false);
  });
});
