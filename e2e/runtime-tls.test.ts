// cw-runtime terminating TLS, on a real runtime (kube-apiserver, MinIO, workerd): the operator's part is played
// by the test, which seals certificates of its own CA into the bucket and writes TlsCertificate statuses through
// the status subresource as the operator would. Each handshake is checked by the serial the client is shown.
import { randomBytes } from 'node:crypto';
import { connect as connectHttp2 } from 'node:http2';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import type { TlsCertificate, TlsCertificateStatus } from '../src/apis/v1alpha1/tls-certificate.ts';
import { loadKubeConnection, objectClient } from '../src/kube/index.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { artifactKey } from '../src/platform/artifact-keys.ts';
import { RUNTIME_APPS, TLS_CERTIFICATES } from '../src/platform/resources.ts';
import { certificateObjectKey, type StoredCertificate } from '../src/tls/certificate-objects.ts';
import { SealedStore } from '../src/tls/sealed-store.ts';
import { artifactFromFiles } from '../runtime-server/engine/testing/artifact-builder.ts';
import { send } from '../runtime-server/engine/testing/http.ts';
import { TestCa } from '../runtime-server/tls/testing/test-ca.ts';
import { createTestNamespace } from './harness/namespace.ts';
import { freePort, type Service } from './harness/process.ts';
import { localLookup as lookup, serialShown } from './harness/tls-client.ts';
import { BASE_DOMAIN, eventually, servedEverywhere, startRuntime, type Runtime } from './harness/runtime-stack.ts';

const conn = loadKubeConnection(inject('kubeconfig'));
const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
const tlsCertificates = objectClient<TlsCertificate>(conn, TLS_CERTIFICATES);
const bucket = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
const sealingKey = randomBytes(32);
const sealed = new SealedStore(bucket, sealingKey);
const running: Service[] = [];
afterAll(() => Promise.all(running.map((s) => s.stop(5_000))));

let ca: TestCa;
let runtime: Runtime;
let httpsPort = 0;
let alpha = '';
let beta = '';
let host = '';

/** Seals `certificate` as the operator does, then names it in the TlsCertificate's status (creating the object the first time). */
async function serve(namespace: string, name: string, certificate: StoredCertificate, extra: TlsCertificateStatus = {}): Promise<void> {
  await sealed.put(certificateObjectKey(namespace, name, certificate.serial), certificate);
  if (!(await tlsCertificates.get(namespace, name))) await tlsCertificates.create({ metadata: { name, namespace }, spec: { dnsNames: [...certificate.dnsNames] } });
  await tlsCertificates.patchStatus(namespace, name, { status: { state: 'Issued', serial: certificate.serial, dnsNames: certificate.dnsNames, notAfter: certificate.notAfter, ...extra } });
}

/** The serial the runtime shows for `servername`, or the handshake's error message. */
const handshake = (servername: string) => serialShown(httpsPort, servername, ca.certPem);

beforeAll(async () => {
  ca = await TestCa.create();
  [alpha, beta] = await Promise.all([createTestNamespace(conn, 'tls-alpha'), createTestNamespace(conn, 'tls-beta')]);
  host = `shop.${alpha}.${BASE_DOMAIN}`;
  await bucket.put(
    artifactKey(alpha, 'shop', 'b1'),
    artifactFromFiles({ 'worker.js': 'export default { fetch: (r) => new Response(`shop over ${new URL(r.url).protocol} ${new URL(r.url).pathname}`) };' }),
  );
  await apps.create({ metadata: { name: 'shop', namespace: alpha }, spec: { displayName: 'shop', activeBuildId: 'b1' } });
  httpsPort = await freePort();
  runtime = await startRuntime('cw-runtime-tls', alpha, running, { CW_RUNTIME_HTTPS_PORT: String(httpsPort), CW_TLS_SEALING_KEY: sealingKey.toString('base64') });
  await servedEverywhere([runtime], host, 'shop over http: /');
}, 90_000);

describe('cw-runtime over HTTPS', { timeout: 60_000 }, () => {
  it("gives no certificate for a name to another project's TlsCertificate, nor to an unknown name", async () => {
    // beta's certificate for alpha's name is stored and named in its status, as if beta (or anyone) had written it.
    await serve(beta, 'stolen', await ca.issue([host]));
    await serve(beta, 'own', await ca.issue([`own.${beta}.${BASE_DOMAIN}`]));
    // Once beta's own name is served, the runtime has seen both statuses.
    await eventually(
      `own.${beta} served`,
      () => handshake(`own.${beta}.${BASE_DOMAIN}`),
      (r) => 'serial' in r,
    );
    expect(await handshake(host)).toEqual({ error: expect.stringMatching(/handshake failure/) });
    expect(await handshake('nobody.example')).toEqual({ error: expect.stringMatching(/handshake failure/) });
  });

  it("serves the app over HTTPS with its project's certificate, chosen by SNI, and a renewed serial without a restart", async () => {
    const first = await ca.issue([host]);
    await serve(alpha, 'shop', first);
    await eventually(
      `${host} by SNI`,
      () => handshake(host),
      (r) => 'serial' in r && r.serial === first.serial,
    );
    const agent = new Agent({ connect: { ca: ca.certPem, lookup } });
    try {
      const res = await request(`https://${host}:${httpsPort}/hello`, { dispatcher: agent });
      expect(res.statusCode).toBe(200);
      expect(await res.body.text()).toBe('shop over https: /hello');
    } finally {
      await agent.close();
    }
    // HTTP/2 by ALPN, through the same entry point to workerd.
    const session = connectHttp2(`https://${host}:${httpsPort}`, { ca: ca.certPem, lookup });
    try {
      const stream = session.request({ ':path': '/over-h2' });
      let body = '';
      stream.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      const head = await new Promise<Record<string, unknown>>((resolve) => stream.once('response', resolve));
      await new Promise((resolve) => stream.once('end', resolve));
      expect([head[':status'], body, session.alpnProtocol]).toEqual([200, 'shop over https: /over-h2', 'h2']);
    } finally {
      session.close();
    }
    const renewed = await ca.issue([host]);
    await serve(alpha, 'shop', renewed);
    await eventually(
      `${host} renewed`,
      () => handshake(host),
      (r) => 'serial' in r && r.serial === renewed.serial,
    );
  });

  it('answers an HTTP-01 challenge on HTTP for a name its project may serve, before the app; not one written by another project', async () => {
    const path = '/.well-known/acme-challenge/tok-alpha';
    expect(await send(runtime.port, host, path)).toMatchObject({ status: 200, body: `shop over http: ${path}` });
    // beta's first: once alpha's is answered, the runtime has seen both (one watch, in order).
    await tlsCertificates.patchStatus(beta, 'stolen', { status: { http01: [{ dnsName: host, token: 'tok-beta', keyAuthorization: 'tok-beta.evil' }] } });
    await tlsCertificates.patchStatus(alpha, 'shop', { status: { http01: [{ dnsName: host, token: 'tok-alpha', keyAuthorization: 'tok-alpha.thumbprint' }] } });
    await eventually(
      `${path} answered`,
      () => send(runtime.port, host, path),
      (r) => r.status === 200 && r.body === 'tok-alpha.thumbprint',
    );
    expect((await send(runtime.port, host, path)).headers['content-type']).toBe('text/plain');
    expect(await send(runtime.port, host, '/.well-known/acme-challenge/tok-beta')).toMatchObject({ status: 200, body: 'shop over http: /.well-known/acme-challenge/tok-beta' });
  });
});
