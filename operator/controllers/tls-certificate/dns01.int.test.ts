// DNS-01 end to end on the platform's own zones: a wildcard certificate for a delegated project domain, its
// TXT records written as DnsRecords, put in the zone by the ProjectDomain controller (a zone in memory here, as
// moto's Route 53 in `make dev`), and Pebble validating them through a DNS server that answers from that zone
// (src/dns/hosted-zone-server.ts, what the provider's nameservers would answer). Pebble delays its validations
// here, as a busy CA does: the controller polls the order as the CA's Retry-After says.
import { randomBytes, X509Certificate } from 'node:crypto';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually } from '../../../e2e/harness/runtime-stack.ts';
import { startPebble, type Pebble } from '../../../e2e/harness/pebble.ts';
import type { AppHostname } from '../../../src/apis/v1alpha1/app-hostname.ts';
import type { DnsRecord } from '../../../src/apis/v1alpha1/dns-record.ts';
import type { DomainClaim, HostnameClaim } from '../../../src/apis/v1alpha1/domain-claim.ts';
import { API_VERSION } from '../../../src/apis/v1alpha1/group-version.ts';
import type { ProjectDomain } from '../../../src/apis/v1alpha1/project-domain.ts';
import type { TlsCertificate } from '../../../src/apis/v1alpha1/tls-certificate.ts';
import type { Controller } from '../../../src/controller-runtime/controller.ts';
import { EventRecorder } from '../../../src/controller-runtime/events.ts';
import { startHostedZoneServer, type HostedZoneServer } from '../../../src/dns/hosted-zone-server.ts';
import { MemoryDnsProvider } from '../../../src/dns/memory-provider.ts';
import { startParentZoneServer, type ParentZoneServer } from '../../../src/dns/parent-zone-server.ts';
import { createInformer, eventWriter, objectClient, type Informer } from '../../../src/kube/index.ts';
import { testConnection, testNamespace } from '../../../src/kube/testing/test-kube.ts';
import { silentLogger } from '../../../src/logging/log.ts';
import { S3ObjectStore } from '../../../src/object-store/s3-object-store.ts';
import { askDelegationCheck } from '../../../src/platform/domains/testing/delegation-check.ts';
import { APP_HOSTNAMES, DNS_RECORDS, DOMAIN_CLAIMS, HOSTNAME_CLAIMS, PROJECT_DOMAINS, PROJECT_LABEL, TLS_CERTIFICATES } from '../../../src/platform/resources.ts';
import { certificateObjectKey, type StoredCertificate } from '../../../src/tls/certificate-objects.ts';
import { SealedStore } from '../../../src/tls/sealed-store.ts';
import { testDnsSettings } from '../../testing/test-dns-settings.ts';
import { domainCertificateName } from '../project-domain/certificate.ts';
import { projectDomainController } from '../project-domain/controller.ts';
import { acmeAccount } from './acme-account.ts';
import { tlsCertificateController } from './controller.ts';
import { Issuance } from './issuance.ts';
import { dns01Answers, PlatformZoneTxt } from './platform-zone-txt.ts';

const conn = testConnection();
const certificates = objectClient<TlsCertificate>(conn, TLS_CERTIFICATES);
const domainClient = objectClient<ProjectDomain>(conn, PROJECT_DOMAINS);
const recordClient = objectClient<DnsRecord>(conn, DNS_RECORDS);
const provider = new MemoryDnsProvider({ ownerId: 'cloudwright' });
let parent: ParentZoneServer;
let zones: HostedZoneServer;
let pebble: Pebble;
let namespace: { name: string; remove: () => Promise<void> };
let ns: string;
let sealed: SealedStore;
let informers: {
  certificates: Informer<TlsCertificate>;
  hostnames: Informer<AppHostname>;
  domains: Informer<ProjectDomain>;
  records: Informer<DnsRecord>;
  domainClaims: Informer<DomainClaim>;
  hostnameClaims: Informer<HostnameClaim>;
};
let controllers: Controller[];
const BASE = 'apps.cw-tlsdns.test';
let baseZoneId: string;

