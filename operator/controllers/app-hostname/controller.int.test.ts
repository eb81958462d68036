// The AppHostname controller in this process against the real apiserver, beside the ProjectDomain
// controller (which writes DnsRecords into the zone, here in memory) and a real parent-zone server for
// `test.`: what it decides for bindings however they were made — RuntimeAttached from the app, the records
// to publish in external mode, the platform-owned records and DnsReady in managed mode, and finalize: the
// records verified and the hostname activated and claimed, without writing its app.
import { randomBytes } from 'node:crypto';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { VERIFY_ANNOTATION, type AppHostname } from '../../../src/apis/v1alpha1/app-hostname.ts';
import type { DnsRecord } from '../../../src/apis/v1alpha1/dns-record.ts';
import { API_VERSION } from '../../../src/apis/v1alpha1/group-version.ts';
import type { ProjectDomain } from '../../../src/apis/v1alpha1/project-domain.ts';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { findCondition } from '../../../src/conditions/index.ts';
import { MemoryDnsProvider } from '../../../src/dns/memory-provider.ts';
import { startParentZoneServer, type ParentZoneServer } from '../../../src/dns/parent-zone-server.ts';
import type { ParentZoneRecordType } from '../../../src/dns/parent-zone.ts';
import { createInformer, eventWriter, objectClient, type Informer } from '../../../src/kube/index.ts';
import { testConnection, testNamespace } from '../../../src/kube/testing/test-kube.ts';
import { askDelegationCheck } from '../../../src/platform/domains/testing/delegation-check.ts';
import { backdateDelegated } from '../../../src/platform/domains/testing/backdate-delegation.ts';
import { testDnsSettings } from '../../testing/test-dns-settings.ts';
import { eventually } from '../../../e2e/harness/runtime-stack.ts';
import { challengeToken } from '../../../src/platform/domains/hostname-records.ts';
import { APP_HOSTNAMES, DNS_RECORDS, HOSTNAME_CLAIMS, PROJECT_DOMAINS, PROJECT_LABEL, RUNTIME_APPS, TLS_CERTIFICATES } from '../../../src/platform/resources.ts';
import type { TlsCertificate } from '../../../src/apis/v1alpha1/tls-certificate.ts';
import type { HostnameClaim } from '../../../src/apis/v1alpha1/domain-claim.ts';
import type { Controller } from '../../../src/controller-runtime/controller.ts';
import { EventRecorder } from '../../../src/controller-runtime/events.ts';
import { silentLogger } from '../../../src/logging/log.ts';
import { projectDomainController } from '../project-domain/controller.ts';
import { appHostnameController } from './controller.ts';

const TARGET = 'runtime.apps.cw-hostctl.test';
const conn = testConnection();
const hostnames = objectClient<AppHostname>(conn, APP_HOSTNAMES);
const claims = objectClient<HostnameClaim>(conn, HOSTNAME_CLAIMS);
const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
const domainClient = objectClient<ProjectDomain>(conn, PROJECT_DOMAINS);
const recordClient = objectClient<DnsRecord>(conn, DNS_RECORDS);
const certificateClient = objectClient<TlsCertificate>(conn, TLS_CERTIFICATES);
const provider = new MemoryDnsProvider({ ownerId: 'cloudwright' });
let parent: ParentZoneServer;
let namespace: { name: string; remove: () => Promise<void> };
let ns: string;
let informers: {
  domains: Informer<ProjectDomain>;
  records: Informer<DnsRecord>;
  hostnames: Informer<AppHostname>;
  apps: Informer<RuntimeApp>;
};
let controllers: Controller[];
let settings: ReturnType<typeof testDnsSettings>;

