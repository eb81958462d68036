// The TlsCertificate controller against a real CA (Pebble, validation on, a fifth of its nonces refused), the
// real apiserver and the real bucket (MinIO). The HTTP-01 answers are served here from the certificates'
// status, as cw-runtime serves them (runtime-server/tls is tested against them on its own), on the port
// Pebble validates on; Pebble's DNS answers 127.0.0.1 for every name unless told otherwise.
import { createPrivateKey, createPublicKey, randomBytes, X509Certificate } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startPebble, type Pebble } from '../../../e2e/harness/pebble.ts';
import { eventually } from '../../../e2e/harness/runtime-stack.ts';
import { watchUntil } from '../../../e2e/harness/watch.ts';
import type { AppHostname } from '../../../src/apis/v1alpha1/app-hostname.ts';
import type { DomainClaim, HostnameClaim } from '../../../src/apis/v1alpha1/domain-claim.ts';
import { API_VERSION } from '../../../src/apis/v1alpha1/group-version.ts';
import type { ProjectDomain } from '../../../src/apis/v1alpha1/project-domain.ts';
import type { TlsCertificate } from '../../../src/apis/v1alpha1/tls-certificate.ts';
import { findCondition } from '../../../src/conditions/index.ts';
import type { Controller } from '../../../src/controller-runtime/controller.ts';
import { EventRecorder } from '../../../src/controller-runtime/events.ts';
import { createInformer, EVENTS, eventWriter, objectClient, type Informer, type KubeObject } from '../../../src/kube/index.ts';
import { testConnection, testNamespace } from '../../../src/kube/testing/test-kube.ts';
import { silentLogger } from '../../../src/logging/log.ts';
import { S3ObjectStore } from '../../../src/object-store/s3-object-store.ts';
import { APP_HOSTNAMES, DOMAIN_CLAIMS, HOSTNAME_CLAIMS, PROJECT_DOMAINS, TLS_CERTIFICATES } from '../../../src/platform/resources.ts';
import { certificateObjectKey, certificateObjectPrefix, type StoredCertificate } from '../../../src/tls/certificate-objects.ts';
import { SealedStore } from '../../../src/tls/sealed-store.ts';
import { acmeAccount, type AcmeSettings } from './acme-account.ts';
import { tlsCertificateController } from './controller.ts';

const BASE = 'apps.cw-tls.test';
/** Custom host names the test's project holds. */
const CUSTOM = 'cust.cw-tls.test';
const conn = testConnection();
const certificates = objectClient<TlsCertificate>(conn, TLS_CERTIFICATES);
let pebble: Pebble;
let namespace: { name: string; remove: () => Promise<void> };
let ns: string;
let bucket: S3ObjectStore;
let sealed: SealedStore;
let settings: AcmeSettings;
let informers: {
  certificates: Informer<TlsCertificate>;
  hostnames: Informer<AppHostname>;
  domains: Informer<ProjectDomain>;
  domainClaims: Informer<DomainClaim>;
  hostnameClaims: Informer<HostnameClaim>;
};
let responder: Server;
/** Names whose HTTP-01 answers the responder holds back (as a runtime that has not learnt them yet). */
const withheld = new Set<string>();
/** The orders whose challenges the CA fetched from the responder: their authorizations are valid. */
const validatedOrders = new Set<string>();
/** The controller's clock runs this far ahead of the real one (renewal). */
let clockOffsetMs = 0;
let controller: Controller<TlsCertificate>;

function startController(): Controller<TlsCertificate> {
  const c = tlsCertificateController({
    kube: conn,
    ...informers,
    baseDomain: BASE,
    acme: settings,
    sealed,
    http01SelfCheckUrl: `http://127.0.0.1:${pebble.http01Port}`,
    events: new EventRecorder({ writer: eventWriter(conn), component: 'tlscertificate-test' }),
    registry: new Registry(),
    log: silentLogger,
    now: () => new Date(Date.now() + clockOffsetMs),
  });
  void c.start();
  return c;
}

