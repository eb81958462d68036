import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import type { AppHostname } from '../src/apis/v1alpha1/app-hostname.ts';
import type { DomainClaim, HostnameClaim } from '../src/apis/v1alpha1/domain-claim.ts';
import type { ProjectDomain } from '../src/apis/v1alpha1/project-domain.ts';
import type { RolloutStatus } from '../src/apis/v1alpha1/rollout.ts';
import { releaseOf } from '../src/runtime-contract/releases.ts';
import { BuildLoadError, type AppDeployment, type ServedApp } from './engine/index.ts';
import type { Controller } from '../src/controller-runtime/controller.ts';
import { silentLogger } from '../src/logging/log.ts';
import { MemorySource } from '../src/controller-runtime/source.ts';
import { AppRecords } from './app-records.ts';
import { servingController, type ServingEngine } from './controller.ts';
import { servingMetrics } from './metrics.ts';
import { ArtifactNotFoundError } from './s3-artifact-source.ts';

/** Serves whatever it is asked to, except builds listed in `fail`. */
class FakeEngine implements ServingEngine {
  readonly served_ = new Map<string, ServedApp>();
  readonly fail = new Map<string, () => Error>();
  deploys: AppDeployment[] = [];
  /** The fallback each deploy was given (`recordedFallback`), in order. */
  fallbacks: (AppDeployment | undefined)[] = [];
  removes: string[] = [];
  /** What `route` was told of each app (its deployment could not be made), in order. */
  routes: string[] = [];

  /** While set, deploys wait for it (a pass of the engine's that takes a while). */
  gate: Promise<void> | undefined;

  async deploy(app: AppDeployment, fallback?: AppDeployment): Promise<ServedApp> {
    this.deploys.push(app);
    await this.gate;
    this.fallbacks.push(fallback);
    const error = this.fail.get(app.buildId);
    if (error) throw error();
    const served = {
      project: app.project,
      appId: app.appId,
      buildId: app.buildId,
      hosts: [`${app.appId}.${app.project}.test`, ...app.hostnames],
      url: `https://${app.appId}.${app.project}.test`,
      maxConcurrentRequests: 100,
      ...(app.canary ? { canary: { buildId: app.canary.buildId, weight: app.canary.weight } } : {}),
    };
    this.served_.set(`${app.project}/${app.appId}`, served);
    return served;
  }

  async route(project: string, appId: string, hostnames: readonly string[]): Promise<void> {
    this.routes.push(`${project}/${appId} ${hostnames.join(' ')}`.trim());
  }

  async remove(project: string, appId: string): Promise<void> {
    this.removes.push(`${project}/${appId}`);
    this.served_.delete(`${project}/${appId}`);
  }

  served(project: string, appId: string): ServedApp | undefined {
    return this.served_.get(`${project}/${appId}`);
  }

  /** The apps served a host or asking for it: those whose last deployment named it. */
  appsAsking(host: string): string[] {
    return [...this.served_].filter(([, served]) => served.hosts.includes(host)).map(([key]) => key);
  }
}

function app(name: string, spec: Partial<RuntimeApp['spec']>, generation = 1): RuntimeApp {
  return { metadata: { name, namespace: 'p', generation }, spec: { displayName: name, ...spec } };
}

/** The serving metrics over an engine with nothing to say. */
function idleMetrics(registry: Registry, records: AppRecords) {
  return servingMetrics(
    registry,
    {
      status: () => ({ ready: true, restarts: 0, workerdStarts: 1, apps: 0, loadedWorkers: 0, loadChecks: 0, shards: [] }),
      limits: { counts: () => ({ stops: new Map(), quarantined: new Map(), saturated: new Map() }), onProbation: () => [], quarantine: () => undefined, why: () => '' },
      deployedApps: 0,
      fallbackApps: 0,
      heldRequests: 0,
      coldStartsRefused: 0,
    },
    records,
  );
}