beforeAll(async () => {
  parent = await startParentZoneServer({ suffix: 'test' });
  namespace = await testNamespace(conn, 'hostctl');
  ns = namespace.name;
  const labelSelector = `${PROJECT_LABEL}=${ns}`;
  informers = {
    domains: createInformer<ProjectDomain>(conn, PROJECT_DOMAINS, { labelSelector }),
    records: createInformer<DnsRecord>(conn, DNS_RECORDS, { labelSelector }),
    hostnames: createInformer<AppHostname>(conn, APP_HOSTNAMES, { labelSelector }),
    apps: createInformer<RuntimeApp>(conn, RUNTIME_APPS, { labelSelector }),
  };
  settings = testDnsSettings({ provider, parentServer: parent.address, runtimeTarget: { hostname: TARGET, ipv4: ['192.0.2.80'] }, pendingRecheckMinMs: 200 });

  const common = { kube: conn, settings, registry: new Registry(), log: silentLogger };
  controllers = [
    appHostnameController({ ...common, ...informers, tls: true }),
    projectDomainController({
      ...common,
      domains: informers.domains,
      records: informers.records,
      hostnames: informers.hostnames,
      events: new EventRecorder({ writer: eventWriter(conn), component: 'apphostname-test' }),
    }),
  ] as Controller[];
  for (const i of Object.values(informers)) i.start();
  await Promise.all(controllers.map((c) => c.start()));
});

afterAll(async () => {
  for (const d of (await domainClient.list(ns)).items) await domainClient.delete(ns, d.metadata?.name ?? '').catch(() => {});
  await vi.waitFor(async () => expect((await domainClient.list(ns)).items).toEqual([]), { timeout: 15_000 }).catch(() => {});
  await Promise.all((controllers ?? []).map((c) => c.stop()));
  for (const i of Object.values(informers ?? {})) i.stop();
  await namespace?.remove();
  await parent?.stop();
});

const labels = () => ({ [PROJECT_LABEL]: ns });
const condition = (h: { status?: { conditions?: Parameters<typeof findCondition>[0] } } | undefined, type: string) => findCondition(h?.status?.conditions, type);

/** Polls the object from the apiserver until `ok` holds; answers it. */
const until = async <T>(read: () => Promise<T | undefined>, ok: (o: T) => boolean, what: string, timeout = 10_000): Promise<T> =>
  (await eventually(what, read, (o) => o !== undefined && ok(o), timeout)) as T;

async function createApp(name: string, spec: Partial<RuntimeApp['spec']> = {}): Promise<RuntimeApp> {
  return apps.create({ apiVersion: API_VERSION, kind: 'RuntimeApp', metadata: { name, namespace: ns, labels: labels() }, spec: { displayName: name, ...spec } });
}

async function attach(hostname: string, appId: string, dnsMode: 'external_records' | 'managed_project_domain'): Promise<AppHostname> {
  return hostnames.create({ apiVersion: API_VERSION, kind: 'AppHostname', metadata: { name: hostname, namespace: ns, labels: labels() }, spec: { hostname, appRef: { name: appId }, dnsMode } });
}

const live = (h: AppHostname) => () => hostnames.get(ns, h.metadata?.name ?? '');
const newDomain = (prefix = 'hc') => `${prefix}-${randomBytes(4).toString('hex')}.test`;

/** A project domain applied with kubectl; managed through the API's delegation check unless told otherwise. */
async function addDomain(domain: string, managed: boolean): Promise<ProjectDomain> {
  const created = await domainClient.create({ apiVersion: API_VERSION, kind: 'ProjectDomain', metadata: { name: domain.replaceAll('.', '-'), namespace: ns, labels: labels() }, spec: { domain } });
  const zoned = await until(
    () => domainClient.get(ns, created.metadata?.name ?? ''),
    (d) => !!d.status?.hostedZoneId,
    'zone',
  );
  if (!managed) return zoned;
  parent.delegate(domain, zoned.status?.nameservers ?? []);
  const checked = await askDelegationCheck(domainClient, zoned);
  expect(checked.status?.state).toBe('managed');
  return checked;
}

