// The ProjectDomain controller in this process against the real apiserver, with zones in memory
// (MemoryDnsProvider, failures injected with failNext) and a real parent-zone server for `test.` whose
// delegations the tests flip: what it decides for objects applied with kubectl, the periodic re-check
// (managed → pending_delegation when the delegation goes), records held and deleted, soft and hard deletes,
// and the conditions, reasons and Events it writes on the way.
import { randomBytes } from 'node:crypto';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { AppHostname } from '../../../src/apis/v1alpha1/app-hostname.ts';
import type { DnsRecord } from '../../../src/apis/v1alpha1/dns-record.ts';
import { API_VERSION } from '../../../src/apis/v1alpha1/group-version.ts';
import type { ProjectDomain } from '../../../src/apis/v1alpha1/project-domain.ts';
import { findCondition } from '../../../src/conditions/index.ts';
import { MemoryDnsProvider } from '../../../src/dns/memory-provider.ts';
import { startParentZoneServer, type ParentZoneServer } from '../../../src/dns/parent-zone-server.ts';
import { DnsProviderError } from '../../../src/dns/provider.ts';
import { createInformer, EVENTS, eventWriter, objectClient, type Informer, type KubeObject } from '../../../src/kube/index.ts';
import { testConnection, testNamespace } from '../../../src/kube/testing/test-kube.ts';
import { DELEGATION_CHECK_ANNOTATION, ZONE_FINALIZER } from '../../../src/apis/v1alpha1/project-domain.ts';
import { askDelegationCheck } from '../../../src/platform/domains/testing/delegation-check.ts';
import { backdateDelegated } from '../../../src/platform/domains/testing/backdate-delegation.ts';
import { testDnsSettings } from '../../testing/test-dns-settings.ts';
import { eventually } from '../../../e2e/harness/runtime-stack.ts';
import { APP_HOSTNAMES, DNS_RECORDS, DOMAIN_CLAIMS, PROJECT_DOMAINS, PROJECT_LABEL, TLS_CERTIFICATES } from '../../../src/platform/resources.ts';
import type { TlsCertificate } from '../../../src/apis/v1alpha1/tls-certificate.ts';
import type { DomainClaim } from '../../../src/apis/v1alpha1/domain-claim.ts';
import type { Controller } from '../../../src/controller-runtime/controller.ts';
import { EventRecorder } from '../../../src/controller-runtime/events.ts';
import { silentLogger } from '../../../src/logging/log.ts';
import { projectDomainController } from './controller.ts';
import { domainCertificateName, ensureDomainCertificate } from './certificate.ts';

const RECHECK_MS = 400;
/** A domain never delegated holds its name this long (as in production): the stale-claim test moves the clock past it. */
/** How far the controller's clock is ahead of the apiserver's. */
const conn = testConnection();
const domainClient = objectClient<ProjectDomain>(conn, PROJECT_DOMAINS);
const recordClient = objectClient<DnsRecord>(conn, DNS_RECORDS);
const claimClient = objectClient<DomainClaim>(conn, DOMAIN_CLAIMS);
const certificateClient = objectClient<TlsCertificate>(conn, TLS_CERTIFICATES);
/**
 * Zones in memory; `denied` domains answer access_denied to createZone, and `undeletable` zones unavailable to
 * deleteZone, for as long as they are listed.
 */
class DenyingProvider extends MemoryDnsProvider {
  readonly denied = new Set<string>();
  readonly undeletable = new Set<string>();
  override deleteZone(zoneId: string) {
    if (this.undeletable.has(zoneId)) return Promise.reject(new DnsProviderError('unavailable', { op: 'deleteZone' }));
    return super.deleteZone(zoneId);
  }
  override createZone(domain: string, callerReference: string) {
    if (this.denied.has(domain))
      return Promise.reject(new DnsProviderError('access_denied', { op: 'createZone', providerCode: 'AccessDenied', cause: new Error('arn:aws:iam::123456789012:user/secret') }));
    return super.createZone(domain, callerReference);
  }
}
const provider = new DenyingProvider({ ownerId: 'cloudwright' });
let parent: ParentZoneServer;
let namespaces: { name: string; remove: () => Promise<void> }[];
let ns: string;
let other: string;
let informers: { domains: Informer<ProjectDomain>; records: Informer<DnsRecord>; hostnames: Informer<AppHostname> };
let controller: Controller<ProjectDomain>;
/** The API's side: the delegation check it runs for `POST …/delegation-check`. */