beforeAll(async () => {
  pebble = await startPebble(inject('stateDir'), { nonceRejectPercent: 20 });
  namespace = await testNamespace(conn, 'tlsctl');
  ns = namespace.name;
  bucket = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket'), registry: new Registry() });
  sealed = new SealedStore(bucket, randomBytes(32));
  settings = { directoryUrl: pebble.directoryUrl, caCertificates: pebble.listenerCa, contact: ['mailto:ops@example.com'] };
  informers = {
    certificates: createInformer<TlsCertificate>(conn, TLS_CERTIFICATES, { namespace: ns }),
    hostnames: createInformer<AppHostname>(conn, APP_HOSTNAMES, { namespace: ns }),
    domains: createInformer<ProjectDomain>(conn, PROJECT_DOMAINS, { namespace: ns }),
    domainClaims: createInformer<DomainClaim>(conn, DOMAIN_CLAIMS),
    hostnameClaims: createInformer<HostnameClaim>(conn, HOSTNAME_CLAIMS),
  };
  // What cw-runtime answers: the key authorization of a challenge in some certificate's status, for its name.
  responder = createServer((req, res) => {
    const token = /^\/\.well-known\/acme-challenge\/([\w-]+)$/.exec(req.url ?? '')?.[1];
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const owner = informers.certificates.list().find((c) => c.status?.http01?.some((h) => h.token === token && h.dnsName === host) && !withheld.has(host));
    const answer = owner?.status?.http01?.find((h) => h.token === token);
    if (owner?.status?.order) validatedOrders.add(owner.status.order.url);
    res.writeHead(answer ? 200 : 404, { 'content-type': 'text/plain' }).end(answer?.keyAuthorization ?? '');
  });
  await new Promise<void>((resolve) => responder.listen(pebble.http01Port, '127.0.0.1', resolve));
  for (const informer of Object.values(informers)) informer.start();
  controller = startController();
}, 120_000);

afterAll(async () => {
  await controller?.stop();
  for (const informer of Object.values(informers ?? {})) informer.stop();
  await new Promise((resolve) => responder?.close(resolve));
  await namespace?.remove();
  for (const claim of heldClaims)
    await objectClient<HostnameClaim>(conn, HOSTNAME_CLAIMS)
      .delete('', claim)
      .catch(() => {});
  await pebble?.stop();
});

const heldClaims: string[] = [];

/** A custom host name the project holds, as the AppHostname controller leaves one: active, with its claim. */
async function heldName(label: string): Promise<string> {
  const host = `${label}.${ns}.${CUSTOM}`;
  const hostnames = objectClient<AppHostname>(conn, APP_HOSTNAMES);
  const created = await hostnames.create({ metadata: { name: host, namespace: ns }, spec: { appRef: { name: 'web' }, hostname: host } });
  await hostnames.patchStatus(ns, host, { status: { state: 'active' } });
  await objectClient<HostnameClaim>(conn, HOSTNAME_CLAIMS).create({
    metadata: { name: host },
    spec: { name: host, holder: { kind: 'AppHostname', namespace: ns, name: host, uid: created.metadata?.uid ?? '' } },
  });
  heldClaims.push(host);
  await eventually(
    'the claim and the active name seen',
    () => Promise.resolve(informers.hostnameClaims.get(host) !== undefined && informers.hostnames.list(ns).some((h) => h.spec.hostname === host && h.status?.state === 'active')),
    (seen) => seen,
  );
  return host;
}

function certificate(name: string, dnsNames: string[]): TlsCertificate {
  return { apiVersion: API_VERSION, kind: 'TlsCertificate', metadata: { namespace: ns, name }, spec: { dnsNames, challenge: 'http-01' } };
}

async function until(name: string, what: string, done: (c: TlsCertificate) => boolean, timeoutMs = 60_000): Promise<TlsCertificate> {
  try {
    await watchUntil<TlsCertificate>(conn, TLS_CERTIFICATES, { namespace: ns, timeoutMs, what }, (all) => all.some((c) => c.metadata?.name === name && done(c)));
  } catch (err) {
    // The status as it was, so a failure says where the order stopped.
    throw new Error(`${(err as Error).message}; status ${JSON.stringify((await certificates.get(ns, name))?.status)}`);
  }
  return (await certificates.get(ns, name))!;
}

/**
 * Gives up the account's valid authorizations: Pebble reuses one for a new order of the same name now and then
 * (1 in 100 even with PEBBLE_AUTHZREUSE=0), which would let an order meant to fail validation succeed unvalidated.
 */
async function forgetValidations(): Promise<void> {
  const acme = await acmeAccount(settings, sealed);
  try {
    for (const url of validatedOrders) {
      for (const authz of (await acme.order(url)).authorizations) {
        if ((await acme.authorization(authz)).status === 'valid') await acme.deactivateAuthorization(authz);
      }
    }
  } finally {
    await acme.close();
  }
}