describe('external_records bindings', () => {
  it('says when the app is missing, fills in the records to publish, and follows the app', async () => {
    const host = `www.${newDomain('ext')}`;
    const h = await attach(host, 'late', 'external_records');
    const missing = await until(live(h), (o) => condition(o, 'RuntimeAttached') !== undefined, 'RuntimeAttached');
    expect(condition(missing, 'RuntimeAttached')).toMatchObject({ status: 'False', reason: 'AppNotFound', message: 'App late does not exist in this project.' });
    expect(missing.status).toMatchObject({
      state: 'pending',
      verificationToken: challengeToken(missing),
      dnsRecords: [
        { recordType: 'CNAME', name: host, value: TARGET },
        { recordType: 'TXT', name: `_cloudwright.${host}`, value: `cloudwright-verification=${challengeToken(missing)}` },
      ],
    });
    expect(condition(missing, 'Ready')).toMatchObject({ status: 'False', reason: 'AwaitingFinalize' });
    expect(condition(missing, 'Ready')?.message).toContain(`POST …/apps/late/domains/${host}/finalize`);
    expect(condition(missing, 'DnsReady')).toBeUndefined();

    await createApp('late');
    const attached = await until(live(h), (o) => condition(o, 'RuntimeAttached')?.status === 'True', 'RuntimeAttached True');
    expect(condition(attached, 'RuntimeAttached')).toMatchObject({ reason: 'Attached', message: `The runtime holds ${host} for app late.` });
    expect(attached.status?.verificationToken).toBe(missing.status?.verificationToken);
  });
});

describe('an external binding the runtime cannot route', () => {
  it('is never activated: a bare domain applied with finalize while the runtime has no addresses has nothing to verify', async () => {
    const target = settings.runtimeTarget;
    (settings as { runtimeTarget: typeof target }).runtimeTarget = { hostname: TARGET };
    try {
      await createApp('bare', { activeBuildId: 'b-1' });
      const host = newDomain('victim');
      // As kubectl applies it (the API refuses this attach): finalize asked for from the start.
      const h = await hostnames.create({
        apiVersion: API_VERSION,
        kind: 'AppHostname',
        metadata: { name: host, namespace: ns, labels: labels() },
        spec: { hostname: host, appRef: { name: 'bare' }, dnsMode: 'external_records', finalize: true },
      });
      const decided = await until(live(h), (o) => ['NoRuntimeTarget', 'Active'].includes(condition(o, 'Ready')?.reason ?? ''), 'a verdict');
      expect(condition(decided, 'Ready')).toMatchObject({ status: 'False', reason: 'NoRuntimeTarget', message: expect.stringContaining('no runtime addresses configured') });
      // Asked for a verification now, it answers the same.
      await hostnames.patch(ns, host, { metadata: { annotations: { [VERIFY_ANNOTATION]: 'now' } } });
      const answered = await until(live(h), (o) => o.status?.lastHandledVerification === 'now', 'the request answered');
      expect(answered.status?.state).toBe('pending');
      expect(condition(answered, 'DnsReady')).toMatchObject({ status: 'False', reason: 'NoRuntimeTarget' });
      expect(await claims.get('', host)).toBeUndefined();
      expect(await certificateClient.get(ns, host)).toBeUndefined();
    } finally {
      (settings as { runtimeTarget: typeof target }).runtimeTarget = target;
    }
  });
});

