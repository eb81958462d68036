import { describe, expect, it } from 'vitest';
import type { AppHostname } from '../src/apis/v1alpha1/app-hostname.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { isActiveHostname } from '../src/platform/host-admission.ts';
import { releaseOf, servingPlan } from '../src/runtime-contract/releases.ts';
import { CREATED_BY_USER_ANNOTATION } from '../src/apis/v1alpha1/project.ts';
import { projectAccount } from '../src/platform/project-account.ts';
import { projectAccountView, projectAppHostname, projectRuntimeApp } from './cache-projections.ts';
import { refusedBefore } from './recorded-fallback.ts';

const metadata = {
  name: 'web',
  namespace: 'p',
  uid: 'u-1',
  generation: 2,
  resourceVersion: '7',
  labels: { 'cloudwright.dev/project': 'p' },
  annotations: { 'cloudwright.dev/pushed-seq': '4' },
  finalizers: ['cloudwright.dev/runtime-app-artifacts'],
  creationTimestamp: '2026-01-01T00:00:00Z',
};

describe('projectRuntimeApp', () => {
  it('keeps what the serving plan reads and drops the status and metadata written for others', () => {
    const served = releaseOf({ displayName: 'web', activeBuildId: 'b-old' })!;
    const app: RuntimeApp = {
      apiVersion: 'cloudwright.dev/v1alpha1',
      kind: 'RuntimeApp',
      metadata,
      spec: { displayName: 'web', activeBuildId: 'b-new', migrations: { buildId: 'b-new', database: 'notes', checksum: 'a'.repeat(64) } },
      status: {
        served,
        migrations: { buildId: 'b-new', database: 'notes', checksum: 'a'.repeat(64), phase: 'Pending' },
        conditions: [{ type: 'Ready', status: 'True', reason: 'Serving', message: 'ok', lastTransitionTime: '2026-01-01T00:00:00Z' }],
        history: [{ buildId: 'b-old', activatedAt: '2026-01-01T00:00:00Z' }],
        url: 'https://web.example',
        hosts: ['web.example'],
      },
    };
    const projected = projectRuntimeApp(app);
    expect(servingPlan(projected)).toEqual(servingPlan(app));
    // Its creation too: only a project's fresh apps count toward holding it back (engine/app-limits.ts).
    expect(projected.metadata).toEqual({ name: 'web', namespace: 'p', generation: 2, resourceVersion: '7', creationTimestamp: '2026-01-01T00:00:00Z' });
    expect(projected.spec).toEqual(app.spec);
    expect(Object.keys(projected.status ?? {}).sort()).toEqual(['migrations', 'served']);
  });

  it('keeps the release served before while it names another build than the spec (a fallback for a replica that served none)', () => {
    const served = releaseOf({ displayName: 'web', activeBuildId: 'b-old', environment: { A: '1' } })!;
    const app = (activeBuildId: string): RuntimeApp => ({ metadata, spec: { displayName: 'web', activeBuildId }, status: { served, hosts: ['web.example'] } });
    expect(projectRuntimeApp(app('b-new')).status).toEqual({ served });
    // Once the spec's build is the one served, a status write of it is nothing the replica keeps.
    expect(projectRuntimeApp(app('b-old')).status).toBeUndefined();
    // The same build with other database variables: kept too (`servedInstead`, while the spec's cannot be had).
    const linked: RuntimeApp = { metadata, spec: { displayName: 'web', activeBuildId: 'b-old', databaseEnvironment: { DB_TOKEN: { database: 'db' } } }, status: { served } };
    expect(projectRuntimeApp(linked).status).toEqual({ served });
  });

  it('keeps a Ready condition saying the spec as it is was refused, without its message, and no other (found by a hostile run)', () => {
    const ready = (reason: string, observedGeneration: number) => ({
      type: 'Ready',
      status: 'False' as const,
      reason,
      message: 'Build b-new cannot be served: …',
      lastTransitionTime: '2026-01-01T00:00:00Z',
      observedGeneration,
    });
    const app = (condition: ReturnType<typeof ready>): RuntimeApp => ({ metadata, spec: { displayName: 'web', activeBuildId: 'b-new' }, status: { conditions: [condition] } });
    const refused = projectRuntimeApp(app(ready('BuildFailed', 2)));
    expect(refused.status).toEqual({ conditions: [{ ...ready('BuildFailed', 2), message: '' }] });
    expect(refusedBefore(refused)).toBe(true);
    // Of an earlier generation, or another reason: nothing kept.
    expect(projectRuntimeApp(app(ready('BuildFailed', 1))).status).toBeUndefined();
    expect(projectRuntimeApp(app(ready('RollingOut', 2))).status).toBeUndefined();
  });

  it('shares the spec’s environment with the release served before where they are equal (a new build deployed alone)', () => {
    const served = releaseOf({ displayName: 'web', activeBuildId: 'b-old', environment: { A: '1' }, databaseEnvironment: { DB: { database: 'main' } } })!;
    const spec = { displayName: 'web', activeBuildId: 'b-new', environment: { A: '1' }, databaseEnvironment: { DB: { database: 'main' } } };
    const projected = projectRuntimeApp({ metadata, spec, status: { served } } as RuntimeApp);
    expect(projected.status?.served).toEqual(served);
    expect(projected.status?.served?.environment).toBe(projected.spec.environment);
    expect(projected.status?.served?.databaseEnvironment).toBe(projected.spec.databaseEnvironment);
    // A changed environment is the release's own.
    const changed = projectRuntimeApp({ metadata, spec: { ...spec, environment: { A: '2' } }, status: { served } } as RuntimeApp);
    expect(changed.status?.served?.environment).toEqual({ A: '1' });
  });

  it('keeps a deletion, so an app being deleted is not served', () => {
    const deleting = projectRuntimeApp({ metadata: { ...metadata, deletionTimestamp: '2026-01-02T00:00:00Z' }, spec: { displayName: 'web' } } as RuntimeApp);
    expect(deleting.metadata?.deletionTimestamp).toBe('2026-01-02T00:00:00Z');
  });
});

