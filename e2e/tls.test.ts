// HTTPS for a custom host name, end to end as a user meets it: a real cw-api, cw-operator and cw-runtime on the
// test control plane, Pebble (Let's Encrypt's test CA, validation on) checking HTTP-01 on the runtime's own port,
// a parent zone for `test.` where the user publishes the records. Deploy, attach in external-records mode,
// publish, finalize: the operator orders the certificate, the runtime answers the challenge and then serves the
// certificate by SNI. Detaching the host name revokes it.
import { randomBytes, X509Certificate } from 'node:crypto';
import type { LookupFunction } from 'node:net';
import { connect } from 'node:tls';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TlsCertificate } from '../src/apis/v1alpha1/tls-certificate.ts';
import { startParentZoneServer, type ParentZoneServer } from '../src/dns/parent-zone-server.ts';
import { loadKubeConnection, objectClient } from '../src/kube/index.ts';
import type { HostnameView } from '../src/platform/domains/views.ts';
import { TLS_CERTIFICATES } from '../src/platform/resources.ts';
import { createMemberAccount, createProjectNamespace, type MemberAccount } from './harness/accounts.ts';
import { startApiServer, type ApiServer } from './harness/api-server.ts';
import { dnsTestEnv } from './harness/dns-env.ts';
import { startPebble, type Pebble } from './harness/pebble.ts';
import { freePort, killHard, type Service } from './harness/process.ts';
import { startSwitchableProxy, type SwitchableProxy } from './harness/switchable-proxy.ts';
import { acmeAccount } from '../operator/controllers/tls-certificate/acme-account.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { SealedStore } from '../src/tls/sealed-store.ts';
import { BASE_DOMAIN, eventually, packWorker, s3Env, startOperator, startRuntime, type Runtime } from './harness/runtime-stack.ts';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const kubeconfig = inject('kubeconfig');
const conn = loadKubeConnection(kubeconfig);
const certificates = objectClient<TlsCertificate>(conn, TLS_CERTIFICATES);
const running: Service[] = [];
const RUNTIME_TARGET = `runtime.${BASE_DOMAIN}`;
let api: ApiServer | undefined;
let runtime: Runtime;
let parent: ParentZoneServer;
let pebble: Pebble;
let member: MemberAccount;
let httpsPort: number;
let root: string;
let sealingKey: Buffer;
let selfCheck: SwitchableProxy;
let operatorEnv: Record<string, string>;

/** Every name resolves to this machine, where the runtime listens (as the published CNAME sends it there). */
const lookup: LookupFunction = (_hostname, options, callback) => {
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};

beforeAll(async () => {
  member = await createMemberAccount(kubeconfig, 'tls');
  await createProjectNamespace(kubeconfig, member.project);
  parent = await startParentZoneServer({ suffix: 'test' });
  sealingKey = randomBytes(32);
  const sealingEnv = { CW_TLS_SEALING_KEY: sealingKey.toString('base64') };
  httpsPort = await freePort();
  runtime = await startRuntime('cw-runtime-tls', member.project, running, { CW_RUNTIME_HTTPS_HOST: '127.0.0.1', CW_RUNTIME_HTTPS_PORT: String(httpsPort), ...sealingEnv });
  // Pebble validates HTTP-01 on the runtime's entry port; its DNS answers 127.0.0.1 for every name.
  pebble = await startPebble(inject('stateDir'), { http01Port: runtime.port });
  const caFile = join(inject('stateDir'), `pebble-listener-${member.project}.pem`);
  writeFileSync(caFile, pebble.listenerCa);
  root = await pebble.issuingRoot();
  const dns = { CW_DNS_PARENT_SERVER: parent.address, CW_DNS_RESOLVER: parent.address, CW_DNS_TIMEOUT_MS: '2000', CW_RUNTIME_BASE_DOMAIN: BASE_DOMAIN, CW_DNS_RECHECK_INTERVAL_SECONDS: '1' };
  api = await startApiServer({ kubeconfig, stateDir: inject('stateDir'), env: { ...s3Env(), ...dnsTestEnv(), ...dns } });
  // The operator's self-check reaches the runtime through a proxy the test can switch off: an order then waits,
  // its challenge published, for as long as the test needs to kill the operator mid-order.
  selfCheck = await startSwitchableProxy(`http://127.0.0.1:${runtime.port}`);
  operatorEnv = { ...dnsTestEnv(), ...dns, ...sealingEnv, CW_ACME_DIRECTORY_URL: pebble.directoryUrl, CW_ACME_CA_FILE: caFile, CW_ACME_HTTP01_SELF_CHECK_URL: selfCheck.endpoint };
  await startOperator(member.project, running, operatorEnv);
}, 120_000);

afterAll(async () => {
  await Promise.all([api?.stop(), ...running.map((s) => s.stop(5_000))]);
  await Promise.all([parent?.stop(), pebble?.stop(), selfCheck?.close()]);
});

