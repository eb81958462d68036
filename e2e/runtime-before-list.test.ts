// A cw-runtime replica takes traffic before its informers have listed the apps and their custom host names (a minute
// and more at 100,000): an app a request asks for is read from the apiserver by its host, and a custom host name's
// claim and AppHostname by name (docs/runtime.md, "Apps served on demand"). Here a proxy in front of the apiserver
// holds the replica's lists of RuntimeApps, AppHostnames and HostnameClaims until the test lets them go.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AppHostname } from '../src/apis/v1alpha1/app-hostname.ts';
import type { HostnameClaim } from '../src/apis/v1alpha1/domain-claim.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import type { RuntimeReplica } from '../src/apis/v1alpha1/runtime-replica.ts';
import { loadKubeConnection, NAMESPACES, objectClient, type KubeObject } from '../src/kube/index.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { artifactKey, buildIdFor } from '../src/platform/artifact-keys.ts';
import { APP_HOSTNAMES, HOSTNAME_CLAIMS, RUNTIME_APPS, RUNTIME_REPLICAS, TLS_CERTIFICATES } from '../src/platform/resources.ts';
import { certificateObjectKey, type StoredCertificate } from '../src/tls/certificate-objects.ts';
import { SealedStore } from '../src/tls/sealed-store.ts';
import type { TlsCertificate } from '../src/apis/v1alpha1/tls-certificate.ts';
import { send } from '../runtime-server/engine/testing/http.ts';
import { TestCa } from '../runtime-server/tls/testing/test-ca.ts';
import { startHoldingKubeProxy, type HoldingKubeProxy } from './harness/holding-kube-proxy.ts';
import { freePort, type Service } from './harness/process.ts';
import { serialShown } from './harness/tls-client.ts';
import { BASE_DOMAIN, eventually, launchRuntime, packWorker } from './harness/runtime-stack.ts';

const conn = loadKubeConnection(inject('kubeconfig'));
const suffix = randomBytes(4).toString('hex');
const namespace = `before-list-${suffix}`;
const customHost = `shop-${suffix}.example.test`;
/** A second custom host name of `shop`, asked for first by a CA validating it over HTTP-01. */
const verifyHost = `verify-${suffix}.example.test`;
const sealingKey = randomBytes(32);
let ca: TestCa;
let certificate: StoredCertificate;
const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
const claims = objectClient<HostnameClaim>(conn, HOSTNAME_CLAIMS);
const running: Service[] = [];
const bucket = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
let proxy: HoldingKubeProxy | undefined;

afterAll(async () => {
  proxy?.release();
  await Promise.all(running.map((s) => s.stop(5_000)));
  await proxy?.close();
  await Promise.all([claims.delete('', customHost), claims.delete('', verifyHost)]);
  await objectClient<KubeObject>(conn, NAMESPACES).delete('', namespace);
});

beforeAll(async () => {
  await objectClient<KubeObject>(conn, NAMESPACES).create({ metadata: { name: namespace } });
  const artifact = packWorker('export default { fetch(request, env) { return new Response(env.NAME); } };\n');
  const buildId = buildIdFor(createHash('sha256').update(artifact).digest('hex'));
  const create = async (name: string, spec: Partial<RuntimeApp['spec']> = {}) => {
    await bucket.put(artifactKey(namespace, name, buildId), artifact);
    await apps.create({ metadata: { name, namespace }, spec: { displayName: name, activeBuildId: buildId, environment: { NAME: name }, ...spec } } as RuntimeApp);
  };
  // `www.<project>.<base>` is also the default host of an app `www`, which does not exist: `site` lists it.
  // `intruder` lists a name in another project's part of the base domain: never served, listed or not.
  await Promise.all([
    create('web'),
    create('site', { hostnames: [`www.${namespace}.${BASE_DOMAIN}`] }),
    create('shop'),
    create('doomed'),
    create('intruder', { hostnames: [`www.elsewhere-${suffix}.${BASE_DOMAIN}`] }),
  ]);
  // Active custom host names, as the AppHostname controller leaves them: their claims, and their state.
  const hostnames = objectClient<AppHostname>(conn, APP_HOSTNAMES);
  for (const host of [customHost, verifyHost]) {
    const attached = await hostnames.create({ metadata: { name: host, namespace }, spec: { hostname: host, appRef: { name: 'shop' } } } as AppHostname);
    await hostnames.patchStatus(namespace, host, { status: { state: 'active' } });
    await claims.create({ metadata: { name: host }, spec: { name: host, holder: { kind: 'AppHostname', namespace, name: host, uid: attached.metadata?.uid ?? '' } } } as HostnameClaim);
  }
  // The certificate of the first, and a challenge of the second being validated, as the operator writes them.
  ca = await TestCa.create();
  certificate = await ca.issue([customHost]);
  await new SealedStore(bucket, sealingKey).put(certificateObjectKey(namespace, 'shop', certificate.serial), certificate);
  const certificates = objectClient<TlsCertificate>(conn, TLS_CERTIFICATES);
  await certificates.create({ metadata: { name: 'shop', namespace }, spec: { dnsNames: [customHost, verifyHost] } });
  const { serial, dnsNames, notAfter } = certificate;
  const http01 = [{ dnsName: verifyHost, token: 'tok-verify', keyAuthorization: 'tok-verify.thumbprint' }];
  await certificates.patchStatus(namespace, 'shop', { status: { state: 'Issued', serial, dnsNames, notAfter, http01 } });
}, 60_000);

