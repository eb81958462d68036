import { describe, expect, it } from 'vitest';
import type { AppHostname } from '../src/apis/v1alpha1/app-hostname.ts';
import type { DomainClaim, HostnameClaim } from '../src/apis/v1alpha1/domain-claim.ts';
import type { ProjectDomain } from '../src/apis/v1alpha1/project-domain.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { silentLogger } from '../src/logging/log.ts';
import type { AppDeployment } from './engine/index.ts';
import { UnlistedApps, type UnlistedAppsOptions, type UnlistedReads } from './unlisted-apps.ts';

const BASE = 'apps.test';

function app(namespace: string, name: string, spec: Partial<RuntimeApp['spec']> = {}, resourceVersion = '1'): RuntimeApp {
  return { metadata: { name, namespace, generation: 1, resourceVersion }, spec: { displayName: name, activeBuildId: 'b1', ...spec } };
}

function claim(name: string, kind: 'AppHostname' | 'ProjectDomain', namespace: string): HostnameClaim & DomainClaim {
  return { metadata: { name }, spec: { name, holder: { kind, namespace, name, uid: 'u' } } } as HostnameClaim & DomainClaim;
}

function attachment(namespace: string, host: string, appName: string, state = 'active'): AppHostname {
  return { metadata: { name: host, namespace }, spec: { hostname: host, appRef: { name: appName } }, status: { state } } as AppHostname;
}

function managedDomain(namespace: string, domain: string, state: 'managed' | 'pending_delegation' = 'managed'): ProjectDomain {
  return { metadata: { name: domain.replace(/\./g, '-'), namespace }, spec: { domain }, status: { state, hostedZoneId: 'z' } } as ProjectDomain;
}

interface Objects {
  apps?: RuntimeApp[];
  attachments?: AppHostname[];
  hostnameClaims?: HostnameClaim[];
  domainClaims?: DomainClaim[];
  domains?: ProjectDomain[];
}

/** An apiserver of a few objects, counting the replica's reads of apps; `hold` keeps every read waiting until released. */
function setup(objects: Objects = {}, options: Partial<UnlistedAppsOptions> = {}) {
  const reads: string[] = [];
  const deployed: AppDeployment[] = [];
  let gate: Promise<void> = Promise.resolve();
  let failing = false;
  let accepting = true;
  let now = 1_000_000;
  const read = async <T>(what: string, value: () => T): Promise<T> => {
    reads.push(what);
    await gate;
    if (failing) throw new Error('the apiserver is unreachable');
    return value();
  };
  const api: UnlistedReads = {
    app: (namespace, name) => read(`app ${namespace}/${name}`, () => objects.apps?.find((a) => a.metadata?.namespace === namespace && a.metadata.name === name)),
    appsIn: (namespace) => read(`apps ${namespace}`, () => objects.apps?.filter((a) => a.metadata?.namespace === namespace) ?? []),
  };
  const inNamespace = <T extends { metadata?: { namespace?: string } }>(list: T[] | undefined, namespace?: string) =>
    (list ?? []).filter((o) => namespace === undefined || o.metadata?.namespace === namespace);
  const all: UnlistedAppsOptions = {
    baseDomain: BASE,
    reads: api,
    names: {
      baseDomain: BASE,
      domains: { list: (namespace) => inNamespace(objects.domains, namespace) },
      hostnames: { list: (namespace) => inNamespace(objects.attachments, namespace) },
      domainClaims: { get: (name) => objects.domainClaims?.find((c) => c.metadata?.name === name) },
      hostnameClaims: { get: (name) => objects.hostnameClaims?.find((c) => c.metadata?.name === name) },
    },
    deploy: async (deployment) => {
      if (!accepting) return false;
      deployed.push(deployment);
      return true;
    },
    log: silentLogger,
    now: () => now,
    ...options,
  };
  return {
    reads,
    deployed,
    options: all,
    unlisted: new UnlistedApps(all),
    hold(): () => void {
      let release = () => {};
      gate = new Promise((resolve) => (release = resolve));
      return release;
    },
    fail: (on = true) => (failing = on),
    tooLate: () => (accepting = false),
    pass: (ms: number) => (now += ms),
  };
}

