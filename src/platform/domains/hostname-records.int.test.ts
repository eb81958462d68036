// ensureManagedRecords against the real apiserver when its cache is behind: the operator writes the same
// records, so the version a request read can be stale by the time it writes.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AppHostname } from '../../apis/v1alpha1/app-hostname.ts';
import type { DnsRecord } from '../../apis/v1alpha1/dns-record.ts';
import type { ProjectDomain } from '../../apis/v1alpha1/project-domain.ts';
import type { Informer } from '../../kube/index.ts';
import { testConnection, testNamespace } from '../../kube/testing/test-kube.ts';
import { DNS_RECORDS } from '../resources.ts';
import { DomainStore } from './domain-store.ts';
import { desiredManagedRecords, ensureManagedRecords } from './hostname-records.ts';

/** A cache frozen at what it was given: it never sees a write. */
function frozenCache<T extends DnsRecord | ProjectDomain | AppHostname>(objects: readonly T[]): Informer<T> {
  const byKey = new Map(objects.map((o) => [`${o.metadata?.namespace}/${o.metadata?.name}`, o]));
  return {
    resource: DNS_RECORDS,
    onChange: () => () => {},
    onQuietChange: () => () => {},
    get: (key) => byKey.get(key),
    list: () => [...byKey.values()],
    changes: () => 0,
    hasSynced: () => true,
    waitForSync: async () => {},
    start: () => {},
    stop: () => {},
  };
}

const conn = testConnection();
let ns: Awaited<ReturnType<typeof testNamespace>>;
beforeAll(async () => {
  ns = await testNamespace(conn, 'hostname-records');
});
afterAll(async () => ns?.remove());

describe('ensureManagedRecords', () => {
  it('writes over a record changed since the cache saw it, by reading it again, instead of failing with a conflict', async () => {
    const domain: ProjectDomain = { metadata: { name: 'shop-test', namespace: ns.name, uid: 'd-uid' }, spec: { domain: 'shop.test' } };
    const binding: AppHostname = {
      metadata: { name: 'www.shop.test', namespace: ns.name, uid: 'h-uid' },
      spec: { appRef: { name: 'web' }, hostname: 'www.shop.test', dnsMode: 'managed_project_domain' },
    };
    const [desired] = desiredManagedRecords(binding, domain, { hostname: 'runtime.example.net' });
    if (!desired) throw new Error('no record desired');
    // Without the owner reference: its owner does not exist here, and the garbage collector would take the record.
    const want: DnsRecord = { ...desired, metadata: { ...desired.metadata, ownerReferences: [] } };
    const probe = new DomainStore(conn, { domains: frozenCache([]), records: frozenCache([]), hostnames: frozenCache([]) });
    // The record as the cache last saw it, then changed on the apiserver (another writer).
    const seen = await probe.recordClient.create({ ...want, spec: { ...want.spec, values: ['old.example.net'] } });
    await probe.recordClient.replace({ ...seen, spec: { ...seen.spec, ttl: 600 } });

    const store = new DomainStore(conn, { domains: frozenCache([]), records: frozenCache([seen]), hostnames: frozenCache([]) }, { cacheWaitMs: 10 });
    const [written] = await ensureManagedRecords(store, [want]);
    expect(written?.spec).toEqual(want.spec);
    expect((await store.recordClient.get(ns.name, want.metadata?.name ?? ''))?.spec).toEqual(want.spec);
  });
});

describe('DomainStore status writes', () => {
  it("writes a status on the caller's copy without reading the object first, and reads it afresh when that copy was stale", async () => {
    const hostname = (name: string): AppHostname => ({
      apiVersion: 'cloudwright.dev/v1alpha1',
      kind: 'AppHostname',
      metadata: { name, namespace: ns.name },
      spec: { appRef: { name: 'web' }, hostname: name, dnsMode: 'external_records' },
    });
    const store = new DomainStore(conn, { domains: frozenCache([]), records: frozenCache([]), hostnames: frozenCache([]) }, { cacheWaitMs: 10 });
    const reads = vi.spyOn(store.hostnameClient, 'get');
    const current = await store.hostnameClient.create(hostname('fresh.status.test'));
    reads.mockClear();
    const written = await store.updateHostnameStatus(current, () => ({ state: 'pending' }));
    expect(written.status?.state).toBe('pending');
    expect(reads).not.toHaveBeenCalled();

    // Changed since this copy was taken (another writer): the write conflicts, then builds on a fresh read.
    const moved = await store.updateHostnameStatus(written, () => ({ state: 'active' }));
    reads.mockClear();
    const again = await store.updateHostnameStatus(written, () => ({ state: 'pending' }));
    expect([again.status?.state, reads.mock.calls.length]).toEqual(['pending', 1]);
    // Nothing to change by that stale copy is not taken on its word: the object as it is now decides.
    reads.mockClear();
    const decided = await store.updateHostnameStatus(moved, (live) => (live.status?.state === 'active' ? undefined : { state: 'active' }));
    expect([decided.status?.state, reads.mock.calls.length]).toEqual(['active', 1]);
  });
});
