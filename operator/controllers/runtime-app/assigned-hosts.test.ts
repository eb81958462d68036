import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppHostname } from '../../../src/apis/v1alpha1/app-hostname.ts';
import type { DomainClaim, HostnameClaim } from '../../../src/apis/v1alpha1/domain-claim.ts';
import type { ProjectDomain } from '../../../src/apis/v1alpha1/project-domain.ts';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { DEMOTION_GRACE_MS } from '../../../src/platform/host-admission.ts';
import { objectKey, type KubeObject } from '../../../src/kube/index.ts';
import { silentLogger } from '../../../src/logging/log.ts';
import { AssignedHosts } from './assigned-hosts.ts';

/** A cache with the writes a test makes, each told to its subscribers as an informer tells a change. */
function cache<T extends KubeObject>() {
  const byKey = new Map<string, T>();
  const handlers: Array<(obj: T) => void> = [];
  return {
    onChange: (handler: (obj: T) => void) => handlers.push(handler),
    get: (key: string) => byKey.get(key),
    list: (namespace?: string) => [...byKey.values()].filter((o) => namespace === undefined || o.metadata?.namespace === namespace),
    put(obj: T) {
      byKey.set(objectKey(obj), obj);
      for (const handler of handlers) handler(obj);
    },
    remove(obj: T) {
      byKey.delete(objectKey(obj));
      for (const handler of handlers) handler(obj);
    },
  };
}

const app = (name: string, hostnames: string[] = [], build = 'b-1'): RuntimeApp => ({
  metadata: { namespace: 'p', name, generation: 1 },
  spec: { displayName: name, activeBuildId: build, hostnames },
});
const attached = (host: string, appName: string, state = 'active'): AppHostname =>
  ({ metadata: { namespace: 'p', name: host }, spec: { hostname: host, appRef: { name: appName } }, status: { state } }) as AppHostname;
const claim = (host: string, project: string): HostnameClaim => ({
  metadata: { name: host },
  spec: { name: host, holder: { kind: 'AppHostname', namespace: project, name: host, uid: `uid-${host}` } },
});

function world() {
  const caches = { apps: cache<RuntimeApp>(), hostnames: cache<AppHostname>(), domains: cache<ProjectDomain>(), domainClaims: cache<KubeObject>(), hostnameClaims: cache<HostnameClaim>() };
  const moved: string[] = [];
  const hosts = new AssignedHosts({
    ...caches,
    domainClaims: caches.domainClaims as never,
    baseDomain: 'apps.test',
    log: silentLogger,
    onMoved: (key) => moved.push(key),
  });
  return { ...caches, hosts, moved };
}

/** A domain of project p found not delegated `ago` ms ago, after having been delegated: in its demotion grace. */
const demoted = (domain: string, ago: number): ProjectDomain => ({
  metadata: { namespace: 'p', name: domain.replaceAll('.', '-') },
  spec: { domain },
  status: {
    hostedZoneId: 'Z1',
    state: 'pending_delegation',
    delegatedAt: new Date(Date.now() - ago - 60_000).toISOString(),
    conditions: [{ type: 'Delegated', status: 'False', reason: 'NotDelegated', message: '', lastTransitionTime: new Date(Date.now() - ago).toISOString() }],
  },
});

afterEach(() => {
  vi.useRealTimers();
});