beforeAll(async () => {
  parent = await startParentZoneServer({ suffix: 'test' });
  namespaces = await Promise.all([testNamespace(conn, 'pdctl'), testNamespace(conn, 'pdctl-other')]);
  [ns, other] = namespaces.map((n) => n.name) as [string, string];
  // Only this test's objects: the informers see the two namespaces' labelled objects, across both (a domain
  // held by another project is decided on the cluster-wide view).
  const labelSelector = `${PROJECT_LABEL} in (${ns},${other})`;
  informers = {
    domains: createInformer<ProjectDomain>(conn, PROJECT_DOMAINS, { labelSelector }),
    records: createInformer<DnsRecord>(conn, DNS_RECORDS, { labelSelector }),
    hostnames: createInformer<AppHostname>(conn, APP_HOSTNAMES, { labelSelector }),
  };
  const settings = testDnsSettings({
    provider,
    parentServer: parent.address,
    runtimeTarget: { hostname: 'runtime.apps.cw-ctl.test' },
    baseDomain: 'apps.cw-ctl.test',
    recheckIntervalMs: RECHECK_MS,
  });

  controller = projectDomainController({
    kube: conn,
    ...informers,
    settings,
    events: new EventRecorder({ writer: eventWriter(conn), component: 'projectdomain-test' }),
    registry: new Registry(),
    log: silentLogger,
    takenRecheckMs: 300,
  });
  for (const i of Object.values(informers)) i.start();
  await controller.start();
});

afterAll(async () => {
  // Let the controller run the finalizers of what is left, then stop it.
  for (const n of namespaces ?? []) for (const d of (await domainClient.list(n.name)).items) await domainClient.delete(n.name, d.metadata?.name ?? '').catch(() => {});
  await vi.waitFor(async () => expect([...(await domainClient.list(ns)).items, ...(await domainClient.list(other)).items]).toEqual([]), { timeout: 15_000 }).catch(() => {});
  await controller?.stop();
  for (const i of Object.values(informers ?? {})) i.stop();
  await Promise.all((namespaces ?? []).map((n) => n.remove()));
  await parent?.stop();
});

const newDomain = (prefix = 'ctl') => `${prefix}-${randomBytes(4).toString('hex')}.test`;
const condition = (d: { status?: { conditions?: Parameters<typeof findCondition>[0] } } | undefined, type: string) => findCondition(d?.status?.conditions, type);

async function apply(domain: string, options: { namespace?: string; name?: string; deleteAfterTest?: boolean } = {}): Promise<ProjectDomain> {
  const namespace = options.namespace ?? ns;
  if (options.deleteAfterTest) {
    // Domains that are looked at again and again (a name taken or refused) are gone before the next test.
    onTestFinished(async () => {
      for (const d of (await domainClient.list(namespace)).items.filter((o) => o.spec.domain === domain)) await domainClient.delete(namespace, d.metadata?.name ?? '').catch(() => {});
    });
  }
  return domainClient.create({
    apiVersion: API_VERSION,
    kind: 'ProjectDomain',
    metadata: { name: options.name ?? `${domain.replaceAll('.', '-')}-${randomBytes(3).toString('hex')}`, namespace, labels: { [PROJECT_LABEL]: namespace } },
    spec: { domain },
  });
}

async function addRecord(d: ProjectDomain, name: string, values: string[]): Promise<DnsRecord> {
  const namespace = d.metadata?.namespace ?? '';
  return recordClient.create({
    apiVersion: API_VERSION,
    kind: 'DnsRecord',
    metadata: {
      name: `r-${randomBytes(5).toString('hex')}`,
      namespace,
      labels: { [PROJECT_LABEL]: namespace },
      ownerReferences: [{ apiVersion: API_VERSION, kind: 'ProjectDomain', name: d.metadata?.name ?? '', uid: d.metadata?.uid ?? '' }],
    },
    spec: { domainRef: { name: d.metadata?.name ?? '' }, name, type: 'A', values },
  });
}

/** Polls the object from the apiserver until `ok` holds; answers it. Bounds leave room for a loaded CI machine. */
const until = async <T>(read: () => Promise<T | undefined>, ok: (o: T) => boolean, what: string, timeout = 30_000): Promise<T> =>
  (await eventually(what, read, (o) => o !== undefined && ok(o), timeout)) as T;

const live = (d: ProjectDomain) => () => domainClient.get(d.metadata?.namespace ?? '', d.metadata?.name ?? '');
const liveRecord = (r: DnsRecord) => () => recordClient.get(r.metadata?.namespace ?? '', r.metadata?.name ?? '');
const zoneNames = async (zoneId: string) => (await provider.listRecords(zoneId)).map((r) => `${r.name} ${r.type} ${r.values.join(',')}`);

async function events(d: ProjectDomain): Promise<{ type: string; reason: string; message: string }[]> {
  const list = await objectClient<KubeObject & { involvedObject: { uid?: string }; type: string; reason: string; message: string }>(conn, EVENTS).list(d.metadata?.namespace ?? '');
  return list.items.filter((e) => e.involvedObject.uid === d.metadata?.uid).map(({ type, reason, message }) => ({ type, reason, message }));
}

/** Makes `d` managed the way the API does: the parent zone delegates, then the delegation check runs. */
async function delegate(d: ProjectDomain): Promise<ProjectDomain> {
  const ready = await until(live(d), (o) => !!o.status?.hostedZoneId, 'zone created');
  parent.delegate(d.spec.domain, ready.status?.nameservers ?? []);
  const checked = await askDelegationCheck(domainClient, ready);
  expect(checked.status?.state).toBe('managed');
  return checked;
}

