import { describe, expect, it } from 'vitest';
import type { AppHostname } from '../../../src/apis/v1alpha1/app-hostname.ts';
import type { HostnameClaim } from '../../../src/apis/v1alpha1/domain-claim.ts';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
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
const attached = (host: string, appName: string): AppHostname =>
  ({ metadata: { namespace: 'p', name: host }, spec: { hostname: host, appRef: { name: appName } }, status: { state: 'active' } }) as AppHostname;
const claim = (host: string, project: string): HostnameClaim => ({
  metadata: { name: host },
  spec: { name: host, holder: { kind: 'AppHostname', namespace: project, name: host, uid: `uid-${host}` } },
});

function world() {
  const caches = { apps: cache<RuntimeApp>(), hostnames: cache<AppHostname>(), domains: cache<KubeObject>(), domainClaims: cache<KubeObject>(), hostnameClaims: cache<HostnameClaim>() };
  const moved: string[] = [];
  const hosts = new AssignedHosts({
    ...caches,
    domains: caches.domains as never,
    domainClaims: caches.domainClaims as never,
    baseDomain: 'apps.test',
    log: silentLogger,
    onMoved: (key) => moved.push(key),
  });
  return { ...caches, hosts, moved };
}

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
});
