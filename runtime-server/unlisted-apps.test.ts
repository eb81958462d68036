import { describe, expect, it } from 'vitest';
import type { AppHostname } from '../src/apis/v1alpha1/app-hostname.ts';
import type { DomainClaim, HostnameClaim } from '../src/apis/v1alpha1/domain-claim.ts';
import type { ProjectDomain } from '../src/apis/v1alpha1/project-domain.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { silentLogger } from '../src/logging/log.ts';
import type { AppDeployment } from './engine/index.ts';
import { UnlistedApps, type UnlistedReads } from './unlisted-apps.ts';

const BASE = 'apps.test';

function app(namespace: string, name: string, spec: Partial<RuntimeApp['spec']> = {}): RuntimeApp {
  return { metadata: { name, namespace, generation: 1, resourceVersion: '1' }, spec: { displayName: name, activeBuildId: 'b1', ...spec } };
}

function claim(name: string, kind: 'AppHostname' | 'ProjectDomain', namespace: string, holder: string): HostnameClaim & DomainClaim {
  return { metadata: { name }, spec: { name, holder: { kind, namespace, name: holder, uid: 'u' } } } as HostnameClaim & DomainClaim;
}

function attachment(namespace: string, host: string, appName: string, state = 'active'): AppHostname {
  return { metadata: { name: host, namespace }, spec: { hostname: host, appRef: { name: appName } }, status: { state } } as AppHostname;
}

function managedDomain(namespace: string, domain: string): ProjectDomain {
  return { metadata: { name: domain.replace(/\./g, '-'), namespace }, spec: { domain }, status: { state: 'managed', hostedZoneId: 'z' } } as ProjectDomain;
}