describe('AssignedHosts', () => {
  it('gives an app its default host and the deploy host names its project may serve', () => {
    const { apps, hosts } = world();
    const shop = app('shop', ['www.p.apps.test', 'www.q.apps.test', 'bank.example.test']);
    apps.put(shop);
    expect(hosts.hostsOf(shop)).toEqual(['shop.p.apps.test', 'www.p.apps.test']);
  });

  it('gives a name two apps ask for to neither, and to the one left asking, re-checking both', () => {
    const { apps, hosts, moved } = world();
    apps.put(app('a', ['www.p.apps.test']));
    apps.put(app('b', ['www.p.apps.test']));
    expect(hosts.hostsOf(app('a'))).toEqual(['a.p.apps.test']);
    expect(hosts.hostsOf(app('b'))).toEqual(['b.p.apps.test']);
    moved.length = 0;
    apps.put(app('b'));
    expect(hosts.hostsOf(app('a'))).toEqual(['a.p.apps.test', 'www.p.apps.test']);
    expect(moved).toContain('p/a');
  });

  it('serves a custom host name once its claim and active AppHostname are there, in either order, and no more when it goes', () => {
    const { apps, hostnames, hostnameClaims, hosts, moved } = world();
    const shop = app('shop');
    apps.put(shop);
    hostnames.put(attached('shop.example.com', 'shop'));
    expect(hosts.hostsOf(shop)).toEqual(['shop.p.apps.test']); // no claim yet: held by nobody
    hostnameClaims.put(claim('shop.example.com', 'p'));
    expect(hosts.hostsOf(shop)).toEqual(['shop.p.apps.test', 'shop.example.com']);
    expect(moved).toContain('p/shop');
    hostnames.remove(attached('shop.example.com', 'shop'));
    expect(hosts.hostsOf(shop)).toEqual(['shop.p.apps.test']);
    // Another project's claim keeps it from a deploy host name asking for it.
    const other = app('other', ['shop.example.com']);
    apps.put(other);
    hostnameClaims.put(claim('shop.example.com', 'q'));
    expect(hosts.hostsOf(other)).toEqual(['other.p.apps.test']);
  });

  it('asks for nothing while an app has no build or is being deleted', () => {
    const { apps, hosts } = world();
    apps.put(app('a', ['www.p.apps.test'], ''));
    apps.put(app('b', ['www.p.apps.test']));
    expect(hosts.hostsOf(app('b'))).toEqual(['b.p.apps.test', 'www.p.apps.test']);
  });

  it('decides a deploy host name again when an AppHostname of that name turns active for another app, or moves', () => {
    const { apps, hostnames, hostnameClaims, hosts, moved } = world();
    apps.put(app('shop', ['shop.example.com']));
    apps.put(app('idle', [], ''));
    hostnameClaims.put(claim('shop.example.com', 'p'));
    hostnames.put(attached('shop.example.com', 'idle', 'pending'));
    expect(hosts.hostsOf(app('shop'))).toEqual(['shop.p.apps.test']); // not active: the project may not serve it yet
    moved.length = 0;
    // Active for an app with nothing to serve (not routed): the project may serve it, and shop alone asks for it.
    hostnames.put(attached('shop.example.com', 'idle'));
    expect(hosts.hostsOf(app('shop'))).toEqual(['shop.p.apps.test', 'shop.example.com']);
    expect(moved).toContain('p/shop');
    // Moved to another app that is routed: two apps ask, so neither has it, and shop is told.
    apps.put(app('blog'));
    moved.length = 0;
    hostnames.put(attached('shop.example.com', 'blog'));
    expect(hosts.hostsOf(app('shop'))).toEqual(['shop.p.apps.test']);
    expect(hosts.hostsOf(app('blog'))).toEqual(['blog.p.apps.test']);
    expect(moved).toContain('p/shop');
  });

  it("takes a domain's names from its apps when its demotion grace runs out, with nothing else changing", () => {
    vi.useFakeTimers();
    const { apps, domains, domainClaims, hosts, moved } = world();
    domains.put(demoted('example.org', DEMOTION_GRACE_MS - 5_000));
    domainClaims.put({ metadata: { name: 'example.org' }, spec: { name: 'example.org', holder: { kind: 'ProjectDomain', namespace: 'p', name: 'example-org', uid: 'u' } } } as DomainClaim);
    apps.put(app('shop', ['www.example.org']));
    expect(hosts.hostsOf(app('shop'))).toEqual(['shop.p.apps.test', 'www.example.org']);
    moved.length = 0;
    vi.advanceTimersByTime(4_000);
    expect(moved).toEqual([]);
    vi.advanceTimersByTime(1_100);
    expect(hosts.hostsOf(app('shop'))).toEqual(['shop.p.apps.test']);
    expect(moved).toContain('p/shop');
  });

  it('routes no app held back for its migrations with nothing served before', () => {
    const { apps, hosts } = world();
    const held = {
      ...app('shop', ['www.p.apps.test']),
      spec: { displayName: 'shop', activeBuildId: 'b-1', hostnames: ['www.p.apps.test'], migrations: { buildId: 'b-1', database: 'db', checksum: 'a'.repeat(64) } },
    } as RuntimeApp;
    apps.put(held);
    expect(hosts.hostsOf(held)).toEqual(['shop.p.apps.test']);
    apps.put(app('blog', ['www.p.apps.test']));
    expect(hosts.hostsOf(app('blog'))).toEqual(['blog.p.apps.test', 'www.p.apps.test']);
  });

  it('re-decides the apps under a domain from the indexes when its claim comes, and routes no app whose name is not a DNS label', () => {
    const { apps, domains, domainClaims, hosts, moved } = world();
    domains.put({ metadata: { namespace: 'p', name: 'example-net' }, spec: { domain: 'example.net' }, status: { hostedZoneId: 'Z2', state: 'managed' } } as ProjectDomain);
    apps.put(app('shop', ['www.example.net']));
    // Not a DNS label: the runtime cannot serve it, so it contests nothing.
    apps.put({ ...app('my.app', ['www.example.net']), metadata: { namespace: 'p', name: 'my.app', generation: 1 } });
    expect(hosts.hostsOf(app('shop'))).toEqual(['shop.p.apps.test']);
    moved.length = 0;
    domainClaims.put({ metadata: { name: 'example.net' }, spec: { name: 'example.net', holder: { kind: 'ProjectDomain', namespace: 'p', name: 'example-net', uid: 'u' } } } as DomainClaim);
    expect(hosts.hostsOf(app('shop'))).toEqual(['shop.p.apps.test', 'www.example.net']);
    expect(moved).toEqual(['p/shop']);
  });
});