describe('UnlistedApps: the app a host names, read before the informers have listed', () => {
  it('routes the app a default host names, read by its name', async () => {
    const t = setup({ apps: [app('p', 'web', { environment: { A: '1' } })] });
    expect(await t.unlisted.lookup(`web.p.${BASE}`)).toBe('routed');
    expect(t.reads).toEqual(['app p/web']);
    expect(t.deployed).toEqual([expect.objectContaining({ project: 'p', appId: 'web', buildId: 'b1', env: { A: '1' }, hostnames: [] })]);
    expect(t.unlisted.keys()).toEqual(['p/web']);
  });

  it('finds nothing for an app that does not exist, has no build or is being deleted, and remembers that a few seconds', async () => {
    const deleting = app('p', 'gone');
    deleting.metadata!.deletionTimestamp = '2026-12-01T00:00:00Z';
    const t = setup({ apps: [app('p', 'empty', { activeBuildId: undefined }), deleting] });
    for (const name of ['missing', 'empty', 'gone']) expect(await t.unlisted.lookup(`${name}.p.${BASE}`)).toBe('none');
    expect(t.deployed).toEqual([]);
    // A default host whose app serves nothing may be another app's listed name: the project's apps are read (once).
    expect(t.reads).toEqual(['app p/missing', 'apps p', 'app p/empty', 'app p/gone']);
    expect(await t.unlisted.lookup(`missing.p.${BASE}`)).toBe('none');
    expect(t.reads).toHaveLength(4);
    t.pass(6_000);
    expect(await t.unlisted.lookup(`missing.p.${BASE}`)).toBe('none');
    expect(t.reads).toHaveLength(6);
  });

  it('routes an active custom host name from the cached claims and AppHostnames, and nothing for one not active or unclaimed', async () => {
    const t = setup({
      apps: [app('p', 'web'), app('q', 'rival')],
      hostnameClaims: [claim('shop.example.com', 'AppHostname', 'p'), claim('new.example.com', 'AppHostname', 'p')],
      // q attaching p's name counts for nothing: the claim is p's.
      attachments: [attachment('p', 'shop.example.com', 'web'), attachment('p', 'new.example.com', 'web', 'verifying'), attachment('q', 'shop.example.com', 'rival')],
    });
    expect(await t.unlisted.lookup('shop.example.com')).toBe('routed');
    expect(t.reads).toEqual(['apps p']);
    expect(t.deployed).toEqual([expect.objectContaining({ project: 'p', appId: 'web', hostnames: ['shop.example.com'] })]);
    expect(await t.unlisted.lookup('new.example.com')).toBe('none');
    expect(await t.unlisted.lookup('unclaimed.example.com')).toBe('none');
    expect(t.deployed).toHaveLength(1);
  });

  it('reads a custom host name’s objects (prepareName) before deciding it, not for a default host; a failed read is a retry', async () => {
    const objects: Objects = { apps: [app('p', 'web')] };
    const prepared: string[] = [];
    let failing = true;
    const t = setup(objects, {
      prepareName: async (host) => {
        prepared.push(host);
        if (failing) throw new Error('the apiserver is unreachable');
        // What the read finds, as NamesOnDemand's view of it shows it (the listed claims know nothing of it).
        return { ...t.options.names, hostnameClaims: { get: (name) => (name === host ? claim(host, 'AppHostname', 'p') : undefined) }, hostnames: { list: () => [attachment('p', host, 'web')] } };
      },
    });
    expect(await t.unlisted.lookup(`web.p.${BASE}`)).toBe('routed');
    expect(await t.unlisted.lookup('shop.example.com')).toBe('retry');
    failing = false;
    expect(await t.unlisted.lookup('shop.example.com')).toBe('routed');
    expect(prepared).toEqual(['shop.example.com', 'shop.example.com']);
    expect(t.deployed.at(-1)).toEqual(expect.objectContaining({ project: 'p', appId: 'web', hostnames: ['shop.example.com'] }));
  });

  it("routes a host an app's spec lists in its project's part of the base domain or its managed domain, not another project's", async () => {
    const t = setup({
      apps: [app('p', 'web', { hostnames: [`www.p.${BASE}`, 'www.p-domain.com', `www.q.${BASE}`] }), app('q', 'site')],
      domainClaims: [claim('p-domain.com', 'ProjectDomain', 'p')],
      domains: [managedDomain('p', 'p-domain.com')],
    });
    expect(await t.unlisted.lookup(`www.p.${BASE}`)).toBe('routed');
    expect(await t.unlisted.lookup('www.p-domain.com')).toBe('routed');
    // Listed by p's app, but in q's part of the base domain: q's apps are the ones read, and none lists it.
    expect(await t.unlisted.lookup(`www.q.${BASE}`)).toBe('none');
    // `www.<project>.…` is also the default host of an app `www`, which does not exist; p's apps are read once.
    expect(t.reads).toEqual(['app p/www', 'apps p', 'app q/www', 'apps q']);
    // Both names looked up stay routed: the second deployment carries the first's too.
    expect([...(t.deployed.at(-1)?.hostnames ?? [])].sort()).toEqual(['www.p-domain.com', `www.p.${BASE}`]);
  });

  it('routes nothing under a domain not delegated, nor a name two apps of the project ask for', async () => {
    const t = setup({
      apps: [app('p', 'web', { hostnames: ['www.p-domain.com', `shared.p.${BASE}`] }), app('p', 'other', { hostnames: [`shared.p.${BASE}`] })],
      domainClaims: [claim('p-domain.com', 'ProjectDomain', 'p')],
      domains: [managedDomain('p', 'p-domain.com', 'pending_delegation')],
    });
    expect(await t.unlisted.lookup('www.p-domain.com')).toBe('none');
    expect(t.reads).toEqual([]);
    expect(await t.unlisted.lookup(`shared.p.${BASE}`)).toBe('none');
    expect(t.deployed).toEqual([]);
  });

  it('looks up only the namespace it serves', async () => {
    const t = setup({ apps: [app('p', 'web'), app('q', 'web', { hostnames: [`www.q.${BASE}`] })] }, { namespace: 'p' });
    expect(await t.unlisted.lookup(`web.q.${BASE}`)).toBe('none');
    expect(await t.unlisted.lookup(`www.q.${BASE}`)).toBe('none');
    expect(t.reads).toEqual([]);
    expect(await t.unlisted.lookup(`web.p.${BASE}`)).toBe('routed');
  });

  it('deploys the newest read of an app last, with every host looked up for it', async () => {
    const older = app('p', 'web', { hostnames: [`x.p.${BASE}`] }, '5');
    const newer = app('p', 'web', { hostnames: [`x.p.${BASE}`], activeBuildId: 'b2' }, '9');
    let releaseList = () => {};
    const listed = new Promise<void>((resolve) => (releaseList = resolve));
    const t = setup(
      {},
      {
        reads: {
          app: async (_namespace, name) => (name === 'web' ? newer : undefined),
          // The project's apps were read before the change, and answer after the app's own read.
          appsIn: async () => (await listed, [older]),
        },
      },
    );
    const viaList = t.unlisted.lookup(`x.p.${BASE}`);
    expect(await t.unlisted.lookup(`web.p.${BASE}`)).toBe('routed');
    releaseList();
    expect(await viaList).toBe('routed');
    expect(t.deployed.map((d) => [d.buildId, d.hostnames])).toEqual([
      ['b2', []],
      ['b2', [`x.p.${BASE}`]],
    ]);
  });

  it('reads once for lookups of one host at once, and answers retry past its bound of waiting lookups', async () => {
    const t = setup({ apps: [app('p', 'a'), app('p', 'b'), app('p', 'c')] }, { concurrency: 1, maxWaiting: 1 });
    const release = t.hold();
    const first = [t.unlisted.lookup(`a.p.${BASE}`), t.unlisted.lookup(`a.p.${BASE}`)];
    const second = t.unlisted.lookup(`b.p.${BASE}`);
    // One running, one waiting: a third host is not queued.
    expect(await t.unlisted.lookup(`c.p.${BASE}`)).toBe('retry');
    release();
    expect(await Promise.all([...first, second])).toEqual(['routed', 'routed', 'routed']);
    expect(t.reads).toEqual(['app p/a', 'app p/b']);
    // The slots are all free again: a lookup runs at once.
    expect(await t.unlisted.lookup(`c.p.${BASE}`)).toBe('routed');
  });

  it('answers retry when the apiserver cannot be read or the informers have listed meanwhile', async () => {
    const t = setup({ apps: [app('p', 'web')] });
    t.tooLate();
    expect(await t.unlisted.lookup(`web.p.${BASE}`)).toBe('retry');
    t.fail();
    expect(await t.unlisted.lookup(`web.p.${BASE}`)).toBe('retry');
    expect(t.deployed).toEqual([]);
  });
});