describe('managed_project_domain bindings', () => {
  it('says an apex binding cannot be routed while the runtime has no addresses, instead of failing every pass', async () => {
    const target = settings.runtimeTarget;
    (settings as { runtimeTarget: typeof target }).runtimeTarget = { hostname: TARGET };
    try {
      await createApp('apexed');
      const h = await attach(newDomain('apex'), 'apexed', 'external_records');
      const told = await until(live(h), (o) => condition(o, 'DnsReady')?.reason === 'NoRuntimeTarget', 'NoRuntimeTarget');
      expect(condition(told, 'DnsReady')).toMatchObject({ status: 'False', message: expect.stringContaining('no runtime addresses configured') });
      expect(condition(told, 'RuntimeAttached')?.status).toBe('True');
    } finally {
      (settings as { runtimeTarget: typeof target }).runtimeTarget = target;
    }
  });

  it('waits for a managed domain holding the hostname, then writes the platform-owned records and follows their Ready', async () => {
    await createApp('shop');
    const domain = newDomain('managed');
    const host = `www.${domain}`;
    const h = await attach(host, 'shop', 'managed_project_domain');
    const none = await until(live(h), (o) => condition(o, 'DnsReady') !== undefined, 'DnsReady');
    expect(condition(none, 'DnsReady')).toMatchObject({ status: 'False', reason: 'DomainNotManaged', message: `No project domain of this project holds ${host}; add it to write the records.` });
    expect(condition(none, 'Ready')).toMatchObject({ status: 'False', reason: 'DnsNotApplied' });

    const pending = await addDomain(domain, false);
    const waiting = await until(live(h), (o) => (condition(o, 'DnsReady')?.message ?? '').includes('is pending_delegation'), 'pending domain');
    expect(condition(waiting, 'DnsReady')?.reason).toBe('DomainNotManaged');
    expect((await recordClient.list(ns)).items.filter((r) => r.spec.owner)).toEqual([]);

    parent.delegate(domain, pending.status?.nameservers ?? []);
    await askDelegationCheck(domainClient, pending);
    // Managed now: the ProjectDomain change reconciles the binding, which writes its records; the zone takes them.
    const ready = await until(live(h), (o) => condition(o, 'DnsReady')?.status === 'True', 'DnsReady True');
    expect(condition(ready, 'Ready')).toMatchObject({ status: 'False', reason: 'AwaitingFinalize' });
    expect(ready.status).toMatchObject({ state: 'pending', projectDomain: pending.metadata?.name, dnsRecords: [{ recordType: 'CNAME', name: host, value: TARGET }] });
    const owned = (await recordClient.list(ns)).items.filter((r) => r.spec.domainRef.name === pending.metadata?.name);
    expect(owned).toHaveLength(1);
    expect(owned[0]?.spec).toMatchObject({ name: 'www', type: 'CNAME', values: [TARGET], owner: { kind: 'platform_app', resourceType: 'runtime_app', resourceId: 'shop' } });
    expect(owned[0]?.metadata?.ownerReferences).toEqual([expect.objectContaining({ kind: 'AppHostname', name: host, controller: true })]);
    const zone = await provider.listRecords(pending.status?.hostedZoneId ?? '');
    expect(zone.filter((r) => r.name === host)).toEqual([{ name: host, type: 'CNAME', ttl: 300, values: [TARGET] }]);

    // A hand edit of the platform-owned record (kubectl) is put back as it should be.
    await recordClient.patch(ns, owned[0]?.metadata?.name ?? '', { spec: { values: ['elsewhere.example.net'] } });
    await vi.waitFor(async () => expect((await recordClient.get(ns, owned[0]?.metadata?.name ?? ''))?.spec.values).toEqual([TARGET]), { timeout: 10_000 });
  });
});

describe('a closer project domain added later', () => {
  it("takes the hostname's records: they move to its zone", async () => {
    await createApp('store');
    const outer = newDomain('outer');
    const host = `app.shop.${outer}`;
    const d1 = await addDomain(outer, true);
    const h = await attach(host, 'store', 'managed_project_domain');
    await until(live(h), (o) => condition(o, 'DnsReady')?.status === 'True' && o.status?.projectDomain === d1.metadata?.name, 'records in the outer domain');

    // The test parent zone answers the closest delegation it holds: hand shop.<outer> its own (outer stays
    // managed as far as its status goes, until its next re-check).
    parent.undelegate(outer);
    const d2 = await addDomain(`shop.${outer}`, true);
    const moved = await until(live(h), (o) => o.status?.projectDomain === d2.metadata?.name && condition(o, 'DnsReady')?.status === 'True', 'records in the closer domain');
    expect(moved.status?.dnsRecords).toEqual([{ recordType: 'CNAME', name: host, value: TARGET }]);
    const records = (await recordClient.list(ns)).items.filter((r) => r.metadata?.ownerReferences?.some((o) => o.uid === h.metadata?.uid));
    expect(records.map((r) => [r.spec.domainRef.name, r.spec.name])).toEqual([[d2.metadata?.name, 'app']]);
    await vi.waitFor(
      async () => expect((await provider.listRecords(d2.status?.hostedZoneId ?? '')).filter((r) => r.name === host)).toEqual([{ name: host, type: 'CNAME', ttl: 300, values: [TARGET] }]),
      { timeout: 10_000 },
    );
    // …and leave the outer zone.
    await vi.waitFor(async () => expect((await provider.listRecords(d1.status?.hostedZoneId ?? '')).filter((r) => r.name === host)).toEqual([]), { timeout: 10_000 });
  });
});

