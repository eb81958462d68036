// User code cannot reach the platform: on the real stack (a cw-runtime replica, the control plane's apiserver,
// MinIO, a cw-db), an app fetches the Kubernetes API, cw-db's admin port, MinIO, the runtime's own status port
// and the cloud metadata address, by IP (also spelled as 0.0.0.0, IPv4-mapped IPv6, short and decimal forms)
// and by name; every fetch is refused by workerd's network filter (its log says "is not allowed"), while each
// target is up: this test's own process reaches every one of them. The one private destination it allows is
// the platform's SQL endpoint (cw-db's SQL listener on a loopback address of its own, CW_RUNTIME_DATABASE_URL):
// the app reaches it, while cw-db's admin port (127.0.0.1) and a listener on the next loopback address stay
// refused. In a cluster the chart's NetworkPolicy stands behind the filter (e2e/chart-node.test.ts probes the
// in-cluster names there).
import { readFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { loadKubeConnection, objectClient } from '../src/kube/index.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { artifactKey } from '../src/platform/artifact-keys.ts';
import { RUNTIME_APPS } from '../src/platform/resources.ts';
import { artifactFromFiles } from '../runtime-server/engine/testing/artifact-builder.ts';
import { send } from '../runtime-server/engine/testing/http.ts';
import { startDatabaseServer, type DatabaseServer } from './harness/database-server.ts';
import { EGRESS_PROBE_WORKER, errorReference, refusalReason, type ProbeAnswer } from './harness/egress-probe.ts';
import { createTestNamespace } from './harness/namespace.ts';
import type { Service } from './harness/process.ts';
import { BASE_DOMAIN, eventually, servedEverywhere, startRuntime, type Runtime } from './harness/runtime-stack.ts';

const conn = loadKubeConnection(inject('kubeconfig'));
const running: Service[] = [];
let runtime: Runtime;
let db: DatabaseServer;
let host = '';
/** Something listening on a loopback address the runtime was not told of (next to cw-db's SQL address). */
let neighbour: Server | undefined;
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop(5_000)));
  await db?.stop();
  neighbour?.close();
});

beforeAll(async () => {
  const namespace = await createTestNamespace(conn, 'egress');
  db = await startDatabaseServer({ name: 'cw-db-egress' });
  runtime = await startRuntime('cw-runtime-egress', namespace, running, { CW_RUNTIME_DATABASE_URL: db.url });
  const server = (neighbour = createServer((socket) => socket.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.3', resolve));
  const bucket = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
  await bucket.put(artifactKey(namespace, 'probe', 'b-probe'), artifactFromFiles({ 'worker.js': EGRESS_PROBE_WORKER }));
  await objectClient<RuntimeApp>(conn, RUNTIME_APPS).create({ metadata: { name: 'probe', namespace }, spec: { displayName: 'probe', activeBuildId: 'b-probe' } });
  host = `probe.${namespace}.${BASE_DOMAIN}`;
  await servedEverywhere([runtime], host, 'probe ok');
}, 120_000);

/** Whether something accepts TCP connections at `host`:`port` (this process is not filtered). */
function listening(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** `url` with its host replaced by `hostname` (an IP spelled some other way, or a name). */
function at(url: string, hostname: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${hostname}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname}`;
}

describe("an app's outbound fetch", () => {
  it('is refused for every platform address, by IP and by name, while each target is up', { timeout: 60_000 }, async () => {
    const kubeconfig = new KubeConfig();
    kubeconfig.loadFromFile(inject('kubeconfig'));
    const targets: Record<string, string> = {
      'the Kubernetes API': `${kubeconfig.getCurrentCluster()?.server ?? ''}/version`,
      "cw-db's admin port": `${db.adminUrl}/healthz`,
      MinIO: `${inject('s3').endpoint ?? ''}/minio/health/live`,
      "the runtime's status port": `${runtime.statusUrl}/apps`,
    };
    // The SQL endpoint's address is allowed, and nothing next to it.
    const address = neighbour?.address();
    const nextDoor = `http://127.0.0.3:${typeof address === 'object' && address ? address.port : 0}/`;
    expect(await listening('127.0.0.3', Number(new URL(nextDoor).port)), 'the neighbour is up').toBe(true);
    const urls: string[] = [];
    for (const [what, url] of Object.entries(targets)) {
      const { hostname, port } = new URL(url);
      expect(hostname, what).toBe('127.0.0.1');
      expect(await listening(hostname, Number(port)), `${what} is up`).toBe(true);
      urls.push(url, at(url, 'localhost'));
    }
    // The same address spelled otherwise, and the cloud metadata service (nothing answers it here: its refusal
    // is the filter's all the same).
    const status = targets["the runtime's status port"]!;
    // NAT64 (well-known and local-use), 6to4, IPv4-compatible and IPv4-translated forms: workerd's `public` filter
    // let them through (this test once took that for a refusal, review-183); the runtime's deny list refuses them.
    urls.push(
      ...['0.0.0.0', '[::ffff:127.0.0.1]', '127.1', '2130706433', '[::1]', '[64:ff9b::7f00:1]', '[64:ff9b:1::7f00:1]', '[2002:7f00:1::1]', '[::7f00:1]', '[::ffff:0:7f00:1]'].map((hostname) =>
        at(status, hostname),
      ),
    );
    urls.push(...['169.254.169.254', '[::ffff:169.254.169.254]', '2852039166'].map((hostname) => `http://${hostname}/latest/meta-data/`));
    urls.push(nextDoor);

    const references = new Map<string, string>();
    for (const url of urls) {
      const res = await send(runtime.port, host, `/?url=${encodeURIComponent(url)}`);
      const answer = JSON.parse(res.body) as ProbeAnswer;
      expect([url, res.status, answer.reached], res.body).toEqual([url, 200, false]);
      // A refusal of the filter is an error workerd does not show the app, only its reference; an error with none
      // (`Network connection lost.`) is a connection workerd tried.
      const reference = errorReference(answer);
      expect(reference, `${url}: ${res.body}`).toBeDefined();
      references.set(url, reference ?? '');
    }
    const reasons = await eventually(
      "workerd's reason for each refusal in the runtime's log",
      async () => {
        const log = readFileSync(runtime.service.logPath, 'utf8');
        return [...references].map(([url, reference]) => [url, refusalReason(log, reference)] as const);
      },
      (found) => found.every(([, reason]) => reason !== undefined),
      10_000,
    );
    for (const [url, reason] of reasons) expect(reason, url).toMatch(/^connecting to .* is not allowed$/);
  });

  it("reaches the platform's SQL endpoint, the one private address allowed, while cw-db's admin port stays refused", { timeout: 30_000 }, async () => {
    const probe = async (url: string) => JSON.parse((await send(runtime.port, host, `/?url=${encodeURIComponent(url)}`)).body) as ProbeAnswer;
    expect(new URL(db.url).hostname).toBe('127.0.0.2');
    expect(await probe(`${db.url}/health`)).toEqual({ reached: true, status: 200 });
    // The same cw-db, its admin API: on 127.0.0.1, refused by the filter.
    const admin = await probe(`${db.adminUrl}/healthz`);
    expect(admin.reached).toBe(false);
    const reference = errorReference(admin);
    expect(reference, JSON.stringify(admin)).toBeDefined();
    const reason = await eventually(
      "workerd's reason in the runtime's log",
      async () => refusalReason(readFileSync(runtime.service.logPath, 'utf8'), reference),
      (found) => found !== undefined,
      10_000,
    );
    expect(reason).toMatch(/^connecting to 127\.0\.0\.1:\d+ is not allowed$/);
  });
});