describe('a ProjectDomain applied with kubectl', () => {
  it('gets the zone finalizer and its zone, checks the delegation once the zone exists, and stays pending_delegation, saying what to do', async () => {
    const d = await apply(newDomain());
    const ready = await until(live(d), (o) => !!o.status?.hostedZoneId && o.status.lastCheckedAt !== undefined, 'zone, then a first check');
    expect(ready.metadata?.finalizers).toContain(ZONE_FINALIZER);
    expect(provider.backend.zones.get(ready.status?.hostedZoneId ?? '')?.domain).toBe(d.spec.domain);
    expect(ready.status).toMatchObject({ state: 'pending_delegation', nameservers: provider.backend.zones.get(ready.status?.hostedZoneId ?? '')?.nameservers });
    expect(condition(ready, 'ZoneReady')).toMatchObject({ status: 'True', reason: 'ZoneCreated' });
    expect(condition(ready, 'Delegated')).toMatchObject({ status: 'False', reason: 'NotDelegated' });
    expect(condition(ready, 'Ready')).toMatchObject({ status: 'False', reason: 'PendingDelegation' });
    expect(condition(ready, 'Ready')?.message).toContain(`set the nameservers at your registrar to ${ready.status?.nameservers?.join(', ')}`);
    expect(ready.status?.observedGeneration).toBe(ready.metadata?.generation);
    await vi.waitFor(async () => expect(await events(ready)).toContainEqual(expect.objectContaining({ type: 'Normal', reason: 'PendingDelegation' })), { timeout: 30_000 });
  });

  it('holds records while pending (DelegationPending), and writes them once managed', async () => {
    const d = await apply(newDomain());
    const zoned = await until(live(d), (o) => !!o.status?.hostedZoneId, 'zone');
    const www = await addRecord(zoned, 'www', ['192.0.2.1']);
    const held = await until(liveRecord(www), (r) => condition(r, 'Ready')?.reason === 'DelegationPending', 'held');
    expect(condition(held, 'Ready')?.status).toBe('False');
    const pending = await until(live(d), (o) => condition(o, 'RecordsApplied')?.reason === 'DelegationPending', 'RecordsApplied');
    expect(condition(pending, 'RecordsApplied')?.message).toContain('1 record(s) wait for the delegation');
    expect(await zoneNames(zoned.status?.hostedZoneId ?? '')).not.toContain(`www.${d.spec.domain} A 192.0.2.1`);

    await delegate(zoned);
    await until(liveRecord(www), (r) => condition(r, 'Ready')?.status === 'True', 'applied');
    expect(await zoneNames(zoned.status?.hostedZoneId ?? '')).toContain(`www.${d.spec.domain} A 192.0.2.1`);
    const managed = await until(live(d), (o) => condition(o, 'Ready')?.reason === 'Managed', 'Ready Managed');
    for (const type of ['ZoneReady', 'Delegated', 'RecordsApplied', 'Ready']) expect(condition(managed, type)?.status, type).toBe('True');
    expect(managed.status?.records).toBe(1);
  });
});

describe('the periodic re-check', () => {
  it('re-checks a managed domain every interval, and moves it back to pending_delegation when the delegation is gone', async () => {
    const d = await apply(newDomain('recheck'));
    const managed = await delegate(d);
    const zoneId = managed.status?.hostedZoneId ?? '';
    const www = await addRecord(managed, 'www', ['192.0.2.1']);
    await until(liveRecord(www), (r) => condition(r, 'Ready')?.status === 'True', 'applied');

    // Still delegated: the re-check keeps it managed and moves lastCheckedAt on (seconds resolution).
    const first = managed.status?.lastCheckedAt ?? '';
    const rechecked = await until(live(d), (o) => (o.status?.lastCheckedAt ?? '') > first, 'lastCheckedAt advances', 15_000);
    expect(rechecked.status?.state).toBe('managed');

    parent.undelegate(d.spec.domain);
    const lost = await until(live(d), (o) => o.status?.state === 'pending_delegation', 'back to pending_delegation', 15_000);
    expect(condition(lost, 'Delegated')).toMatchObject({ status: 'False', reason: 'NotDelegated' });
    expect(condition(lost, 'Delegated')?.message).toContain(`lists no nameservers for ${d.spec.domain}`);
    expect(condition(lost, 'Delegated')?.message).toContain('Then run the delegation check again.');
    expect(condition(lost, 'Ready')).toMatchObject({ status: 'False', reason: 'PendingDelegation' });
    expect(lost.status?.delegatedNameservers).toEqual([]);
    await vi.waitFor(
      async () => {
        // An Event when Ready changes under the controller, saying why.
        const seen = await events(lost);
        expect(seen).toContainEqual(expect.objectContaining({ type: 'Normal', reason: 'PendingDelegation', message: expect.stringContaining('lists no nameservers') }));
      },
      { timeout: 30_000 },
    );

    // Pending: a new record is held, deletes still happen.
    const api = await addRecord(lost, 'api', ['192.0.2.2']);
    await until(liveRecord(api), (r) => condition(r, 'Ready')?.reason === 'DelegationPending', 'held');
    await recordClient.delete(ns, www.metadata?.name ?? '');
    await vi.waitFor(async () => expect(await zoneNames(zoneId)).not.toContain(`www.${d.spec.domain} A 192.0.2.1`), { timeout: 30_000 });
    expect(await zoneNames(zoneId)).not.toContain(`api.${d.spec.domain} A 192.0.2.2`);

    // And it is re-checked on its own (here at the interval, the most the pending schedule backs off to): still
    // pending while the parent zone lists nothing, managed again by itself once it delegates, with no request.
    const pendingCheck = await until(live(d), (o) => (o.status?.lastCheckedAt ?? '') > (lost.status?.lastCheckedAt ?? ''), 'a pending re-check', 15_000);
    expect(pendingCheck.status?.state).toBe('pending_delegation');
    parent.delegate(d.spec.domain, pendingCheck.status?.nameservers ?? []);
    const back = await until(live(d), (o) => o.status?.state === 'managed', 'managed again without a request', 15_000);
    expect(back.metadata?.annotations?.[DELEGATION_CHECK_ANNOTATION]).toBe(lost.metadata?.annotations?.[DELEGATION_CHECK_ANNOTATION]); // no new request
    await until(liveRecord(api), (r) => condition(r, 'Ready')?.reason === 'Applied', 'the held record written');
  });
});

