// An app's redirect to HTTPS and its HSTS, on a real runtime (kube-apiserver, MinIO, workerd) terminating TLS with a
// test CA's certificate, which the test seals and names in a TlsCertificate status as the operator would.
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import type { TlsCertificate } from '../src/apis/v1alpha1/tls-certificate.ts';
import { loadKubeConnection, objectClient } from '../src/kube/index.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { artifactKey } from '../src/platform/artifact-keys.ts';
import { RUNTIME_APPS, TLS_CERTIFICATES } from '../src/platform/resources.ts';
import { certificateObjectKey } from '../src/tls/certificate-objects.ts';
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
const running: Service[] = [];
afterAll(() => Promise.all(running.map((s) => s.stop(5_000))));

let ca: TestCa;
let runtime: Runtime;
let httpsPort = 0;
let project = '';
/** The app's default host, which gets a certificate. */
let host = '';
/** Its deploy host name, which never does. */
let bare = '';

/** The serial the runtime shows for `servername`, or the handshake's error message. */
const handshake = (servername: string) => serialShown(httpsPort, servername, ca.certPem);

beforeAll(async () => {
  ca = await TestCa.create();
  project = await createTestNamespace(conn, 'https-policy');
  host = `shop.${project}.${BASE_DOMAIN}`;
  bare = `www.${project}.${BASE_DOMAIN}`;
  await bucket.put(
    artifactKey(project, 'shop', 'b1'),
    artifactFromFiles({ 'worker.js': 'export default { fetch: (r) => new Response(`shop over ${new URL(r.url).protocol} ${new URL(r.url).pathname}`) };' }),
  );
  await apps.create({
    metadata: { name: 'shop', namespace: project },
    spec: { displayName: 'shop', activeBuildId: 'b1', hostnames: [bare], https: { redirectHttp: true, hsts: { maxAgeSeconds: 600, includeSubdomains: true } } },
  });
  httpsPort = await freePort();
  // No load balancer in front: clients reach HTTPS on the listener's own port, which redirects must name.
  runtime = await startRuntime('cw-runtime-https-policy', project, running, {
    CW_RUNTIME_HTTPS_PORT: String(httpsPort),
    CW_RUNTIME_PUBLIC_HTTPS_PORT: String(httpsPort),
    CW_TLS_SEALING_KEY: sealingKey.toString('base64'),
  });
  // With redirectHttp on, but no certificate yet: served over HTTP, not redirected (that would break the app).
  await servedEverywhere([runtime], host, 'shop over http: /');
}, 90_000);

describe("an app's redirect to HTTPS and HSTS", { timeout: 60_000 }, () => {
  it('redirects plain HTTP with 308 to the same URL over HTTPS once its host has a certificate, which then carries HSTS', async () => {
    const before = await send(runtime.port, host, '/cart?item=1');
    expect([before.status, before.body, before.headers['strict-transport-security']]).toEqual([200, 'shop over http: /cart', undefined]);

    const certificate = await ca.issue([host]);
    await new SealedStore(bucket, sealingKey).put(certificateObjectKey(project, 'shop', certificate.serial), certificate);
    await tlsCertificates.create({ metadata: { name: 'shop', namespace: project }, spec: { dnsNames: [host] } });
    await tlsCertificates.patchStatus(project, 'shop', { status: { state: 'Issued', serial: certificate.serial, dnsNames: certificate.dnsNames, notAfter: certificate.notAfter } });
    await eventually(
      `${host} by SNI`,
      () => handshake(host),
      (r) => 'serial' in r && r.serial === certificate.serial,
    );

    const redirected = await send(runtime.port, host, '/cart?item=1', { method: 'POST', body: 'qty=2' });
    expect(redirected.status).toBe(308);
    expect(redirected.headers.location).toBe(`https://${host}:${httpsPort}/cart?item=1`);
    // HSTS is never sent over plain HTTP (RFC 6797 §7.2).
    expect(redirected.headers['strict-transport-security']).toBeUndefined();

    const agent = new Agent({ connect: { ca: ca.certPem, lookup } });
    try {
      const followed = await request(redirected.headers.location!, { dispatcher: agent });
      expect([followed.statusCode, await followed.body.text(), followed.headers['strict-transport-security']]).toEqual([200, 'shop over https: /cart', 'max-age=600; includeSubDomains']);
    } finally {
      await agent.close();
    }
  });

  it('does not redirect an ACME HTTP-01 challenge, nor a host of the app without a certificate', async () => {
    await eventually(
      'the redirect on',
      () => send(runtime.port, host, '/'),
      (r) => r.status === 308,
    );
    expect(await send(runtime.port, host, '/.well-known/acme-challenge/some-token')).toMatchObject({
      status: 200,
      body: 'shop over http: /.well-known/acme-challenge/some-token',
    });
    const uncertified = await send(runtime.port, bare, '/');
    expect([uncertified.status, uncertified.body, uncertified.headers['strict-transport-security']]).toEqual([200, 'shop over http: /', undefined]);
  });

  it('follows a change of the settings without a redeploy', async () => {
    const app = (await apps.get(project, 'shop'))!;
    await apps.replace({ ...app, spec: { ...app.spec, https: { hsts: { maxAgeSeconds: 0 } } } });
    await eventually(
      'the redirect off',
      () => send(runtime.port, host, '/'),
      (r) => r.status === 200,
    );
    const agent = new Agent({ connect: { ca: ca.certPem, lookup } });
    try {
      const res = await request(`https://${host}:${httpsPort}/`, { dispatcher: agent });
      expect([res.statusCode, await res.body.text(), res.headers['strict-transport-security']]).toEqual([200, 'shop over https: /', 'max-age=0']);
    } finally {
      await agent.close();
    }
  });
});