/** An apiserver of a few objects, counting its reads; `gate` holds every read until it resolves. */
function setup(objects: { apps?: RuntimeApp[]; attachments?: AppHostname[]; hostnameClaims?: HostnameClaim[]; domainClaims?: DomainClaim[]; domains?: ProjectDomain[] } = {}) {
  const reads: string[] = [];
  const deployed: AppDeployment[] = [];
  let gate: Promise<void> = Promise.resolve();
  let failing = false;
  const read = async <T>(what: string, value: T): Promise<T> => {
    reads.push(what);
    await gate;
    if (failing) throw new Error('the apiserver is unreachable');
    return value;
  };
  const api: UnlistedReads = {
    app: (namespace, name) =>
      read(
        `app ${namespace}/${name}`,
        objects.apps?.find((a) => a.metadata?.namespace === namespace && a.metadata.name === name),
      ),
    appsIn: (namespace) => read(`apps ${namespace}`, objects.apps?.filter((a) => a.metadata?.namespace === namespace) ?? []),
    appHostname: (namespace, name) =>
      read(
        `apphostname ${namespace}/${name}`,
        objects.attachments?.find((h) => h.metadata?.namespace === namespace && h.metadata.name === name),
      ),
    hostnameClaim: (name) =>
      read(
        `hostnameclaim ${name}`,
        objects.hostnameClaims?.find((c) => c.metadata?.name === name),
      ),
  };
  let accepting = true;
  const options = {
    baseDomain: BASE,
    reads: api,
    domains: { list: (namespace?: string) => (objects.domains ?? []).filter((d) => namespace === undefined || d.metadata?.namespace === namespace) },
    domainClaims: { get: (name: string) => objects.domainClaims?.find((c) => c.metadata?.name === name) },
    deploy: async (deployment: AppDeployment) => {
      if (!accepting) return false;
      deployed.push(deployment);
      return true;
    },
    log: silentLogger,
  };
  return {
    reads,
    deployed,
    options,
    unlisted: new UnlistedApps(options),
    hold(): () => void {
      let release = () => {};
      gate = new Promise((resolve) => (release = resolve));
      return release;
    },
    fail: () => (failing = true),
    tooLate: () => (accepting = false),
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

  it('finds nothing for an app that does not exist, has no build or is being deleted', async () => {
    const deleting = app('p', 'gone');
    deleting.metadata!.deletionTimestamp = '2026-12-01T00:00:00Z';
    const t = setup({ apps: [app('p', 'empty', { activeBuildId: undefined }), deleting] });
    for (const name of ['missing', 'empty', 'gone']) expect(await t.unlisted.lookup(`${name}.p.${BASE}`)).toBe('none');
    expect(t.deployed).toEqual([]);
    // A default host whose app serves nothing may be another app's listed name: the project's apps are read.
    expect(t.reads).toEqual(['app p/missing', 'apps p', 'app p/empty', 'apps p', 'app p/gone', 'apps p']);
  });

  it('routes an active custom host name through its claim and AppHostname, and nothing for one not active', async () => {
    const t = setup({
      apps: [app('p', 'web')],
      hostnameClaims: [claim('shop.example.com', 'AppHostname', 'p', 'shop.example.com'), claim('new.example.com', 'AppHostname', 'p', 'new.example.com')],
      attachments: [attachment('p', 'shop.example.com', 'web'), attachment('p', 'new.example.com', 'web', 'verifying')],
    });
    expect(await t.unlisted.lookup('shop.example.com')).toBe('routed');
    expect(t.reads).toEqual(['hostnameclaim shop.example.com', 'apphostname p/shop.example.com', 'app p/web']);
    expect(t.deployed.at(-1)?.hostnames).toEqual(['shop.example.com']);
    expect(await t.unlisted.lookup('new.example.com')).toBe('none');
    expect(await t.unlisted.lookup('unclaimed.example.com')).toBe('none');
    expect(t.deployed).toHaveLength(1);
  });

  it("routes a host an app's spec lists in its project's part of the base domain or its managed domain, not another project's", async () => {
    const t = setup({
      apps: [app('p', 'web', { hostnames: [`www.p.${BASE}`, 'www.p-domain.com', `www.q.${BASE}`] }), app('q', 'site')],
      domainClaims: [claim('p-domain.com', 'ProjectDomain', 'p', 'p-domain-com')],
      domains: [managedDomain('p', 'p-domain.com')],
    });
    expect(await t.unlisted.lookup(`www.p.${BASE}`)).toBe('routed');
    expect(await t.unlisted.lookup('www.p-domain.com')).toBe('routed');
    // Listed by p's app, but in q's part of the base domain: q's apps are the ones read, and none lists it.
    expect(await t.unlisted.lookup(`www.q.${BASE}`)).toBe('none');
    // `www.p.…` is also the default host of an app `www`, which does not exist: read first, then p's apps.
    expect(t.reads).toEqual(['app p/www', 'apps p', 'hostnameclaim www.p-domain.com', 'apps p', 'app q/www', 'apps q']);
    // Both names looked up stay routed: the second deployment carries the first's too.
    expect([...(t.deployed.at(-1)?.hostnames ?? [])].sort()).toEqual(['www.p-domain.com', `www.p.${BASE}`]);
  });

  it('routes nothing under a domain the project holds but that was not delegated', async () => {
    const undelegated = managedDomain('p', 'p-domain.com');
    undelegated.status = { state: 'pending_delegation', hostedZoneId: 'z' };
    const t = setup({ apps: [app('p', 'web', { hostnames: ['www.p-domain.com'] })], domainClaims: [claim('p-domain.com', 'ProjectDomain', 'p', 'p-domain-com')], domains: [undelegated] });
    expect(await t.unlisted.lookup('www.p-domain.com')).toBe('none');
    expect(t.reads).not.toContain('apps p');
  });

  it('reads once for lookups of one host at once, and answers unknown past its bound of waiting lookups', async () => {
    const t = setup({ apps: [app('p', 'a'), app('p', 'b'), app('p', 'c')] });
    const unlisted = new UnlistedApps({ ...t.options, concurrency: 1, maxWaiting: 1 });
    const release = t.hold();
    const first = [unlisted.lookup(`a.p.${BASE}`), unlisted.lookup(`a.p.${BASE}`)];
    const second = unlisted.lookup(`b.p.${BASE}`);
    // One running, one waiting: a third host is not queued.
    expect(await unlisted.lookup(`c.p.${BASE}`)).toBe('unknown');
    release();
    expect(await Promise.all([...first, second])).toEqual(['routed', 'routed', 'routed']);
    expect(t.reads).toEqual(['app p/a', 'app p/b']);
  });

  it('answers unknown (retry) when the apiserver cannot be read or the informers have listed meanwhile', async () => {
    const t = setup({ apps: [app('p', 'web')] });
    t.tooLate();
    expect(await t.unlisted.lookup(`web.p.${BASE}`)).toBe('unknown');
    t.fail();
    expect(await t.unlisted.lookup(`web.p.${BASE}`)).toBe('unknown');
    expect(t.deployed).toEqual([]);
  });
});