async function storedOf(cert: TlsCertificate): Promise<StoredCertificate> {
  const stored = await sealed.get<StoredCertificate>(certificateObjectKey(ns, cert.metadata!.name!, cert.status!.serial!));
  if (!stored) throw new Error('no stored certificate');
  return stored;
}

describe('TlsCertificate controller, against Pebble', () => {
  let issued: TlsCertificate;

  it('issues over HTTP-01 and seals the key and chain in the bucket, under the serial the status names', async () => {
    const name = await heldName('shop');
    await certificates.create(certificate('shop', [name]));
    issued = await until('shop', 'issued', (c) => c.status?.state === 'Issued');
    const status = issued.status!;
    expect(findCondition(status.conditions, 'Ready')).toMatchObject({ status: 'True', reason: 'Issued' });
    expect(status.dnsNames).toEqual([name]);
    expect(status.issuer).toMatch(/Pebble/);
    expect(status.order).toBeUndefined();
    expect(status.http01).toBeUndefined();
    expect(Date.parse(status.renewAt!)).toBeGreaterThanOrEqual(Date.parse(status.renewalWindow!.start));
    expect(Date.parse(status.renewAt!)).toBeLessThanOrEqual(Date.parse(status.renewalWindow!.end));
    const stored = await storedOf(issued);
    const leaf = new X509Certificate(stored.chainPem);
    expect(leaf.subjectAltName).toBe(`DNS:${name}`);
    expect(leaf.serialNumber.toLowerCase()).toBe(status.serial);
    expect(leaf.publicKey.export({ type: 'spki', format: 'der' })).toEqual(createPublicKey(createPrivateKey(stored.privateKeyPem)).export({ type: 'spki', format: 'der' }));
    expect(leaf.verify(chainIssuer(stored.chainPem).publicKey)).toBe(true);
    // Sealed: the bucket never holds the key in clear, and nothing of it is in the object.
    const raw = await bucket.get(certificateObjectKey(ns, 'shop', status.serial!));
    expect(raw?.kind === 'object' && Buffer.from(raw.body).includes('PRIVATE KEY')).toBe(false);
    expect(JSON.stringify(issued)).not.toContain('PRIVATE KEY');
  });

  it('orders nothing for a name the project does not hold, and says so', async () => {
    await certificates.create(certificate('victim', ['victim.example.com']));
    const refused = await until('victim', 'refused', (c) => c.status?.lastError?.reason === 'NameNotHeld');
    expect(refused.status?.state).toBe('Pending');
    expect(refused.status?.order).toBeUndefined();
    expect(refused.status?.lastError?.message).toMatch(/victim\.example\.com is held by no project/);
    expect(findCondition(refused.status?.conditions, 'Ready')).toMatchObject({ status: 'False', reason: 'NameNotHeld' });
  });

  it('fails with the reason when the CA cannot reach the name, and backs off', async () => {
    const name = await heldName('elsewhere');
    // The name resolves to an address where nothing answers: the CA's validation cannot connect.
    await pebble.dns.addA(name, '127.0.0.2');
    await certificates.create(certificate('elsewhere', [name]));
    const failed = await until('elsewhere', 'failed', (c) => c.status?.state === 'Failed');
    expect(failed.status?.lastError?.reason).toMatch(/DnsNotPointingHere|ChallengeFailed/);
    expect(failed.status?.lastError?.message).toMatch(/The CA said/);
    expect(failed.status?.failures).toBe(1);
    const wait = Date.parse(failed.status!.nextAttemptAt!) - Date.parse(failed.status!.lastError!.at);
    expect(wait).toBeGreaterThanOrEqual(59_000);
    expect(failed.status?.order).toBeUndefined();
  });

  it('resumes the order after the operator is killed mid-order, and finalizes that same order', async () => {
    const name = await heldName('resume');
    withheld.add(name);
    await certificates.create(certificate('resume', [name]));
    const midway = await until('resume', 'ordered, challenge published', (c) => (c.status?.http01?.length ?? 0) > 0);
    const orderUrl = midway.status!.order!.url;
    await controller.stop();
    withheld.delete(name);
    controller = startController();
    const done = await until('resume', 'issued after the restart', (c) => c.status?.state === 'Issued');
    // The order placed before the restart is the one that produced the served certificate.
    const acme = await acmeAccount(settings, sealed);
    try {
      const order = await acme.order(orderUrl);
      expect(order.status).toBe('valid');
      const chain = await acme.certificate(order.certificate!);
      expect(new X509Certificate(chain).serialNumber.toLowerCase()).toBe(done.status?.serial);
    } finally {
      await acme.close();
    }
  });

  it('renews when the CA’s renewal information moves the window, replacing the certificate', async () => {
    const before = issued.status!;
    const stored = await storedOf(issued);
    const now = Date.now();
    await pebble.setRenewalWindow(stored.chainPem, { start: new Date(now - 60_000), end: new Date(now + 60_000) });
    // Past the time the controller asks the CA's renewal information again (6 hours, or the CA's Retry-After).
    clockOffsetMs = 7 * 3600 * 1000;
    await certificates.patch(ns, 'shop', { metadata: { annotations: { 'test.cloudwright.dev/nudge': String(now) } } }, 'merge');
    const renewed = await until('shop', 'renewed', (c) => c.status?.state === 'Issued' && c.status.serial !== before.serial, 45_000);
    clockOffsetMs = 0;
    // The replaced certificate's sealed object is gone; the new one opens.
    await eventually(
      'the replaced certificate deleted',
      () => bucket.head(certificateObjectKey(ns, 'shop', before.serial!)),
      (found) => found === undefined,
    );
    expect((await storedOf(renewed)).serial).toBe(renewed.status?.serial);
    issued = renewed;
  });

  it('keeps serving a certificate whose renewal fails, says why in RenewalFailing and a Warning Event', { timeout: 90_000 }, async () => {
    const before = issued.status!;
    const name = before.dnsNames![0]!;
    // The name now resolves where nothing answers: a renewal's validation cannot connect.
    await pebble.dns.addA(name, '127.0.0.2');
    await forgetValidations();
    const now = Date.now();
    await pebble.setRenewalWindow((await storedOf(issued)).chainPem, { start: new Date(now - 120_000), end: new Date(now - 60_000) });
    // Past the renewed certificate's next renewal-information check (6 hours after its issuance, itself 7 hours ahead).
    clockOffsetMs = 14 * 3600 * 1000;
    await certificates.patch(ns, 'shop', { metadata: { annotations: { 'test.cloudwright.dev/nudge': `${now}-fail` } } }, 'merge');
    const failing = await until('shop', 'renewal failing', (c) => findCondition(c.status?.conditions, 'RenewalFailing')?.status === 'True', 45_000);
    clockOffsetMs = 0;
    expect(failing.status?.state).toBe('Renewing');
    expect(failing.status?.serial).toBe(before.serial);
    expect(findCondition(failing.status?.conditions, 'Ready')?.status).toBe('True');
    expect(failing.status?.lastError?.reason).toMatch(/DnsNotPointingHere|ChallengeFailed/);
    expect(findCondition(failing.status?.conditions, 'RenewalFailing')?.message).toContain(`expires at ${before.notAfter}`);
    // The Event is recorded after the status is written.
    const events = objectClient<KubeObject & { involvedObject: { name?: string }; type: string; reason: string }>(conn, EVENTS);
    await eventually(
      'the Warning Event',
      async () => (await events.list(ns)).items,
      (items) => items.some((e) => e.involvedObject.name === 'shop' && e.type === 'Warning' && e.reason === failing.status?.lastError?.reason),
    );
  });

  it('revokes the certificate and deletes its key when the TlsCertificate is deleted', async () => {
    const serial = issued.status!.serial!;
    expect(await pebble.certificateStatus(serial)).toBe('Valid');
    await certificates.delete(ns, 'shop');
    await watchUntil<TlsCertificate>(conn, TLS_CERTIFICATES, { namespace: ns, timeoutMs: 60_000, what: 'deleted' }, (all) => !all.some((c) => c.metadata?.name === 'shop'));
    expect(await pebble.certificateStatus(serial)).toBe('Revoked');
    expect((await bucket.list(certificateObjectPrefix(ns, 'shop'))).items).toEqual([]);
  });
});

/** The certificate after the leaf in a PEM chain: its issuer. */
function chainIssuer(chainPem: string): X509Certificate {
  const parts = chainPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return new X509Certificate(parts[1] ?? '');
}