beforeAll(async () => {
  parent = await startParentZoneServer({ suffix: 'test' });
  namespace = await testNamespace(conn, 'tlsdns');
  ns = namespace.name;
  const labelSelector = `${PROJECT_LABEL}=${ns}`;
  informers = {
    certificates: createInformer<TlsCertificate>(conn, TLS_CERTIFICATES, { namespace: ns }),
    hostnames: createInformer<AppHostname>(conn, APP_HOSTNAMES, { labelSelector }),
    domains: createInformer<ProjectDomain>(conn, PROJECT_DOMAINS, { labelSelector }),
    records: createInformer<DnsRecord>(conn, DNS_RECORDS, { labelSelector }),
    domainClaims: createInformer<DomainClaim>(conn, DOMAIN_CLAIMS),
    hostnameClaims: createInformer<HostnameClaim>(conn, HOSTNAME_CLAIMS),
  };
  // The installation's own zone for the base domain: projects' default hosts get their wildcard there.
  baseZoneId = (await provider.createZone(BASE, `base-${randomBytes(4).toString('hex')}`)).zoneId;
  zones = await startHostedZoneServer({
    provider,
    zones: () => [{ domain: BASE, zoneId: baseZoneId }, ...informers.domains.list().flatMap((d) => (d.status?.hostedZoneId ? [{ domain: d.spec.domain, zoneId: d.status.hostedZoneId }] : []))],
  });
  // A CA as a busy one behaves: a fifth of its nonces refused, and each validation delayed (up to 3 s, at random).
  pebble = await startPebble(inject('stateDir'), { dnsServer: zones.address, nonceRejectPercent: 20, validationDelaySeconds: 3 });
  sealed = new SealedStore(new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket'), registry: new Registry() }), randomBytes(32));
  const settings = testDnsSettings({ provider, parentServer: parent.address, runtimeTarget: { hostname: 'runtime.apps.cw-tlsdns.test', ipv4: ['192.0.2.80'] } });
  const events = new EventRecorder({ writer: eventWriter(conn), component: 'tlsdns-test' });
  const common = { kube: conn, registry: new Registry(), log: silentLogger, events };
  controllers = [
    projectDomainController({ ...common, domains: informers.domains, records: informers.records, hostnames: informers.hostnames, settings, tls: true }),
    tlsCertificateController({
      ...common,
      ...informers,
      baseDomain: BASE,
      baseZone: { provider, zoneId: baseZoneId },
      acme: { directoryUrl: pebble.directoryUrl, caCertificates: pebble.listenerCa },
      sealed,
    }),
  ] as Controller[];
  for (const informer of Object.values(informers)) informer.start();
  await Promise.all(controllers.map((c) => c.start()));
}, 120_000);

afterAll(async () => {
  for (const c of (await certificates.list(ns).catch(() => ({ items: [] }))).items) await certificates.delete(ns, c.metadata?.name ?? '').catch(() => {});
  for (const d of (await domainClient.list(ns).catch(() => ({ items: [] }))).items) await domainClient.delete(ns, d.metadata?.name ?? '').catch(() => {});
  await eventually(
    'domains gone',
    () => domainClient.list(ns),
    (list) => list.items.length === 0,
    20_000,
  ).catch(() => {});
  await Promise.all((controllers ?? []).map((c) => c.stop()));
  for (const informer of Object.values(informers ?? {})) informer.stop();
  await namespace?.remove();
  await pebble?.stop();
  await zones?.stop();
  await parent?.stop();
});

/** A project domain delegated to its zone (the delegation check passes against the `test.` parent). */
async function managedDomain(domain: string): Promise<ProjectDomain> {
  const created = await domainClient.create({
    apiVersion: API_VERSION,
    kind: 'ProjectDomain',
    metadata: { name: domain.replaceAll('.', '-'), namespace: ns, labels: { [PROJECT_LABEL]: ns } },
    spec: { domain },
  });
  const zoned = await eventually(
    'zone',
    () => domainClient.get(ns, created.metadata?.name ?? ''),
    (d) => !!d?.status?.hostedZoneId,
  );
  parent.delegate(domain, zoned!.status?.nameservers ?? []);
  const checked = await askDelegationCheck(domainClient, zoned!);
  expect(checked.status?.state).toBe('managed');
  return checked;
}

/**
 * The certificate once its order ended, issued or failed. Pebble reads the TXT record from the zone server in this
 * test's own process with one 2 s query and no retry (its VA's DNS client): a worker stalled that long on a loaded
 * machine fails the order with an i/o timeout that says nothing of the controller. That one failure is retried
 * once, by deleting the certificate (`recreate` makes it again); any other failure is the test's to report, its
 * status with it.
 */
async function orderEnded(name: string, recreate: () => Promise<void>): Promise<TlsCertificate | undefined> {
  const ended = () =>
    eventually(
      'issued',
      () => certificates.get(ns, name),
      (c) => c?.status?.state === 'Issued' || c?.status?.state === 'Failed',
      // Inside the test's 60 s, so a stall reports the certificate's last status (its order, the wait) rather than a bare timeout.
      25_000,
    );
  const first = await ended();
  if (!/i\/o timeout/.test(first?.status?.lastError?.message ?? '')) return first;
  console.warn(`dns01.int.test: Pebble's DNS query timed out (${first?.status?.lastError?.message}); ordering ${name} again`);
  const uid = first?.metadata?.uid;
  await certificates.delete(ns, name);
  await eventually(
    'certificate gone',
    () => certificates.get(ns, name),
    (c) => c?.metadata?.uid !== uid,
    10_000,
  );
  await recreate();
  return ended();
}

describe('DNS-01 through the project domain’s zone', () => {
  it('gives a delegated domain a certificate for its apex and wildcard, and removes the challenge records afterwards', async () => {
    const domain = `shop-${randomBytes(3).toString('hex')}.test`;
    const d = await managedDomain(domain);
    const name = domainCertificateName(d);
    // The ProjectDomain controller makes its certificate again once it is gone.
    const issued = await orderEnded(name, () => Promise.resolve());
    expect(issued?.status?.lastError, JSON.stringify(issued?.status)).toBeUndefined();
    expect(issued?.status?.state).toBe('Issued');
    expect(issued?.spec).toMatchObject({ challenge: 'dns-01', domainRef: { name: d.metadata?.name } });
    expect(issued?.metadata?.ownerReferences).toMatchObject([{ kind: 'ProjectDomain', uid: d.metadata?.uid, controller: true }]);
    const stored = await sealed.get<StoredCertificate>(certificateObjectKey(ns, name, issued!.status!.serial!));
    expect(new X509Certificate(stored!.chainPem).subjectAltName?.split(', ').sort()).toEqual([`DNS:*.${domain}`, `DNS:${domain}`]);
    // The _acme-challenge records leave the cluster and the zone once the order is done.
    await eventually(
      'challenge records deleted',
      () => recordClient.list(ns),
      (list) => !list.items.some((r) => r.spec.name.startsWith('_acme-challenge')),
      20_000,
    );
    await eventually(
      'challenge records out of the zone',
      () => provider.listRecords(d.status!.hostedZoneId!),
      (sets) => !sets.some((s) => s.name.startsWith('_acme-challenge.')),
      20_000,
    );
  }, 90_000);

  it('issues a project’s default-hosts wildcard in the platform’s base-domain zone, and cleans its record up', async () => {
    const create = async () => {
      await certificates.create({
        apiVersion: API_VERSION,
        kind: 'TlsCertificate',
        metadata: { namespace: ns, name: 'default-hosts' },
        spec: { dnsNames: [`*.${ns}.${BASE}`], challenge: 'dns-01' },
      });
    };
    await create();
    const issued = await orderEnded('default-hosts', create);
    expect(issued?.status?.lastError, JSON.stringify(issued?.status)).toBeUndefined();
    const stored = await sealed.get<StoredCertificate>(certificateObjectKey(ns, 'default-hosts', issued!.status!.serial!));
    expect(new X509Certificate(stored!.chainPem).subjectAltName).toBe(`DNS:*.${ns}.${BASE}`);
    await eventually(
      'challenge record out of the base zone',
      () => provider.listRecords(baseZoneId),
      (sets) => !sets.some((r) => r.name === `_acme-challenge.${ns}.${BASE}`),
      20_000,
    );
  }, 90_000);

  it('keeps its order when a pass starts from the status before its challenge was answered (a write refused as stale)', async () => {
    const acme = await acmeAccount({ directoryUrl: pebble.directoryUrl, caCertificates: pebble.listenerCa }, sealed);
    const dns01 = dns01Answers(undefined, new PlatformZoneTxt(provider, baseZoneId, BASE))!;
    const issuance = new Issuance({ acme: () => Promise.resolve(acme), sealed, takeOrder: () => 0, dns01, now: () => new Date() });
    const cert = (status: TlsCertificate['status']): TlsCertificate => ({
      apiVersion: API_VERSION,
      kind: 'TlsCertificate',
      metadata: { namespace: ns, name: 'stale-pass', uid: 'stale-pass' },
      spec: { dnsNames: [`*.stale.${ns}.${BASE}`], challenge: 'dns-01' },
      ...(status ? { status } : {}),
    });
    try {
      const ordered = await issuance.step(cert(undefined));
      const url = ordered.status.order?.url;
      expect(url).toBeDefined();
      // The first pass publishes the TXT record, the next one (the zone has it) answers the challenge.
      const published = await issuance.step(cert(ordered.status));
      expect(published.status.order?.responded ?? []).toEqual([]);
      const answered = await issuance.step(cert(published.status));
      expect(answered.status.order?.responded).toHaveLength(1);
      // Had that status not been written, the next pass starts from the one before: the CA (validating with a
      // delay) has the answer, and the order goes on rather than being dropped as the CA refuses a second answer.
      const again = await issuance.step(cert(published.status));
      expect(again.status.lastError).toBeUndefined();
      expect(again.status.order?.url).toBe(url);
    } finally {
      await dns01.remove(cert(undefined));
      await acme.close();
    }
  });

  it('orders nothing in the base zone for another project’s part of it', async () => {
    await certificates.create({
      apiVersion: API_VERSION,
      kind: 'TlsCertificate',
      metadata: { namespace: ns, name: 'not-ours' },
      spec: { dnsNames: [`*.someone-else.${BASE}`], challenge: 'dns-01' },
    });
    const refused = await eventually(
      'refused',
      () => certificates.get(ns, 'not-ours'),
      (c) => c?.status?.lastError !== undefined,
    );
    expect(refused?.status?.lastError?.reason).toBe('NameNotHeld');
    expect((await provider.listRecords(baseZoneId)).some((r) => r.name.includes('someone-else'))).toBe(false);
  });

  it('takes the challenge record of an order it drops for a name no longer held out of the base zone', async () => {
    const own = `*.dropped.${ns}.${BASE}`;
    await certificates.create({
      apiVersion: API_VERSION,
      kind: 'TlsCertificate',
      metadata: { namespace: ns, name: 'dropped' },
      spec: { dnsNames: [own, `*.someone-else.${BASE}`], challenge: 'dns-01' },
    });
    await eventually(
      'refused',
      () => certificates.get(ns, 'dropped'),
      (c) => c?.status?.lastError?.reason === 'NameNotHeld',
    );
    // As if an order for its own name were under way when the other name came into the spec: its answer published.
    const fqdn = `_acme-challenge.dropped.${ns}.${BASE}`;
    await provider.applyChanges(baseZoneId, { create: [], update: [{ name: fqdn, type: 'TXT', ttl: 60, values: ['answer'] }], delete: [] });
    const current = await certificates.get(ns, 'dropped');
    await certificates.replaceStatus({ ...current!, status: { ...current!.status, order: { url: `${pebble.directoryUrl}/order/none`, dnsNames: [own] } } });
    await eventually(
      'the order dropped',
      () => certificates.get(ns, 'dropped'),
      (c) => c?.status?.order === undefined,
    );
    await eventually(
      'its challenge record out of the base zone',
      () => provider.listRecords(baseZoneId),
      (sets) => !sets.some((r) => r.name === fqdn),
      10_000,
    );
  });

  it('refuses a dns-01 certificate whose domain is not delegated, saying why', async () => {
    const domain = `late-${randomBytes(3).toString('hex')}.test`;
    const created = await domainClient.create({
      apiVersion: API_VERSION,
      kind: 'ProjectDomain',
      metadata: { name: domain.replaceAll('.', '-'), namespace: ns, labels: { [PROJECT_LABEL]: ns } },
      spec: { domain },
    });
    await certificates.create({
      apiVersion: API_VERSION,
      kind: 'TlsCertificate',
      metadata: { namespace: ns, name: 'late' },
      spec: { dnsNames: [`*.${domain}`], challenge: 'dns-01', domainRef: { name: created.metadata!.name! } },
    });
    const refused = await eventually(
      'refused',
      () => certificates.get(ns, 'late'),
      (c) => c?.status?.lastError !== undefined,
    );
    expect(refused?.status?.lastError?.reason).toMatch(/NameNotHeld|DomainNotReady/);
    expect(refused?.status?.order).toBeUndefined();
  });
});