describe('active bindings', () => {
  it('activate once finalize is asked for and the records are live, re-checking on their own, claim the name, and never write their app', async () => {
    await createApp('served', { activeBuildId: 'b-1', hostnames: ['kept.example.test'] });
    const h = await attach(`www.${newDomain('act')}`, 'served', 'external_records');
    const host = h.spec.hostname;
    const pending = await until(live(h), (o) => o.status?.dnsRecords !== undefined, 'records to publish');
    expect(condition(pending, 'Ready')?.reason).toBe('AwaitingFinalize');

    // The intent alone (as `kubectl apply` of finalize: true would set it): verified, not live yet, said why.
    await hostnames.patch(ns, host, { spec: { finalize: true } });
    const waiting = await until(live(h), (o) => condition(o, 'Ready')?.reason === 'RecordsNotFound', 'records not found');
    expect(condition(waiting, 'DnsReady')?.message).toContain(`The DNS records of ${host} are not live yet`);
    expect(waiting.status?.state).toBe('pending');

    // Published: the next scheduled look-up finds them, with no request.
    for (const r of pending.status?.dnsRecords ?? []) parent.setRecord(r.name, r.recordType as ParentZoneRecordType, [r.value]);
    const active = await until(live(h), (o) => o.status?.state === 'active', 'active');
    expect(condition(active, 'Ready')).toMatchObject({ status: 'True', reason: 'Active', message: `App served is served on ${host}.` });
    expect(condition(active, 'DnsReady')).toMatchObject({ status: 'True', reason: 'RecordsVerified' });
    expect(active.status?.activatedAt).toBeDefined();
    expect((await claims.get('', host))?.spec.holder).toMatchObject({ kind: 'AppHostname', namespace: ns, name: host, uid: h.metadata?.uid });
    // cw-runtime reads active AppHostnames; the app's spec stays its deploy's.
    expect((await apps.get(ns, 'served'))?.spec.hostnames).toEqual(['kept.example.test']);
    // Active, it gets its certificate: named after it, owned by it, over HTTP-01 (the name points at the runtime now).
    const certificate = await until(
      () => certificateClient.get(ns, host),
      () => true,
      'certificate',
    );
    expect(certificate.spec).toEqual({ dnsNames: [host], challenge: 'http-01' });
    expect(certificate.metadata?.ownerReferences).toMatchObject([{ kind: 'AppHostname', name: host, uid: h.metadata?.uid, controller: true }]);
  });
});