describe('projectAppHostname', () => {
  const hostname = (state: 'pending' | 'active', deletionTimestamp?: string): AppHostname => ({
    apiVersion: 'cloudwright.dev/v1alpha1',
    kind: 'AppHostname',
    metadata: { ...metadata, name: 'shop-example-com', ...(deletionTimestamp ? { deletionTimestamp } : {}) },
    spec: { hostname: 'shop.example.com', appRef: { name: 'web' }, dnsMode: 'external_records', finalize: true },
    status: {
      state,
      conditions: [{ type: 'Ready', status: 'True', reason: 'Attached', message: 'ok', lastTransitionTime: '2026-01-01T00:00:00Z' }],
    } as AppHostname['status'],
  });

  it('keeps the host, the app and whether it is active, and nothing of the DNS or the status besides', () => {
    const projected = projectAppHostname(hostname('active'));
    expect(projected.spec).toEqual({ hostname: 'shop.example.com', appRef: { name: 'web' } });
    expect(projected.status).toEqual({ state: 'active' });
    expect(projected.metadata).toEqual({ name: 'shop-example-com', namespace: 'p', generation: 2, resourceVersion: '7' });
  });

  it('answers isActiveHostname as the whole object does', () => {
    for (const h of [hostname('active'), hostname('pending'), hostname('active', '2026-01-02T00:00:00Z')]) expect(isActiveHostname(projectAppHostname(h))).toBe(isActiveHostname(h));
  });
});

describe('projectAccountView', () => {
  it('keeps the name and who created the project, and answers projectAccount as the whole object does', () => {
    const whole = {
      apiVersion: 'cloudwright.dev/v1alpha1',
      kind: 'Project',
      metadata: { name: 'shop', resourceVersion: '9', uid: 'u-9', annotations: { [CREATED_BY_USER_ANNOTATION]: 'ada', 'cloudwright.dev/audit-from': 'x' } },
      spec: { displayName: 'Shop', members: [{ user: 'ada', role: 'owner' as const }] },
      status: { namespace: 'shop' },
    };
    const view = projectAccountView(whole);
    expect(view.metadata).toEqual({ name: 'shop', resourceVersion: '9', annotations: { [CREATED_BY_USER_ANNOTATION]: 'ada' } });
    expect(projectAccount('shop', view)).toBe(projectAccount('shop', whole));
    expect(projectAccount('shop', view)).toBe('user:ada');
    const applied = projectAccountView({ ...whole, metadata: { name: 'applied' } });
    expect(projectAccount('applied', applied)).toBe('project:applied');
  });
});
