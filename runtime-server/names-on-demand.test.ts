import { describe, expect, it, vi } from 'vitest';
import type { AppHostname } from '../src/apis/v1alpha1/app-hostname.ts';
import type { DomainClaim, HostnameClaim } from '../src/apis/v1alpha1/domain-claim.ts';
import type { ProjectDomain } from '../src/apis/v1alpha1/project-domain.ts';
import { factsFromClaims } from '../src/platform/claim-facts.ts';
import { serveRefusal } from '../src/platform/host-admission.ts';
import { NamesOnDemand, type NameReads } from './names-on-demand.ts';

const BASE = 'apps.test';

function claim(name: string, namespace: string, kind: 'AppHostname' | 'ProjectDomain' = 'AppHostname'): HostnameClaim & DomainClaim {
  return { metadata: { name }, spec: { name, holder: { kind, namespace, name, uid: 'u' } } } as HostnameClaim & DomainClaim;
}

function attachment(namespace: string, host: string, state = 'active'): AppHostname {
  return { metadata: { name: host, namespace }, spec: { hostname: host, appRef: { name: 'web' } }, status: { state } } as AppHostname;
}

/** A cache as an informer keeps it: listed once `synced`, keyed `namespace/name` (a cluster-scoped object by name). */
function cache<T extends { metadata?: { name?: string; namespace?: string } }>(objects: T[]) {
  const state = { synced: false };
  const key = (o: T) => (o.metadata?.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : (o.metadata?.name ?? ''));
  return {
    state,
    hasSynced: () => state.synced,
    get: (k: string) => (state.synced ? objects.find((o) => key(o) === k) : undefined),
    list: (namespace?: string) => (state.synced ? objects.filter((o) => namespace === undefined || o.metadata?.namespace === namespace) : []),
  };
}

function setup(objects: { claims?: HostnameClaim[]; attachments?: AppHostname[]; domainClaims?: DomainClaim[]; domains?: ProjectDomain[] } = {}) {
  const reads: string[] = [];
  let now = 1_000_000;
  let failing = false;
  let gate: Promise<void> = Promise.resolve();
  const read = async <T>(what: string, value: () => T): Promise<T> => {
    reads.push(what);
    await gate;
    if (failing) throw new Error('the apiserver is unreachable');
    return value();
  };
  const api: NameReads = {
    hostnameClaim: (host) => read(`claim ${host}`, () => objects.claims?.find((c) => c.metadata?.name === host)),
    appHostname: (namespace, host) => read(`hostname ${namespace}/${host}`, () => objects.attachments?.find((h) => h.metadata?.namespace === namespace && h.metadata.name === host)),
  };
  const hostnameClaims = cache(objects.claims ?? []);
  const hostnames = cache(objects.attachments ?? []);
  const domainClaims = objects.domainClaims ?? [];
  const names = new NamesOnDemand({
    listed: {
      baseDomain: BASE,
      domains: { list: (namespace) => (objects.domains ?? []).filter((d) => namespace === undefined || d.metadata?.namespace === namespace) },
      domainClaims: { get: (name) => domainClaims.find((c) => c.metadata?.name === name) },
    },
    hostnameClaims,
    hostnames,
    reads: api,
    now: () => now,
  });
  const mayServe = (project: string, host: string) => serveRefusal(project, host, factsFromClaims(names.sources, new Date(now))) === undefined;
  return {
    names,
    reads,
    mayServe,
    list: () => ((hostnameClaims.state.synced = true), (hostnames.state.synced = true)),
    advance: (ms: number) => (now += ms),
    fail: (on: boolean) => (failing = on),
    hold: () => {
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      return () => release();
    },
  };
}