async function call<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
  const res = await fetch(`${api!.url}/v1/projects/${member.project}${path}`, {
    method,
    headers: { authorization: `Bearer ${member.token}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
    ...(body === undefined ? {} : { body: body instanceof Uint8Array ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** The handshake's outcome for `servername`: the certificate shown, or the error. */
function handshake(servername: string): Promise<{ certificate: X509Certificate } | { error: string }> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: httpsPort, servername, ca: root }, () => {
      resolve({ certificate: new X509Certificate(socket.getPeerCertificate().raw) });
      socket.end();
    });
    socket.on('error', (err) => resolve({ error: err.message }));
  });
}

describe('HTTPS for a custom host name', () => {
  const host = `shop.tls-${randomBytes(3).toString('hex')}.test`;

  it('issues a certificate once the host name is finalized and serves the app over HTTPS by SNI', { timeout: 120_000 }, async () => {
    await call('POST', '/apps', { name: 'web' });
    await call('POST', '/apps/web/deployments', packWorker('export default { fetch(request) { return new Response("hello over " + new URL(request.url).protocol); } };\n'), 'application/octet-stream');
    const attached = await call<HostnameView>('POST', '/apps/web/domains', { domain: host });
    expect(attached.tls?.status).toBe('none');
    parent.setRecord(host, 'CNAME', [RUNTIME_TARGET]);
    const challenge = attached.dns_records?.find((r) => r.record_type === 'TXT');
    parent.setRecord(challenge?.name ?? '', 'TXT', [challenge?.value ?? '']);
    const finalizedAt = Date.now();
    expect((await call<HostnameView>('POST', `/apps/web/domains/${host}/finalize`)).status).toBe('active');

    const dispatcher = new Agent({ connect: { ca: root, lookup } });
    const served = await eventually(
      'served over HTTPS',
      async () => {
        const res = await request(`https://${host}:${httpsPort}/`, { dispatcher });
        return { status: res.statusCode, body: await res.body.text() };
      },
      (r) => r.status === 200,
      60_000,
    );
    const issuanceMs = Date.now() - finalizedAt;
    expect(served.body).toBe('hello over https:');
    await dispatcher.close();
    process.stdout.write(`finalize → first HTTPS 200: ${issuanceMs} ms\n`);

    const shown = await handshake(host);
    if (!('certificate' in shown)) throw new Error(shown.error);
    expect(shown.certificate.subjectAltName).toBe(`DNS:${host}`);
    expect(shown.certificate.issuer).toMatch(/Pebble/);

    // Where people look: the API's view (and so `cw hostnames ls` and the console) shows the certificate.
    const listed = await call<{ domains: HostnameView[] }>('GET', '/apps/web/domains');
    const view = listed.domains.find((h) => h.domain === host);
    expect(view?.tls).toMatchObject({ status: 'issued', issuer: expect.stringMatching(/Pebble/), last_error: null });
    expect(Date.parse(view?.tls?.not_after ?? '')).toBeGreaterThan(Date.now());
  });

  it('gives an unknown SNI no certificate, and orders none for it', async () => {
    const unknown = `nobody-${randomBytes(3).toString('hex')}.example.test`;
    const shown = await handshake(unknown);
    expect('error' in shown).toBe(true);
    const ordered = (await certificates.list(member.project)).items.filter((c) => c.spec.dnsNames.includes(unknown));
    expect(ordered).toEqual([]);
  });

  it('resumes the same order after the operator is SIGKILLed mid-order', { timeout: 120_000 }, async () => {
    const other = `resume.tls-${randomBytes(3).toString('hex')}.test`;
    selfCheck.down();
    const attached = await call<HostnameView>('POST', '/apps/web/domains', { domain: other });
    parent.setRecord(other, 'CNAME', [RUNTIME_TARGET]);
    const challenge = attached.dns_records?.find((r) => r.record_type === 'TXT');
    parent.setRecord(challenge?.name ?? '', 'TXT', [challenge?.value ?? '']);
    await call('POST', `/apps/web/domains/${other}/finalize`);
    const midway = await eventually(
      'ordered, its challenge published',
      () => certificates.get(member.project, other),
      (c) => (c?.status?.http01?.length ?? 0) > 0,
      60_000,
    );
    const orderUrl = midway!.status!.order!.url;
    const operator = running.find((s) => s.name === `operator-${member.project}`);
    if (!operator) throw new Error('no operator');
    await killHard(operator);
    running.splice(running.indexOf(operator), 1);
    selfCheck.up();
    await startOperator(member.project, running, operatorEnv);
    const dispatcher = new Agent({ connect: { ca: root, lookup } });
    await eventually(
      'served over HTTPS after the restart',
      async () => (await request(`https://${other}:${httpsPort}/`, { dispatcher })).statusCode,
      (code) => code === 200,
      90_000,
    );
    await dispatcher.close();
    // The order placed before the kill is the one that was finalized: it holds the served certificate.
    const served = await certificates.get(member.project, other);
    const acme = await acmeAccount(
      { directoryUrl: pebble.directoryUrl, caCertificates: pebble.listenerCa },
      new SealedStore(new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') }), sealingKey),
    );
    try {
      const order = await acme.order(orderUrl);
      expect(order.status).toBe('valid');
      expect(new X509Certificate(await acme.certificate(order.certificate!)).serialNumber.toLowerCase()).toBe(served?.status?.serial);
    } finally {
      await acme.close();
    }
  });

  it('revokes the certificate when the host name is detached', { timeout: 60_000 }, async () => {
    const cert = await certificates.get(member.project, host);
    const serial = cert?.status?.serial ?? '';
    expect(await pebble.certificateStatus(serial)).toBe('Valid');
    await call('DELETE', `/apps/web/domains/${host}`);
    await eventually(
      'revoked',
      () => pebble.certificateStatus(serial),
      (status) => status === 'Revoked',
      30_000,
    );
    await eventually(
      'certificate gone',
      () => certificates.get(member.project, host),
      (c) => c === undefined,
      30_000,
    );
  });
});