describe('an active binding', () => {
  it('stops being served when its project domain goes, freeing its name, and a deleted one frees its name too', async () => {
    await createApp('lose', { activeBuildId: 'b-1' });
    const domain = newDomain('lose');
    const d = await addDomain(domain, true);
    const h = await attach(`www.${domain}`, 'lose', 'managed_project_domain');
    const host = h.spec.hostname;
    await hostnames.patch(ns, host, { spec: { finalize: true } });
    await until(live(h), (o) => o.status?.state === 'active', 'active');
    expect((await claims.get('', host))?.spec.holder.uid).toBe(h.metadata?.uid);

    await domainClient.patch(ns, d.metadata?.name ?? '', { spec: { deleted: true } });
    const lost = await until(live(h), (o) => o.status?.state === 'pending', 'no longer active');
    expect(condition(lost, 'Ready')).toMatchObject({ status: 'False', reason: 'DomainGone' });
    expect(lost.status?.activatedAt).toBeUndefined();
    expect(await claims.get('', host)).toBeUndefined();

    // An external binding, verified, then deleted: its claim goes with it.
    const other = await attach(`www.${newDomain('freed')}`, 'lose', 'external_records');
    const published = await until(live(other), (o) => o.status?.dnsRecords !== undefined, 'records to publish');
    for (const r of published.status?.dnsRecords ?? []) parent.setRecord(r.name, r.recordType as ParentZoneRecordType, [r.value]);
    await hostnames.patch(ns, other.spec.hostname, { spec: { finalize: true } });
    await until(live(other), (o) => o.status?.state === 'active', 'active');
    expect(await claims.get('', other.spec.hostname)).toBeDefined();
    await hostnames.delete(ns, other.spec.hostname);
    await vi.waitFor(async () => expect(await claims.get('', other.spec.hostname)).toBeUndefined(), { timeout: 10_000 });
  });

  it("is taken over by the project that delegated the name's domain to its managed zone, where the record cannot be (found in review)", async () => {
    const former = await testNamespace(conn, 'hostctl-m');
    try {
      // The former holder's objects carry this project's label only so that the test's informers see them.
      const domain = newDomain('regained');
      const host = `www.${domain}`;
      await apps.create({ apiVersion: API_VERSION, kind: 'RuntimeApp', metadata: { name: 'was-theirs', namespace: former.name, labels: labels() }, spec: { displayName: 'was-theirs' } });
      const h = await hostnames.create({
        apiVersion: API_VERSION,
        kind: 'AppHostname',
        metadata: { name: host, namespace: former.name, labels: labels() },
        spec: { hostname: host, appRef: { name: 'was-theirs' }, dnsMode: 'external_records' },
      });
      const theirs = () => hostnames.get(former.name, host);
      const published = await until(theirs, (o) => o.status?.dnsRecords !== undefined, 'records to publish');
      for (const r of published.status?.dnsRecords ?? []) parent.setRecord(r.name, r.recordType as ParentZoneRecordType, [r.value]);
      await hostnames.patch(former.name, host, { spec: { finalize: true } });
      await until(theirs, (o) => o.status?.state === 'active', 'active');

      // The domain's owner delegates it to a zone of its project, whose records are the platform's: the former TXT is gone.
      for (const r of published.status?.dnsRecords ?? []) parent.setRecord(r.name, r.recordType as ParentZoneRecordType, []);
      await addDomain(domain, true);
      await createApp('owner-app', { activeBuildId: 'b-1' });
      const mine = await attach(host, 'owner-app', 'managed_project_domain');
      await hostnames.patch(ns, host, { spec: { finalize: true } });
      const taken = await until(live(mine), (o) => o.status?.state === 'active', 'taken over in managed mode');
      expect((await claims.get('', host))?.spec.holder).toMatchObject({ namespace: ns, uid: taken.metadata?.uid });
      await until(theirs, (o) => o.status?.state === 'pending', 'the former holder no longer served');
      expect(h.metadata?.uid).not.toBe(taken.metadata?.uid);
    } finally {
      for (const o of (await hostnames.list(former.name)).items) await hostnames.delete(former.name, o.metadata?.name ?? '').catch(() => {});
      await former.remove();
    }
  });

  it('stops being served, freeing its name, once another project takes its lapsed domain over (review-163 F4)', async () => {
    const next = await testNamespace(conn, 'hostctl-n');
    try {
      await createApp('lapsing', { activeBuildId: 'b-1' });
      const domain = newDomain('lapsing');
      const d = await addDomain(domain, true);
      const h = await attach(`www.${domain}`, 'lapsing', 'managed_project_domain');
      const host = h.spec.hostname;
      await hostnames.patch(ns, host, { spec: { finalize: true } });
      await until(live(h), (o) => o.status?.state === 'active', 'active');

      // The registrar points elsewhere for more than a day (the time the verdict dates from moved back).
      parent.delegate(domain, ['ns1.elsewhere.example', 'ns2.elsewhere.example']);
      await askDelegationCheck(domainClient, d);
      await backdateDelegated(domainClient, d, 25);
      // Still its claim's holder until the name's new owner proves its delegation: still served.
      expect((await hostnames.get(ns, host))?.status?.state).toBe('active');

      // The new owner's domain (labelled for this test's informers) gets a zone, is delegated to it and takes the name.
      const theirs = await domainClient.create({
        apiVersion: API_VERSION,
        kind: 'ProjectDomain',
        metadata: { name: domain.replaceAll('.', '-'), namespace: next.name, labels: labels() },
        spec: { domain },
      });
      const zoned = await until(
        () => domainClient.get(next.name, theirs.metadata?.name ?? ''),
        (o) => !!o.status?.hostedZoneId,
        'a zone to prove delegation with',
      );
      parent.delegate(domain, zoned.status?.nameservers ?? []);
      expect((await askDelegationCheck(domainClient, zoned)).status?.state).toBe('managed');

      // Its finalize still asked for, it says why at every pass (not to set the domain's nameservers again).
      const why = (o: AppHostname) => condition(o, 'Ready')?.message ?? '';
      const lost = await until(live(h), (o) => o.status?.state === 'pending' && why(o).includes('was taken over by another project'), 'no longer served, saying why');
      expect(condition(lost, 'Ready')).toMatchObject({ status: 'False', reason: 'DomainNotManaged' });
      expect(await claims.get('', host)).toBeUndefined();
    } finally {
      for (const o of (await domainClient.list(next.name)).items) await domainClient.delete(next.name, o.metadata?.name ?? '').catch(() => {});
      await vi.waitFor(async () => expect((await domainClient.list(next.name)).items).toEqual([]), { timeout: 15_000 }).catch(() => {});
      await next.remove();
    }
  });

  it("is taken over by another project's binding once its own verification record is gone, and not while it is there (found in review: held for good)", async () => {
    const second = await testNamespace(conn, 'hostctl-b');
    try {
      // The other project's objects carry this project's label only so that the test's informers see them.
      const theirs = objectClient<AppHostname>(conn, APP_HOSTNAMES);
      await apps.create({ apiVersion: API_VERSION, kind: 'RuntimeApp', metadata: { name: 'newer', namespace: second.name, labels: labels() }, spec: { displayName: 'newer' } });
      await createApp('former', { activeBuildId: 'b-1' });
      const h = await attach(`shop.${newDomain('moved')}`, 'former', 'external_records');
      const host = h.spec.hostname;
      const published = await until(live(h), (o) => o.status?.dnsRecords !== undefined, 'records to publish');
      const txt = (records: AppHostname['status']) => records?.dnsRecords?.find((r) => r.recordType === 'TXT');
      for (const r of published.status?.dnsRecords ?? []) parent.setRecord(r.name, r.recordType as ParentZoneRecordType, [r.value]);
      await hostnames.patch(ns, host, { spec: { finalize: true } });
      await until(live(h), (o) => o.status?.state === 'active', 'active');

      // The name's DNS has a new owner, who publishes its own record beside the former one's: the holder keeps it.
      await theirs.create({
        apiVersion: API_VERSION,
        kind: 'AppHostname',
        metadata: { name: host, namespace: second.name, labels: labels() },
        spec: { hostname: host, appRef: { name: 'newer' }, dnsMode: 'external_records', finalize: true },
      });
      const liveChallenger = () => theirs.get(second.name, host);
      const asked = await until(liveChallenger, (o) => txt(o.status) !== undefined, 'records to publish');
      const former = txt(published.status)!;
      const newer = txt(asked.status)!;
      expect(newer.name).toBe(former.name);
      parent.setRecord(newer.name, 'TXT', [former.value, newer.value]);
      const refused = await until(liveChallenger, (o) => condition(o, 'Ready')?.reason === 'HostnameTaken', 'refused while the holder still proves it');
      expect(condition(refused, 'Ready')?.message).toContain('whose verification record is still published');
      expect((await claims.get('', host))?.spec.holder.uid).toBe(h.metadata?.uid);

      // The former owner's record is gone: finalize again hands the name over, and the former holder stops serving it.
      parent.setRecord(newer.name, 'TXT', [newer.value]);
      await theirs.patch(second.name, host, { metadata: { annotations: { [VERIFY_ANNOTATION]: 'again' } } });
      const taken = await until(liveChallenger, (o) => o.status?.state === 'active', 'taken over');
      expect((await claims.get('', host))?.spec.holder).toMatchObject({ namespace: second.name, uid: taken.metadata?.uid });
      // Its finalize still asked for, it says what its own records lack.
      const lost = await until(live(h), (o) => o.status?.state === 'pending' && condition(o, 'Ready')?.reason === 'RecordsNotFound', 'no longer served');
      expect(condition(lost, 'Ready')?.message).toContain(`the published value is ${newer.value}`);
      expect(lost.status?.activatedAt).toBeUndefined();
    } finally {
      await objectClient<AppHostname>(conn, APP_HOSTNAMES)
        .delete(second.name, (await hostnames.list(second.name)).items[0]?.metadata?.name ?? '')
        .catch(() => {});
      await second.remove();
    }
  });
});