describe('what the controller refuses', () => {
  it('gives a domain another project added first and delegated Ready=False DomainTaken and no zone', async () => {
    const domain = newDomain('taken');
    const first = await apply(domain, { namespace: other, name: `a-${domain.replaceAll('.', '-')}` });
    await delegate(first);
    const second = await apply(domain, { name: `b-${domain.replaceAll('.', '-')}` });
    const taken = await until(live(second), (o) => condition(o, 'Ready')?.reason === 'DomainTaken', 'DomainTaken');
    expect(taken.status?.hostedZoneId).toBeUndefined();
    expect(condition(taken, 'ZoneReady')).toMatchObject({ status: 'False', reason: 'DomainTaken' });
    expect(condition(taken, 'Ready')?.message).toContain('a domain can belong to one project only');
    expect(condition(taken, 'Ready')?.message, 'the other project is not named').not.toContain(other);
    expect([...provider.backend.zones.values()].filter((z) => z.domain === domain)).toHaveLength(1);
    await vi.waitFor(async () => expect(await events(taken)).toContainEqual(expect.objectContaining({ type: 'Warning', reason: 'DomainTaken' })), { timeout: 30_000 });

    // Deleted there, the name is free: the recheck gives this one its zone without any change of its own.
    await domainClient.delete(other, first.metadata?.name ?? '');
    const freed = await until(live(second), (o) => !!o.status?.hostedZoneId, 'zone once the other is deleted');
    expect(condition(freed, 'ZoneReady')).toMatchObject({ status: 'True', reason: 'ZoneCreated' });
  });

  it("refuses the platform's base domain and names in it (ReservedDomain), whoever applies them", async () => {
    for (const name of ['apps.cw-ctl.test', `${other}.apps.cw-ctl.test`]) {
      const d = await apply(name, { deleteAfterTest: true });
      const refused = await until(live(d), (o) => condition(o, 'Ready')?.reason === 'ReservedDomain', `${name} ReservedDomain`);
      expect(condition(refused, 'Ready')?.message).toBe(`${name} cannot be a project domain: the platform serves apps under apps.cw-ctl.test.`);
      expect(refused.status?.hostedZoneId).toBeUndefined();
      expect([...provider.backend.zones.values()].filter((z) => z.domain === name)).toEqual([]);
    }
  });

  it("refuses a name under another project's delegated domain (UnderAnotherProject), and lets that project add it", async () => {
    const domain = newDomain('parent');
    const theirs = await apply(domain, { namespace: other, deleteAfterTest: true });
    await delegate(theirs);
    const nested = await apply(`shop.${domain}`, { deleteAfterTest: true });
    const refused = await until(live(nested), (o) => condition(o, 'Ready')?.reason === 'UnderAnotherProject', 'UnderAnotherProject');
    expect(condition(refused, 'Ready')?.message).toBe(`shop.${domain} is under ${domain}, a domain of another project; only that project can add names under it.`);
    expect(refused.status?.hostedZoneId).toBeUndefined();
    const own = await apply(`shop.${domain}`, { namespace: other, deleteAfterTest: true });
    await until(live(own), (o) => !!o.status?.hostedZoneId, 'zone for the owner of the parent');
  });

  it('lets a project that delegates a domain take it over from a holder that never did, however recent', async () => {
    const domain = newDomain('squat');
    const squatter = await apply(domain, { namespace: other, deleteAfterTest: true });
    await until(live(squatter), (o) => !!o.status?.hostedZoneId, 'the squatter’s zone');
    const owner = await apply(domain, { deleteAfterTest: true });
    const challenging = await until(live(owner), (o) => !!o.status?.hostedZoneId && condition(o, 'Ready')?.reason === 'DomainTaken', 'a zone of its own to prove delegation with');
    expect(condition(challenging, 'Ready')?.message).toContain(`delegate ${domain} to ${challenging.status?.nameservers?.join(', ')}`);
    parent.delegate(domain, challenging.status?.nameservers ?? []);
    const taken = await askDelegationCheck(domainClient, challenging);
    expect(taken.status?.state).toBe('managed');
    const lost = await until(live(squatter), (o) => condition(o, 'Ready')?.reason === 'DomainTaken' && !o.status?.hostedZoneId, 'the squatter lost the name and its zone');
    expect(provider.backend.zones.get(squatter.status?.hostedZoneId ?? lost.metadata?.uid ?? '')).toBeUndefined();
    expect([...provider.backend.zones.values()].filter((z) => z.domain === domain)).toHaveLength(1);
  });

  it('lets a project that proves its delegation take over a domain whose holder was found delegated elsewhere for a day, and not sooner (review-163 F4)', async () => {
    const domain = newDomain('lapsed');
    const former = await delegate(await apply(domain, { namespace: other, deleteAfterTest: true }));
    // The registrar points elsewhere (a lapsed registration, bought again by someone else).
    parent.delegate(domain, ['ns1.elsewhere.example', 'ns2.elsewhere.example']);
    const lapsing = await askDelegationCheck(domainClient, former);
    expect(condition(lapsing, 'Delegated')).toMatchObject({ status: 'False', reason: 'NameserversMismatch' });

    // Within the day's grace the holder still holds: the new owner gets no zone, as against a delegated holder.
    const owner = await apply(domain, { deleteAfterTest: true });
    const refused = await until(live(owner), (o) => condition(o, 'Ready')?.reason === 'DomainTaken', 'refused within the grace');
    expect(refused.status?.hostedZoneId).toBeUndefined();
    expect(condition(refused, 'Ready')?.message).toContain('a domain can belong to one project only');

    // Found not delegated for more than a day: the new owner gets a zone of its own to delegate to, nothing served.
    await backdateDelegated(domainClient, former, 25);
    const challenging = await until(live(owner), (o) => !!o.status?.hostedZoneId && condition(o, 'Ready')?.reason === 'DomainTaken', 'a zone to prove delegation with');
    expect(condition(challenging, 'Ready')?.message).toBe(
      `${domain} is held by another project whose delegation of it has lapsed for a day; delegate ${domain} to ${challenging.status?.nameservers?.join(', ')} and run the delegation check to take it over.`,
    );
    expect(challenging.status?.nameservers).not.toEqual(former.status?.nameservers);
    expect((await claimClient.get('', domain))?.spec.holder.uid).toBe(former.metadata?.uid);
    parent.delegate(domain, challenging.status?.nameservers ?? []);
    const taken = await askDelegationCheck(domainClient, challenging);
    expect(taken.status?.state).toBe('managed');
    expect(condition(taken, 'Ready')).toMatchObject({ status: 'True', reason: 'Managed' });
    expect((await claimClient.get('', domain))?.spec.holder.uid).toBe(owner.metadata?.uid);

    // The former holder says so, its zone (delegated once) kept until it is deleted.
    const lost = await until(live(former), (o) => condition(o, 'Ready')?.reason === 'DomainTakenOver', 'the former holder told');
    expect(condition(lost, 'Ready')).toMatchObject({ status: 'False', message: expect.stringContaining(`${domain} was taken over by another project`) });
    expect(condition(lost, 'Stalled')).toMatchObject({ status: 'True', reason: 'DomainTakenOver' });
    expect(lost.status?.hostedZoneId).toBe(former.status?.hostedZoneId);

    // Delegated to its own zone again, it does not take the name back while the new holder's delegation is recent.
    parent.delegate(domain, former.status?.nameservers ?? []);
    const again = await askDelegationCheck(domainClient, lost);
    expect(condition(again, 'Ready')?.reason).toBe('DomainTakenOver');
    expect((await claimClient.get('', domain))?.spec.holder.uid).toBe(owner.metadata?.uid);
  });

  it('lets the new owner of a name take it over from a project whose delegations of it and of a name inside it both lapsed (review-171 F3)', async () => {
    const domain = newDomain('apex');
    const child = await delegate(await apply(`eu.${domain}`, { namespace: other, deleteAfterTest: true }));
    const apex = await delegate(await apply(domain, { namespace: other, deleteAfterTest: true }));
    // The registrar points the name elsewhere (its new owner's servers), which hides the former zones of both.
    parent.delegate(domain, ['ns1.elsewhere.example', 'ns2.elsewhere.example']);
    for (const d of [apex, child]) {
      const lapsing = await askDelegationCheck(domainClient, d);
      expect(lapsing.status?.state).toBe('pending_delegation');
      await backdateDelegated(domainClient, lapsing, 25);
    }

    // Nor does the lapsed parent keep it out of the name inside: challenged like the name's own lapsed holder.
    const inside = await apply(`eu.${domain}`, { deleteAfterTest: true });
    const under = await until(live(inside), (o) => !!o.status?.hostedZoneId && condition(o, 'Ready')?.reason === 'DomainTaken', 'a zone for the name inside');
    expect(condition(under, 'Ready')?.message).toContain('whose delegation of it has lapsed for a day');

    // Neither the lapsed name inside it nor the lapsed holder itself keeps the new owner out: a zone to delegate to.
    const owner = await apply(domain, { deleteAfterTest: true });
    const challenging = await until(live(owner), (o) => !!o.status?.hostedZoneId && condition(o, 'Ready')?.reason === 'DomainTaken', 'a zone to prove delegation with');
    expect(condition(challenging, 'Ready')?.message).toContain('whose delegation of it has lapsed for a day');
    parent.delegate(domain, challenging.status?.nameservers ?? []);
    const taken = await askDelegationCheck(domainClient, challenging);
    expect(taken.status?.state).toBe('managed');
    expect((await claimClient.get('', domain))?.spec.holder.uid).toBe(owner.metadata?.uid);
    await until(live(apex), (o) => condition(o, 'Ready')?.reason === 'DomainTakenOver', 'the former holder told');
  });

  it('records when the parent zone first answered that it delegates the name elsewhere, keeps it through later answers, clears it once delegated (review-171 F2)', async () => {
    const domain = newDomain('clock');
    const d = await delegate(await apply(domain, { deleteAfterTest: true }));
    expect(d.status?.notDelegatedSince).toBeUndefined();
    parent.delegate(domain, ['ns1.elsewhere.example', 'ns2.elsewhere.example']);
    const first = await askDelegationCheck(domainClient, d);
    expect(first.status).toMatchObject({ lastCheckOutcome: 'NameserversMismatch', notDelegatedSince: first.status?.lastCheckedAt });
    parent.undelegate(domain);
    const second = await askDelegationCheck(domainClient, first);
    expect(second.status).toMatchObject({ lastCheckOutcome: 'NotDelegated', notDelegatedSince: first.status?.notDelegatedSince });
    parent.delegate(domain, d.status?.nameservers ?? []);
    const back = await askDelegationCheck(domainClient, second);
    expect(back.status).toMatchObject({ state: 'managed', lastCheckOutcome: 'Delegated' });
    expect(back.status?.notDelegatedSince).toBeUndefined();
  });

  it("refuses a parent added above another project's delegated domain (DomainTaken), which keeps its zone and records", async () => {
    const domain = newDomain('above');
    const child = await apply(`dev.${domain}`, { namespace: other, deleteAfterTest: true });
    const managed = await delegate(child);
    const www = await addRecord(managed, 'www', ['192.0.2.7']);
    await until(liveRecord(www), (r) => condition(r, 'Ready')?.status === 'True', 'the child’s record applied');

    const parentDomain = await apply(domain, { deleteAfterTest: true });
    const decided = await until(live(parentDomain), (o) => condition(o, 'ZoneReady') !== undefined, 'the parent decided');
    expect(condition(decided, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'DomainTaken',
      message: `${domain} contains dev.${domain}, a domain of another project; a domain cannot take in another project's domain, so ${domain} can be added once dev.${domain} is deleted there.`,
    });
    expect(decided.status?.hostedZoneId).toBeUndefined();
    expect([...provider.backend.zones.values()].filter((z) => z.domain === domain)).toEqual([]);

    // The child's next pass (asked for now) finds nothing above it that may take it in: still managed, zone and records kept.
    const after = await askDelegationCheck(domainClient, managed);
    expect(after.status).toMatchObject({ state: 'managed', hostedZoneId: managed.status?.hostedZoneId });
    expect(condition(after, 'Ready')).toMatchObject({ status: 'True', reason: 'Managed' });
    expect(await zoneNames(managed.status?.hostedZoneId ?? '')).toContain(`www.dev.${domain} A 192.0.2.7`);
  });

  it('lets a parent stand beside a domain inside it that another project never delegated, and refuses that one once the parent proves its delegation', async () => {
    const domain = newDomain('unproven');
    const child = await apply(`dev.${domain}`, { namespace: other, deleteAfterTest: true });
    const zoned = await until(live(child), (o) => !!o.status?.hostedZoneId, 'the child’s zone');
    const parentDomain = await apply(domain, { deleteAfterTest: true });
    const beside = await until(live(parentDomain), (o) => !!o.status?.hostedZoneId, 'the parent’s zone');
    expect(condition(beside, 'Ready')?.reason).toBe('PendingDelegation');
    expect(condition(await domainClient.get(other, child.metadata?.name ?? ''), 'Ready')?.reason).toBe('PendingDelegation');
    await delegate(beside);
    const refused = await until(live(child), (o) => condition(o, 'Ready')?.reason === 'UnderAnotherProject' && !o.status?.hostedZoneId, 'the unproven child refused');
    expect(refused.status?.zonesDeleted).toBe(1);
    expect(provider.backend.zones.has(zoned.status?.hostedZoneId ?? '')).toBe(false);

    // The parent gone, the child may have a zone again: a new one, under a caller reference the provider has not seen.
    await domainClient.delete(ns, parentDomain.metadata?.name ?? '');
    const again = await until(live(child), (o) => condition(o, 'ZoneReady')?.status === 'True', 'a new zone for the child');
    expect(again.status?.hostedZoneId).not.toBe(zoned.status?.hostedZoneId);
    expect(provider.backend.zones.get(again.status?.hostedZoneId ?? '')?.domain).toBe(`dev.${domain}`);
  });

  it('never deletes a zone that was delegated when the domain loses its name: it stays until the domain is deleted', async () => {
    const domain = newDomain('keep');
    const d = await apply(domain, { deleteAfterTest: true });
    const managed = await delegate(d);
    const rival = await apply(domain, { namespace: other, deleteAfterTest: true });
    await until(live(rival), (o) => condition(o, 'Ready')?.reason === 'DomainTaken', 'the rival refused');
    // The name's claim passes behind this domain's back to a rival that proved a delegation of its own (as an
    // administrator could make it): a holder that never proved one would be taken over again.
    await domainClient.patchStatus(other, rival.metadata?.name ?? '', { status: { delegatedAt: '2026-01-01T00:00:00Z' } });
    await claimClient.patch('', domain, { spec: { holder: { kind: 'ProjectDomain', namespace: other, name: rival.metadata?.name ?? '', uid: rival.metadata?.uid ?? '' } } });
    const lost = await askDelegationCheck(domainClient, managed);
    expect(condition(lost, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'DomainTakenOver',
      message: expect.stringContaining(`Its hosted zone, delegated once, is kept until ${domain} is deleted.`),
    });
    expect(lost.status?.hostedZoneId).toBe(managed.status?.hostedZoneId);
    expect(provider.backend.zones.has(managed.status?.hostedZoneId ?? '')).toBe(true);
    // Deleting the domain deletes it.
    await domainClient.patch(ns, d.metadata?.name ?? '', { spec: { deleted: true } });
    await until(live(d), (o) => o.status?.state === 'deleted', 'deleted');
    expect(provider.backend.zones.has(managed.status?.hostedZoneId ?? '')).toBe(false);
  });

  it('gives a name the API would refuse Ready=False InvalidDomain and no zone', async () => {
    const d = await apply('github.io');
    const invalid = await until(live(d), (o) => condition(o, 'Ready')?.reason === 'InvalidDomain', 'InvalidDomain');
    expect(condition(invalid, 'Ready')?.message).toContain('is a public suffix');
    expect(invalid.status?.hostedZoneId).toBeUndefined();
    expect([...provider.backend.zones.values()].filter((z) => z.domain === 'github.io')).toEqual([]);
  });

  it('retries a retryable provider failure until the zone exists, reporting it on the way', async () => {
    provider.failNext('createZone');
    const d = await apply(newDomain('retry'));
    const ready = await until(live(d), (o) => condition(o, 'ZoneReady')?.status === 'True', 'zone after retry');
    expect(ready.status?.hostedZoneId).toMatch(/^ZMEM/);
    await vi.waitFor(async () => expect(await events(ready)).toContainEqual(expect.objectContaining({ type: 'Warning', reason: 'ProviderUnavailable' })), { timeout: 30_000 });
  });

  it('keeps a provider failure retrying will not fix in the conditions, with the fixed provider message', async () => {
    const domain = newDomain('denied');
    provider.denied.add(domain);
    const d = await apply(domain);
    const denied = await until(live(d), (o) => condition(o, 'ZoneReady')?.reason === 'ProviderAccessDenied', 'ProviderAccessDenied');
    expect(condition(denied, 'Ready')).toMatchObject({ status: 'False', reason: 'ProviderAccessDenied' });
    expect(condition(denied, 'ZoneReady')?.message).toContain('The platform keeps retrying.');
    expect(JSON.stringify(denied.status)).not.toMatch(/arn:aws|123456789012/);
    expect(denied.status?.hostedZoneId).toBeUndefined();
    // Not retried at the retryable pace: once the provider would answer, the zone still waits (5 minutes),
    // even when an event about the object (its own status write, or an edit that leaves the spec alone) has
    // it reconciled meanwhile.
    provider.denied.delete(domain);
    await domainClient.patch(d.metadata?.namespace ?? '', d.metadata?.name ?? '', { metadata: { annotations: { nudge: '1' } } });
    // The controller's cache has the edit, so its key was queued (the same event); once the queue is idle, it was looked at.
    // (Bounds of seconds, not vitest's default one: other domains of this file may keep the queue busy for a while on a loaded machine.)
    await vi.waitFor(() => expect(informers.domains.get(`${ns}/${d.metadata?.name}`)?.metadata?.annotations?.['nudge']).toBe('1'), { timeout: 30_000, interval: 20 });
    await vi.waitFor(() => expect(controller.queue.len() + controller.queue.processing()).toBe(0), { timeout: 30_000, interval: 20 });
    expect((await live(d)())?.status?.hostedZoneId).toBeUndefined();
    expect([...provider.backend.zones.values()].some((z) => z.domain === domain)).toBe(false);
  });
});