let controller: Controller<RuntimeApp> | undefined;
afterEach(async () => controller?.stop());

async function setup() {
  const source = new MemorySource<RuntimeApp>();
  const engine = new FakeEngine();
  const records = new AppRecords();
  const reconciled: string[] = [];
  const registry = new Registry();
  controller = servingController({
    apps: source,
    engine,
    records,
    metrics: idleMetrics(registry, records),
    registry,
    log: silentLogger,
    onReconciled: (key) => reconciled.push(key),
  });
  await controller.start();
  return { source, engine, records, reconciled, registry };
}

/** Waits until `check` holds: it reads the records the reconciler writes, which no event announces. */
async function until(check: () => boolean): Promise<void> {
  await vi.waitFor(() => expect(check()).toBe(true), { timeout: 2000, interval: 5 });
}

/** Waits for one more settled reconcile of `key` than `reconciled` holds now (`onReconciled` reports each). */
async function reconciledAgain(reconciled: readonly string[], key: string, act: () => void): Promise<void> {
  const count = () => reconciled.filter((k) => k === key).length;
  const before = count();
  act();
  await until(() => count() > before);
}

describe('servingController', () => {
  it('serves the active build with the spec, and records the generation served', async () => {
    const { source, engine, records, reconciled } = await setup();
    source.upsert(app('a', { activeBuildId: 'b-1', environment: { K: 'v' }, hostnames: ['a.example.com'], maxConcurrentRequests: 5 }, 4));
    await until(() => records.get('p/a')?.servedGeneration === 4);
    expect(engine.deploys).toEqual([{ project: 'p', appId: 'a', buildId: 'b-1', env: { K: 'v' }, hostnames: ['a.example.com'], maxConcurrentRequests: 5 }]);
    expect(reconciled).toContain('p/a');
  });

  it('gives a replica that serves nothing of the app the release the others served before its new build, as its fallback', async () => {
    const { source, engine, records } = await setup();
    const served = releaseOf({ displayName: 'a', activeBuildId: 'b-old', environment: { K: 'old' } })!;
    source.upsert({ ...app('a', { activeBuildId: 'b-new', environment: { K: 'new' } }, 3), status: { served } });
    await until(() => records.get('p/a')?.servedGeneration === 3);
    expect(engine.fallbacks).toEqual([{ project: 'p', appId: 'a', buildId: 'b-old', env: { K: 'old' }, hostnames: [] }]);
    // Served here now: what it serves is its own fallback from here on.
    source.upsert({ ...app('a', { activeBuildId: 'b-newer' }, 4), status: { served } });
    await until(() => records.get('p/a')?.servedGeneration === 4);
    // The spec's build is the one served before: nothing to fall back to.
    source.upsert({ ...app('b', { activeBuildId: 'b-old', environment: { K: 'old' } }, 1), status: { served } });
    await until(() => records.get('p/b')?.servedGeneration === 1);
    expect(engine.fallbacks.slice(1)).toEqual([undefined, undefined]);
  });

  it('routes the names of a spec it cannot deploy (its database variables do not resolve), keeping what it served', async () => {
    const { source, engine, records } = await setup();
    source.upsert(app('a', { activeBuildId: 'b-1', hostnames: ['a.example.com'] }, 1));
    await until(() => records.get('p/a')?.servedGeneration === 1);
    // No Databases known here: a linked variable cannot be resolved, so nothing is deployed, and the names go to the engine.
    source.upsert(app('a', { activeBuildId: 'b-2', hostnames: ['b.example.com'], databaseEnvironment: { DB_TOKEN: { database: 'db' } } }, 2));
    await until(() => records.get('p/a')?.failure?.reason === 'DatabaseNotFound');
    expect(engine.routes).toEqual(['p/a b.example.com']);
    expect(engine.deploys.map((d) => d.buildId)).toEqual(['b-1']);
  });

  it('serves the release served before on a replica that has nothing of the app while the spec’s database variables cannot be had', async () => {
    const { source, engine, records } = await setup();
    const served = releaseOf({ displayName: 'a', activeBuildId: 'b-1', environment: { K: 'old' } })!;
    source.upsert({ ...app('a', { activeBuildId: 'b-1', environment: { K: 'old' }, databaseEnvironment: { DB_TOKEN: { database: 'db' } } }, 2), status: { served } });
    await until(() => records.get('p/a')?.failure?.reason === 'DatabaseNotFound');
    await until(() => engine.served('p', 'a') !== undefined);
    expect(engine.deploys).toEqual([{ project: 'p', appId: 'a', buildId: 'b-1', env: { K: 'old' }, hostnames: [] }]);
    expect(engine.routes).toEqual(['p/a']);
  });

  it('does not call the engine again for a converged app (resync)', async () => {
    const { source, engine, records, reconciled } = await setup();
    source.upsert(app('a', { activeBuildId: 'b-1' }));
    await until(() => records.get('p/a')?.servedGeneration === 1);
    await reconciledAgain(reconciled, 'p/a', () => controller?.enqueue('p/a'));
    expect(engine.deploys).toHaveLength(1);
  });

  it('records a build workerd refuses and does not retry that spec', async () => {
    const { source, engine, records, reconciled } = await setup();
    engine.fail.set('b-bad', () => new BuildLoadError('b-bad', 'SyntaxError: Unexpected token'));
    source.upsert(app('a', { activeBuildId: 'b-1' }, 1));
    await until(() => records.get('p/a')?.servedGeneration === 1);
    source.upsert(app('a', { activeBuildId: 'b-bad' }, 2));
    await until(() => records.get('p/a')?.failure !== undefined);
    await reconciledAgain(reconciled, 'p/a', () => source.upsert(app('a', { activeBuildId: 'b-bad' }, 2))); // e.g. the operator wrote its status
    expect(engine.deploys.filter((d) => d.buildId === 'b-bad')).toHaveLength(1);
    expect(records.get('p/a')).toEqual({
      generation: 2,
      buildId: 'b-bad',
      servedGeneration: 1,
      failure: { reason: 'BuildFailed', buildId: 'b-bad', message: 'SyntaxError: Unexpected token' },
    });
  });

  it('retries a missing artifact until it appears', async () => {
    const { source, engine, records } = await setup();
    engine.fail.set('b-1', () => new ArtifactNotFoundError('apps/p/a/builds/b-1.tar.zst'));
    source.upsert(app('a', { activeBuildId: 'b-1' }));
    await until(() => records.get('p/a')?.failure?.reason === 'BuildNotFound');
    engine.fail.delete('b-1');
    await until(() => records.get('p/a')?.servedGeneration === 1);
    expect(records.get('p/a')?.failure).toBeUndefined();
    expect(engine.deploys.length).toBeGreaterThan(1);
  });

  it('reports an app settled once it is served or refused for good, not while its deploy is retried', async () => {
    const { source, engine, records, reconciled } = await setup();
    engine.fail.set('b-1', () => new Error('object store unreachable'));
    source.upsert(app('a', { activeBuildId: 'b-1' }));
    await until(() => engine.deploys.length >= 2); // failed, then retried
    expect(records.get('p/a')?.failure?.reason).toBe('Retrying');
    expect(reconciled).not.toContain('p/a');
    engine.fail.delete('b-1');
    await until(() => reconciled.includes('p/a'));
    expect(records.get('p/a')?.servedGeneration).toBe(1);

    engine.fail.set('b-2', () => new BuildLoadError('b-2', 'SyntaxError'));
    source.upsert(app('broken', { activeBuildId: 'b-2' }));
    await until(() => reconciled.includes('p/broken'));
  });

  it('stops serving an app that loses its build or is deleted, and never touches apps it did not serve', async () => {
    const { source, engine, records, reconciled } = await setup();
    source.upsert(app('none', {}));
    await until(() => reconciled.includes('p/none'));
    expect(engine.removes).toEqual([]);

    source.upsert(app('a', { activeBuildId: 'b-1' }));
    await until(() => records.get('p/a')?.servedGeneration === 1);
    const deleted = app('a', { activeBuildId: 'b-1' });
    source.delete(deleted);
    await until(() => engine.removes.includes('p/a'));
    expect(records.has('p/a')).toBe(false);
  });

  it('exports deploy durations by result', async () => {
    const { source, records, registry } = await setup();
    source.upsert(app('a', { activeBuildId: 'b-1' }));
    await until(() => records.get('p/a')?.servedGeneration === 1);
    expect(await registry.metrics()).toMatch(/cloudwright_runtime_deploy_duration_seconds_count\{result="Served"\} 1/);
  });

  it("exports the limits' counts, each label value with 0 when nothing happened", async () => {
    const { registry } = await setup();
    const text = await registry.metrics();
    for (const series of ['shard_stops_total{kind="crash"} 0', 'saturated_windows_total{outcome="held"} 0', 'apps_quarantined{reason="MemoryLimitExceeded"} 0']) {
      expect(text).toContain(`cloudwright_runtime_${series}`);
    }
    expect(text).toMatch(/# TYPE cloudwright_runtime_apps_quarantined gauge/);
    expect(text).toMatch(/# TYPE cloudwright_runtime_saturated_windows_total counter/);
  });

  it('follows the rollout the status records: a split, a weight change without a new generation, then the stable release alone', async () => {
    const { source, engine, records, reconciled } = await setup();
    const v1 = { displayName: 'a', activeBuildId: 'b-1', environment: { GREETING: 'old' } };
    const v2 = { displayName: 'a', activeBuildId: 'b-2', environment: { GREETING: 'new' } };
    const stable = releaseOf(v1)!;
    const canary = releaseOf(v2)!;
    const inRollout = (status: Partial<RolloutStatus>): RuntimeApp => ({
      ...app('a', { ...v2, rollout: { steps: [{ weight: 10 }, { weight: 50 }], affinity: { header: 'X-User' } } }, 2),
      status: { rollout: { phase: 'Progressing', stable, canary, step: 0, weight: 10, ...status } },
    });
    source.upsert(inRollout({}));
    await until(() => records.get('p/a')?.rollout?.weight === 10);
    expect(engine.deploys.at(-1)).toEqual({
      project: 'p',
      appId: 'a',
      buildId: 'b-1',
      env: { GREETING: 'old' },
      hostnames: [],
      canary: { buildId: 'b-2', env: { GREETING: 'new' }, weight: 10, affinity: { header: 'x-user' } },
    });
    expect(records.get('p/a')).toMatchObject({ servedGeneration: 2, rollout: { release: canary.release, weight: 10 } });

    source.upsert(inRollout({ step: 1, weight: 50 })); // the operator stepped: same generation
    await until(() => records.get('p/a')?.rollout?.weight === 50);
    expect(engine.deploys.at(-1)?.canary?.weight).toBe(50);

    source.upsert(inRollout({ phase: 'Aborted', weight: 0, step: 1 })); // all traffic back to the stable release
    await until(() => engine.deploys.at(-1)?.canary === undefined);
    expect(engine.deploys.at(-1)).toEqual({ project: 'p', appId: 'a', buildId: 'b-1', env: { GREETING: 'old' }, hostnames: [] });
    await until(() => records.get('p/a')?.rollout === undefined && records.get('p/a')?.servedGeneration === 2);
    // Converged on the plan: a resync deploys nothing.
    const deploys = engine.deploys.length;
    await reconciledAgain(reconciled, 'p/a', () => controller?.enqueue('p/a'));
    expect(engine.deploys).toHaveLength(deploys);
  });
});

describe('servingController and the name claims', () => {
  async function claimsWorld() {
    const source = new MemorySource<RuntimeApp>();
    const hostnames = new MemorySource<AppHostname>();
    const domains = new MemorySource<ProjectDomain>();
    const domainClaims = new MemorySource<DomainClaim>();
    const hostnameClaims = new MemorySource<HostnameClaim>();
    const engine = new FakeEngine();
    const records = new AppRecords();
    const registry = new Registry();
    const asked: string[] = [];
    const zones: string[] = [];
    controller = servingController({
      apps: source,
      hostnames,
      names: {
        domains,
        domainClaims,
        hostnameClaims,
        baseDomain: 'apps.test',
        appsNamed: (host) => (asked.push(host), host === 'shop.example.com' ? ['p/a'] : []),
        appsInZone: (zone) => (zones.push(zone), zone === 'shop.test' ? ['p/a'] : []),
      },
      engine,
      records,
      metrics: idleMetrics(registry, records),
      registry,
      log: silentLogger,
    });
    await controller.start();
    return { source, hostnames, domains, domainClaims, hostnameClaims, engine, asked, zones };
  }

  it('serves a custom host name once its claim comes, re-checking only the apps the name may belong to', async () => {
    const { source, hostnames, hostnameClaims, engine, asked } = await claimsWorld();
    source.upsert(app('a', { activeBuildId: 'b-1' }));
    source.upsert(app('b', { activeBuildId: 'b-1' }));
    hostnames.upsert({ metadata: { namespace: 'p', name: 'shop.example.com' }, spec: { hostname: 'shop.example.com', appRef: { name: 'a' } }, status: { state: 'active' } } as AppHostname);
    await until(() => engine.deploys.some((d) => d.appId === 'a') && engine.deploys.some((d) => d.appId === 'b'));
    expect(engine.served('p', 'a')?.hosts).toEqual(['a.p.test']); // held by no project yet
    const deploysOfB = engine.deploys.filter((d) => d.appId === 'b').length;
    asked.length = 0;

    hostnameClaims.upsert({ metadata: { name: 'shop.example.com' }, spec: { name: 'shop.example.com', holder: { kind: 'AppHostname', namespace: 'p', name: 'shop.example.com', uid: 'u' } } });
    await until(() => engine.served('p', 'a')?.hosts.includes('shop.example.com') === true);
    expect(asked).toEqual(['shop.example.com']);
    expect(engine.deploys.filter((d) => d.appId === 'b')).toHaveLength(deploysOfB);
  });

  it('deploys an app served at its generation again when a claim admits one of its deploy host names, and when it goes', async () => {
    const { source, domains, domainClaims, engine, zones } = await claimsWorld();
    source.upsert(app('a', { activeBuildId: 'b-1', hostnames: ['www.shop.test'] }));
    source.upsert(app('other', { activeBuildId: 'b-1' }));
    await until(() => engine.served('p', 'a') !== undefined && engine.served('p', 'other') !== undefined);
    const deploysOfOther = engine.deploys.filter((d) => d.appId === 'other').length;
    expect(engine.served('p', 'a')?.hosts).toEqual(['a.p.test']); // nobody holds shop.test yet
    domains.upsert({ metadata: { namespace: 'p', name: 'shop-test' }, spec: { domain: 'shop.test' }, status: { state: 'managed', hostedZoneId: 'Z1' } } as ProjectDomain);
    const claim: DomainClaim = { metadata: { name: 'shop.test' }, spec: { name: 'shop.test', holder: { kind: 'ProjectDomain', namespace: 'p', name: 'shop-test', uid: 'u' } } };
    domainClaims.upsert(claim);
    await until(() => engine.served('p', 'a')?.hosts.includes('www.shop.test') === true);
    domainClaims.delete(claim);
    await until(() => engine.served('p', 'a')?.hosts.includes('www.shop.test') === false);
    // The claim re-checked the apps with a name in its zone (from the indexes), not every app.
    expect(zones).toEqual(['shop.test', 'shop.test']);
    expect(engine.deploys.filter((d) => d.appId === 'other')).toHaveLength(deploysOfOther);
  });

  it('applies a change at the same generation whose first deploy failed (a claim admitting a name, then a refused table)', async () => {
    const { source, hostnames, hostnameClaims, engine } = await claimsWorld();
    source.upsert(app('a', { activeBuildId: 'b-1' }));
    await until(() => engine.served('p', 'a') !== undefined);
    engine.fail.set('b-1', () => {
      engine.fail.delete('b-1'); // once: the retry goes through
      return new Error('workerd refused its routing table');
    });
    const holder = { kind: 'AppHostname' as const, namespace: 'p', name: 'late.example.com', uid: 'u' };
    hostnames.upsert({ metadata: { namespace: 'p', name: 'late.example.com' }, spec: { hostname: 'late.example.com', appRef: { name: 'a' } }, status: { state: 'active' } } as AppHostname);
    hostnameClaims.upsert({ metadata: { name: 'late.example.com' }, spec: { name: 'late.example.com', holder } });
    await until(() => engine.served('p', 'a')?.hosts.includes('late.example.com') === true);
  });

  it('takes a custom host name from the app that has it when its AppHostname moves to another app', async () => {
    const { source, hostnames, hostnameClaims, engine } = await claimsWorld();
    source.upsert(app('a', { activeBuildId: 'b-1' }));
    source.upsert(app('b', { activeBuildId: 'b-1' }));
    const holder = { kind: 'AppHostname' as const, namespace: 'p', name: 'moved.example.com', uid: 'u' };
    hostnameClaims.upsert({ metadata: { name: 'moved.example.com' }, spec: { name: 'moved.example.com', holder } });
    const attachedTo = (appName: string) =>
      ({ metadata: { namespace: 'p', name: 'moved.example.com' }, spec: { hostname: 'moved.example.com', appRef: { name: appName } }, status: { state: 'active' } }) as AppHostname;
    hostnames.upsert(attachedTo('a'));
    await until(() => engine.served('p', 'a')?.hosts.includes('moved.example.com') === true);

    hostnames.upsert(attachedTo('b')); // appRef changed: the event and the index name b; a is the app routed the name
    await until(() => engine.served('p', 'b')?.hosts.includes('moved.example.com') === true);
    await until(() => engine.served('p', 'a')?.hosts.includes('moved.example.com') === false);
  });

  it('takes a moved custom host name from the app it named while that app’s deploy is still waiting for the engine (review-142 M1)', async () => {
    const { source, hostnames, hostnameClaims, engine } = await claimsWorld();
    source.upsert(app('a', { activeBuildId: 'b-1' }));
    source.upsert(app('b', { activeBuildId: 'b-1' }));
    await until(() => engine.served('p', 'a') !== undefined && engine.served('p', 'b') !== undefined);
    const holder = { kind: 'AppHostname' as const, namespace: 'p', name: 'moved.example.com', uid: 'u' };
    hostnameClaims.upsert({ metadata: { name: 'moved.example.com' }, spec: { name: 'moved.example.com', holder } });
    const attachedTo = (appName: string) =>
      ({ metadata: { namespace: 'p', name: 'moved.example.com' }, spec: { hostname: 'moved.example.com', appRef: { name: appName } }, status: { state: 'active' } }) as AppHostname;
    // a's deploy with the name waits for the engine: the name is not routed to a yet when it moves to b.
    let open = () => {};
    engine.gate = new Promise((resolve) => (open = resolve));
    hostnames.upsert(attachedTo('a'));
    await until(() => engine.deploys.some((d) => d.appId === 'a' && d.hostnames.includes('moved.example.com')));
    hostnames.upsert(attachedTo('b'));
    engine.gate = undefined;
    open();
    await until(() => engine.served('p', 'b')?.hosts.includes('moved.example.com') === true);
    await until(() => engine.served('p', 'a')?.hosts.includes('moved.example.com') === false);
  });
});
