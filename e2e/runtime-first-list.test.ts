// A cw-runtime replica starting among many apps (1,000 here) goes through them one by one (its first list), and is ready once
// it has. A request for an app it has not got to yet does not wait for the rest: that app is deployed first, and
// the request answered by it, while the replica is still going through the list (its /readyz says how far).
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { loadKubeConnection, NAMESPACES, objectClient, type KubeObject } from '../src/kube/index.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { artifactKey, buildIdFor } from '../src/platform/artifact-keys.ts';
import { RUNTIME_APPS } from '../src/platform/resources.ts';
import { send } from '../runtime-server/engine/testing/http.ts';
import { waitForLine, type Service } from './harness/process.ts';
import { BASE_DOMAIN, launchRuntime, packWorker } from './harness/runtime-stack.ts';

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
  it('answers a request for the last app of its first list before it has gone through the rest', { timeout: 120_000 }, async () => {
    // One app at a time, so the list takes long enough to be caught in the middle of; this test's namespace only.
    const { service, port, statusUrl } = await launchRuntime('cw-runtime-first-list', namespace, running, { CW_RUNTIME_WORKERS: '1', CW_WATCH_NAMESPACE: namespace });
    await waitForLine(service, /informer synced/, 60_000);
    const last = names.at(-1) ?? '';
    const answered = await send(port, `${last}.${namespace}.${BASE_DOMAIN}`, '/');
    const readiness = await fetch(`${statusUrl}/readyz`);
    const why = await readiness.text();
    expect([answered.status, answered.body]).toEqual([200, last]);
    // Still going through the list when the last app answered: it was not served in list order.
    expect(readiness.status, why).toBe(503);
    const pending = Number(/(\d+) apps of the first list are not served yet/.exec(why)?.[1]);
    expect(pending).toBeGreaterThan(APPS / 4);
    // A host naming no app at all: 404 at once, nothing waited for.
    const asked = performance.now();
    expect(await send(port, `nothing.${namespace}.${BASE_DOMAIN}`, '/')).toMatchObject({ status: 404 });
    expect(performance.now() - asked).toBeLessThan(2_000);
  });
});