describe('NamesOnDemand', () => {
  it('admits a custom host name from its claim and AppHostname read by name, and nothing it has not read', async () => {
    const t = setup({ claims: [claim('shop.example.com', 'p1')], attachments: [attachment('p1', 'shop.example.com')] });
    expect(t.mayServe('p1', 'shop.example.com')).toBe(false);
    await t.names.prepare('shop.example.com');
    expect(t.reads).toEqual(['claim shop.example.com', 'hostname p1/shop.example.com']);
    expect(t.mayServe('p1', 'shop.example.com')).toBe(true);
    expect(t.mayServe('p2', 'shop.example.com')).toBe(false);
    expect(t.names.sources.hostnames?.list('p2')).toEqual([]);
  });

  it('reads no AppHostname for a name nobody holds, and refuses one whose AppHostname is not active', async () => {
    const t = setup({ claims: [claim('pending.example.com', 'p1')], attachments: [attachment('p1', 'pending.example.com', 'pending_dns')] });
    await t.names.prepare('nobody.example.com');
    expect(t.reads).toEqual(['claim nobody.example.com']);
    await t.names.prepare('pending.example.com');
    expect(t.mayServe('p1', 'pending.example.com')).toBe(false);
  });

  it('reads the AppHostname in the project holding the domain a name is under (its claim listed)', async () => {
    const domain = { metadata: { name: 'example-org', namespace: 'p3' }, spec: { domain: 'example.org' }, status: { state: 'managed', hostedZoneId: 'z' } } as ProjectDomain;
    const t = setup({ domainClaims: [claim('example.org', 'p3', 'ProjectDomain')], domains: [domain], attachments: [attachment('p3', 'api.example.org')] });
    await t.names.prepare('api.example.org');
    expect(t.reads).toEqual(['claim api.example.org', 'hostname p3/api.example.org']);
    expect(t.names.sources.hostnames?.list('p3').map((h) => h.metadata?.name)).toEqual(['api.example.org']);
    expect(t.mayServe('p3', 'api.example.org')).toBe(true);
  });

  it('coalesces reads of one host, remembers them a few seconds, and reads again after', async () => {
    const t = setup({ claims: [claim('shop.example.com', 'p1')], attachments: [attachment('p1', 'shop.example.com')] });
    const release = t.hold();
    const [a, b] = [t.names.prepare('shop.example.com'), t.names.prepare('shop.example.com')];
    release();
    await Promise.all([a, b]);
    expect(t.reads).toHaveLength(2);
    expect(t.names.prepare('shop.example.com')).toBeDefined();
    await t.names.prepare('shop.example.com');
    expect(t.reads).toHaveLength(2);
    t.advance(5_001);
    await t.names.prepare('shop.example.com');
    expect(t.reads).toHaveLength(4);
  });

  it('forgets a failed read, so the next request reads again', async () => {
    const t = setup({ claims: [claim('shop.example.com', 'p1')], attachments: [attachment('p1', 'shop.example.com')] });
    t.fail(true);
    await expect(t.names.prepare('shop.example.com')).rejects.toThrow(/unreachable/);
    t.fail(false);
    await t.names.prepare('shop.example.com');
    expect(t.reads).toEqual(['claim shop.example.com', 'claim shop.example.com', 'hostname p1/shop.example.com']);
    expect(t.mayServe('p1', 'shop.example.com')).toBe(true);
  });

  it('answers from the caches once both have listed, reading nothing', async () => {
    const t = setup({ claims: [claim('shop.example.com', 'p1')], attachments: [attachment('p1', 'shop.example.com')] });
    t.list();
    expect(t.names.prepare('shop.example.com')).toBeUndefined();
    expect(t.mayServe('p1', 'shop.example.com')).toBe(true);
    expect(t.reads).toEqual([]);
  });

  it('remembers a bounded number of hosts: a flood of made-up names does not grow it without end', async () => {
    const t = setup();
    for (let i = 0; i < 10_050; i += 1) await t.names.prepare(`n${i}.example.com`);
    // The host read last is still known (no read), the first was dropped with the rest when the bound was met.
    await t.names.prepare('n10049.example.com');
    expect(t.reads).toHaveLength(10_050);
    await t.names.prepare('n0.example.com');
    expect(t.reads).toHaveLength(10_051);
  });
});

describe('NamesOnDemand under a hostile client', () => {
  it('decides a host on its own read, though a flood of other names pushed it out of memory meanwhile', async () => {
    const t = setup({ claims: [claim('shop.example.com', 'p1')], attachments: [attachment('p1', 'shop.example.com')] });
    const view = await t.names.prepare('shop.example.com');
    for (let i = 0; i < 10_050; i += 1) await t.names.prepare(`n${i}.example.com`);
    expect(serveRefusal('p1', 'shop.example.com', factsFromClaims(view!))).toBeUndefined();
    expect(serveRefusal('p2', 'shop.example.com', factsFromClaims(view!))).toBeDefined();
  });

  it('answers nothing from a read past its time until the host is read again: a name moved to another project is not kept', async () => {
    const objects = { claims: [claim('shop.example.com', 'p1')], attachments: [attachment('p1', 'shop.example.com')] };
    const t = setup(objects);
    await t.names.prepare('shop.example.com');
    expect(t.mayServe('p1', 'shop.example.com')).toBe(true);
    objects.claims = [claim('shop.example.com', 'p2')];
    objects.attachments = [attachment('p2', 'shop.example.com')];
    t.advance(5_001);
    expect(t.mayServe('p1', 'shop.example.com')).toBe(false);
    const view = await t.names.prepare('shop.example.com');
    expect(serveRefusal('p2', 'shop.example.com', factsFromClaims(view!))).toBeUndefined();
    expect(t.mayServe('p2', 'shop.example.com')).toBe(true);
    expect(t.mayServe('p1', 'shop.example.com')).toBe(false);
  });

  it('reads nothing for a name no claim can have (".", "..", empty labels, too long) nor a claim in the base domain', async () => {
    const t = setup();
    for (const host of ['.', '..', 'a..b', '-x.example.com', `${'a'.repeat(64)}.example.com`, `${'a.'.repeat(127)}com`]) {
      const view = await t.names.prepare(host);
      expect(view?.hostnameClaims.get(host)).toBeUndefined();
    }
    await t.names.prepare(`made-up.p1.${BASE}`);
    expect(t.reads).toEqual([`hostname p1/made-up.p1.${BASE}`]);
  });

  it('reads at most 8 names at once and lets 256 wait; past that a read is refused at once', async () => {
    const t = setup();
    const release = t.hold();
    const waiting = Array.from({ length: 8 + 256 }, (_, i) => t.names.prepare(`n${i}.example.com`));
    await Promise.resolve();
    expect(t.reads).toHaveLength(8);
    await expect(t.names.prepare('one-more.example.com')).rejects.toThrow(/too many host names are being read at once/);
    release();
    await Promise.all(waiting.map((w) => w!));
    expect(t.reads).toHaveLength(8 + 256);
  });

  it('gives up a read the apiserver does not answer within 10 s, and reads the host again at the next ask', async () => {
    vi.useFakeTimers();
    try {
      const t = setup({ claims: [claim('shop.example.com', 'p1')], attachments: [attachment('p1', 'shop.example.com')] });
      const release = t.hold();
      const stuck = t.names.prepare('shop.example.com');
      const outcome = expect(stuck).rejects.toThrow(/took more than 10 s/);
      await vi.advanceTimersByTimeAsync(10_001);
      await outcome;
      release();
      await t.names.prepare('shop.example.com');
      expect(t.mayServe('p1', 'shop.example.com')).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
