// A cw-runtime replica starting among many apps (1,000 here) takes traffic as soon as its informers have listed them,
// and goes through them one by one (its first list). A request for an app it has not got to yet does not wait for the
// rest: that app is deployed first and the request answered by it; the replica's reports count (its RuntimeReplica's
// ready, what the operator reads; takesTraffic before it) only once the whole list has settled.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import type { RuntimeReplica } from '../src/apis/v1alpha1/runtime-replica.ts';
import { loadKubeConnection, NAMESPACES, objectClient, type KubeObject } from '../src/kube/index.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { artifactKey, buildIdFor } from '../src/platform/artifact-keys.ts';
import { RUNTIME_APPS, RUNTIME_REPLICAS } from '../src/platform/resources.ts';
import { send } from '../runtime-server/engine/testing/http.ts';
import { waitForLine, type Service } from './harness/process.ts';
import { BASE_DOMAIN, eventually, launchRuntime, packWorker } from './harness/runtime-stack.ts';

const APPS = 1000;
const conn = loadKubeConnection(inject('kubeconfig'));
const namespace = `first-list-${randomBytes(4).toString('hex')}`;
const names = Array.from({ length: APPS }, (_, i) => `app-${String(i).padStart(3, '0')}`);
const running: Service[] = [];

afterAll(async () => {
  await Promise.all(running.map((s) => s.stop(5_000)));
  await objectClient<KubeObject>(conn, NAMESPACES).delete('', namespace);
});

beforeAll(async () => {
  await objectClient<KubeObject>(conn, NAMESPACES).create({ metadata: { name: namespace } });
  const artifact = packWorker('export default { fetch(request) { return new Response(new URL(request.url).hostname.split(".")[0]); } };\n');
  const buildId = buildIdFor(createHash('sha256').update(artifact).digest('hex'));
  const bucket = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
  const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < APPS; i = next++) {
      const name = names[i] ?? '';
      await bucket.put(artifactKey(namespace, name, buildId), artifact);
      await apps.create({ metadata: { name, namespace }, spec: { displayName: name, activeBuildId: buildId } } as RuntimeApp);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}, 120_000);

describe('cw-runtime starting among many apps', () => {
  it('takes traffic once it has listed them, and answers the last app of its first list before it has gone through the rest', { timeout: 120_000 }, async () => {
    // One app at a time, so the list takes long enough to be caught in the middle of; this test's namespace only.
    const name = 'cw-runtime-first-list';
    const { service, port, statusUrl } = await launchRuntime(name, namespace, running, { CW_RUNTIME_WORKERS: '1', CW_WATCH_NAMESPACE: namespace });
    // Its RuntimeReplica is written before its informers list (taking no traffic yet), so the operator knows a
    // replica is on its way meanwhile; the two log lines' times say which came first.
    const timeOf = (line: RegExpMatchArray) => Date.parse((JSON.parse(line[0]) as { time: string }).time);
    const [published, synced] = await Promise.all([waitForLine(service, /^\{.*"publishing replica report".*$/, 60_000), waitForLine(service, /^\{.*"informer synced".*$/, 60_000)]);
    expect(timeOf(published)).toBeLessThan(timeOf(synced));
    const pendingApps = async () => Number(/^cloudwright_runtime_first_list_pending (\d+)$/m.exec(await (await fetch(`${statusUrl}/metrics`)).text())?.[1]);
    // Ready for traffic with most of the list still to go (readiness waits on nothing but the listing, workerd and
    // its RuntimeReplica being written).
    const readiness = await eventually(
      'ready',
      () => fetch(`${statusUrl}/readyz`).then(async (r) => [r.status, await r.text()]),
      ([status]) => status === 200,
    );
    expect(readiness).toEqual([200, 'ok']);
    // Ready only once its RuntimeReplica says it takes traffic (cw-api and the operator find it there); its reports
    // do not count yet: the operator would read the apps not reached as not served by it.
    const replicas = objectClient<RuntimeReplica>(conn, RUNTIME_REPLICAS);
    expect((await replicas.get(namespace, name))?.spec).toMatchObject({ takesTraffic: true, ready: false });
    const last = names.at(-1) ?? '';
    const answered = await send(port, `${last}.${namespace}.${BASE_DOMAIN}`, '/');
    expect([answered.status, answered.body]).toEqual([200, last]);
    // Still going through the list when the last app answered: it was not served in list order.
    expect(await pendingApps()).toBeGreaterThan(APPS / 4);
    // A host naming no app at all: 404 at once, nothing waited for.
    const asked = performance.now();
    expect(await send(port, `nothing.${namespace}.${BASE_DOMAIN}`, '/')).toMatchObject({ status: 404 });
    expect(performance.now() - asked).toBeLessThan(2_000);
    // Once the list has settled, its reports count.
    await eventually(
      'reports complete',
      () => replicas.get(namespace, name),
      (r) => r?.spec.ready === true,
      100_000,
    );
    expect(await pendingApps()).toBe(0);
  });
});