describe('cw-runtime before its informers have listed the apps', () => {
  it('takes traffic, serves the apps asked for by looking them up, and hands them to its controller once listed', { timeout: 120_000 }, async () => {
    // The RuntimeApps and the two kinds kept one per custom host name (a minute each to list at 100,000).
    proxy = await startHoldingKubeProxy(inject('kubeconfig'), ['runtimeapps', 'apphostnames', 'hostnameclaims'], inject('stateDir'));
    const name = 'cw-runtime-before-list';
    const httpsPort = await freePort();
    const { port, statusUrl } = await launchRuntime(name, namespace, running, {
      KUBECONFIG: proxy.kubeconfig,
      CW_WATCH_NAMESPACE: namespace,
      CW_RUNTIME_HTTPS_PORT: String(httpsPort),
      CW_TLS_SEALING_KEY: sealingKey.toString('base64'),
    });
    const readiness = await eventually(
      'ready',
      () => fetch(`${statusUrl}/readyz`).then(async (r) => [r.status, await r.text()]),
      ([status]) => status === 200,
    );
    expect(readiness).toEqual([200, 'ok']);
    expect(proxy.held).toBeGreaterThan(0);
    // Taking traffic; its reports do not count (nothing of the apps is listed).
    const replicas = objectClient<RuntimeReplica>(conn, RUNTIME_REPLICAS);
    expect((await replicas.get(namespace, name))?.spec).toMatchObject({ takesTraffic: true, ready: false });

    const answer = async (host: string) => {
      const r = await send(port, host, '/');
      return [r.status, r.body];
    };
    expect(await answer(`web.${namespace}.${BASE_DOMAIN}`)).toEqual([200, 'web']);
    expect(await answer(`www.${namespace}.${BASE_DOMAIN}`)).toEqual([200, 'site']);
    // A custom host name's claim and AppHostname are read by name, asked for by a handshake, a challenge or a request.
    expect(await serialShown(httpsPort, customHost, ca.certPem)).toEqual({ serial: certificate.serial });
    expect(await send(port, verifyHost, '/.well-known/acme-challenge/tok-verify')).toMatchObject({ status: 200, body: 'tok-verify.thumbprint' });
    expect(await answer(customHost)).toEqual([200, 'shop']);
    expect(await answer(`doomed.${namespace}.${BASE_DOMAIN}`)).toEqual([200, 'doomed']);
    // Names of no app: found out, a 404 (not a 503 to retry).
    expect((await answer(`nothing.${namespace}.${BASE_DOMAIN}`))[0]).toBe(404);
    expect((await answer(`nothing-${suffix}.example.test`))[0]).toBe(404);
    expect((await answer(`www.elsewhere-${suffix}.${BASE_DOMAIN}`))[0]).toBe(404);
    // Still before the list: the lookups answered it all.
    expect((await replicas.get(namespace, name))?.spec.ready).toBe(false);

    // Deleted while the list is held: the controller, deciding every app once listed, stops serving it.
    await apps.delete(namespace, 'doomed');
    proxy.release();
    await eventually(
      'reports complete',
      () => replicas.get(namespace, name),
      (r) => r?.spec.ready === true,
      60_000,
    );
    await eventually(
      'the deleted app no longer served',
      () => answer(`doomed.${namespace}.${BASE_DOMAIN}`),
      ([status]) => status === 404,
    );
    expect(await answer(`web.${namespace}.${BASE_DOMAIN}`)).toEqual([200, 'web']);
    expect(await answer(customHost)).toEqual([200, 'shop']);
  });
});