describe('deletion', () => {
  it('soft delete: records, zone and certificate go, the object stays as history without the finalizer', async () => {
    const d = await apply(newDomain('soft'));
    const managed = await delegate(d);
    const www = await addRecord(managed, 'www', ['192.0.2.1']);
    await until(liveRecord(www), (r) => condition(r, 'Ready')?.status === 'True', 'applied');
    // The certificate the controller keeps for a managed domain (made here as it makes it: TLS is off in this file).
    await ensureDomainCertificate(certificateClient, managed);
    expect(await certificateClient.get(ns, domainCertificateName(managed))).toBeDefined();
    await domainClient.patch(ns, d.metadata?.name ?? '', { spec: { deleted: true } });
    const deleted = await until(live(d), (o) => o.status?.state === 'deleted' && !o.metadata?.finalizers?.includes(ZONE_FINALIZER), 'deleted');
    expect(deleted.status?.hostedZoneId).toBeUndefined();
    expect(deleted.status?.deletedAt).toMatch(/^\d{4}-/);
    expect(condition(deleted, 'Ready')).toMatchObject({ status: 'False', reason: 'Deleted' });
    expect(provider.backend.zones.has(managed.status?.hostedZoneId ?? '')).toBe(false);
    expect(await recordClient.get(ns, www.metadata?.name ?? '')).toBeUndefined();
    // Deleted, so its finalizer revokes it and deletes its key: the kept object would never let the garbage collector.
    expect(await certificateClient.get(ns, domainCertificateName(managed))).toBeUndefined();
  });

  it('kubectl delete: the zone goes first, then the finalizer and the object', async () => {
    const d = await apply(newDomain('hard'));
    const zoned = await until(live(d), (o) => !!o.status?.hostedZoneId && !!o.metadata?.finalizers?.includes(ZONE_FINALIZER), 'zone');
    await domainClient.delete(ns, d.metadata?.name ?? '');
    await vi.waitFor(async () => expect(await live(d)()).toBeUndefined(), { timeout: 30_000 });
    expect(provider.backend.zones.has(zoned.status?.hostedZoneId ?? '')).toBe(false);
  });

  it('deletes a zone whose id never reached the status (the pass that created it died first)', async () => {
    const domain = newDomain('orphan');
    const name = `${domain.replaceAll('.', '-')}-x`;
    // Unlabelled, the controller does not see it yet: the zone is made as a pass would make it, and the
    // object is deleted before any pass recorded the zone.
    const d = await domainClient.create({ apiVersion: API_VERSION, kind: 'ProjectDomain', metadata: { name, namespace: ns, finalizers: [ZONE_FINALIZER] }, spec: { domain } });
    const zone = await provider.createZone(domain, d.metadata?.uid ?? '');
    await domainClient.delete(ns, name);
    await domainClient.patch(ns, name, { metadata: { labels: { [PROJECT_LABEL]: ns } } });
    await vi.waitFor(async () => expect(await live(d)()).toBeUndefined(), { timeout: 30_000 });
    expect(provider.backend.zones.has(zone.zoneId)).toBe(false);
  });

  it('keeps the finalizer while the zone cannot be deleted, and finishes once it can', async () => {
    const d = await apply(newDomain('stuck'));
    const zoned = await until(live(d), (o) => !!o.status?.hostedZoneId && !!o.metadata?.finalizers?.includes(ZONE_FINALIZER), 'zone');
    const zoneId = zoned.status?.hostedZoneId ?? '';
    provider.undeletable.add(zoneId);
    await domainClient.delete(ns, d.metadata?.name ?? '');
    const held = await until(live(d), (o) => condition(o, 'Ready')?.reason === 'ZoneDeletionFailed', 'the deletion held');
    expect(held?.metadata?.deletionTimestamp).toBeDefined();
    expect(held?.metadata?.finalizers).toContain(ZONE_FINALIZER);
    expect(provider.backend.zones.has(zoneId)).toBe(true);
    // What holds the deletion is on the object, not only in the operator's log.
    expect(condition(held, 'Ready')).toMatchObject({ status: 'False', reason: 'ZoneDeletionFailed', message: expect.stringMatching(/could not be deleted: The DNS provider is unavailable/) });
    expect(condition(held, 'ZoneReady')).toMatchObject({ status: 'False', reason: 'ProviderUnavailable' });
    // The failure is retried with backoff: the object goes once the zone could be deleted.
    provider.undeletable.delete(zoneId);
    await vi.waitFor(async () => expect(await live(d)()).toBeUndefined(), { timeout: 15_000 });
    expect(provider.backend.zones.has(zoned.status?.hostedZoneId ?? '')).toBe(false);
  });
});
