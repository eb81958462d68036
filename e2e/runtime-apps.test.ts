// Runtime apps on the real stack, driven the way a GitOps user drives them (no REST API): the artifact is
// written to the bucket at its key, the Build and the RuntimeApp are created and patched with the
// Kubernetes API. Two cw-runtime replicas serve every namespace; cw-operator reports their state in the
// RuntimeApp's conditions.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Build } from '../src/apis/v1alpha1/build.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import type { RuntimeAppReport } from '../src/runtime-contract/report.ts';
import { loadKubeConnection, objectClient } from '../src/kube/index.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { artifactKey, buildIdFor, buildResourceName } from '../src/platform/artifact-keys.ts';
import { BUILDS, RUNTIME_APPS, RUNTIME_REPLICA_REPORTS, RUNTIME_REPLICAS } from '../src/platform/resources.ts';
import type { RuntimeReplica } from '../src/apis/v1alpha1/runtime-replica.ts';
import { replicaReportName, type RuntimeReplicaReport } from '../src/apis/v1alpha1/runtime-replica-report.ts';
import { compareResourceVersions } from '../src/kube/resource-version.ts';
import { reportOf } from './harness/replica-report.ts';
import { artifactFromFiles } from '../runtime-server/engine/testing/artifact-builder.ts';
import { send } from '../runtime-server/engine/testing/http.ts';
import { createTestNamespace } from './harness/namespace.ts';
import { STATUS_AUTH } from './harness/runtime-status-token.ts';
import type { Service } from './harness/process.ts';
import { BASE_DOMAIN, PUBLIC_PORT, eventually, notServedAnywhere, servedEverywhere, startOperator, startRuntime, type Runtime } from './harness/runtime-stack.ts';

const conn = loadKubeConnection(inject('kubeconfig'));
const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
const builds = objectClient<Build>(conn, BUILDS);
const reports = objectClient<RuntimeReplicaReport>(conn, RUNTIME_REPLICA_REPORTS);
const bucket = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
const running: Service[] = [];
afterAll(async () => Promise.all(running.map((s) => s.stop(5_000))));

/** A hello worker whose answer names its version and reads GREETING from the environment. */
function worker(version: string): Uint8Array {
  return artifactFromFiles({
    'worker.js': `export default { fetch(request, env) { return new Response(\`\${env.GREETING ?? 'Hello'} from ${version}\`); } };\n`,
  });
}

/** What the API's deploy route does before it sets activeBuildId: store the artifact, record the Build. */
async function upload(namespace: string, app: RuntimeApp, artifact: Uint8Array, options: { build?: boolean; artifact?: boolean } = {}): Promise<string> {
  const digest = createHash('sha256').update(artifact).digest('hex');
  const buildId = buildIdFor(digest);
  const appName = app.metadata?.name ?? '';
  const key = artifactKey(namespace, appName, buildId);
  if (options.artifact !== false) await bucket.put(key, artifact);
  if (options.build !== false) {
    await builds.create({
      metadata: {
        name: buildResourceName(appName, buildId),
        namespace,
        ownerReferences: [{ apiVersion: 'cloudwright.dev/v1alpha1', kind: 'RuntimeApp', name: appName, uid: app.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true }],
      },
      spec: { app: appName, buildId, digest, size: artifact.length, objectKey: key },
    });
  }
  return buildId;
}

function condition(app: RuntimeApp | undefined, type: string) {
  return app?.status?.conditions?.find((c) => c.type === type);
}

/** Waits until the operator reports `reason` on Ready for the app's current generation. */
function readyReason(namespace: string, name: string, reason: string): Promise<RuntimeApp | undefined> {
  return eventually(
    `${name} Ready reason ${reason}`,
    () => apps.get(namespace, name),
    (app) => app?.status?.observedGeneration === app?.metadata?.generation && condition(app, 'Ready')?.reason === reason,
  );
}

let runtimes: Runtime[] = [];
let namespace = '';

beforeAll(async () => {
  namespace = await createTestNamespace(conn, 'runtime');
  runtimes = await Promise.all([startRuntime('cw-runtime-a', namespace, running), startRuntime('cw-runtime-b', namespace, running)]);
  await startOperator(namespace, running);
}, 120_000);

describe('runtime apps applied as custom resources', () => {
  it('serves the active build with its environment and host names, follows the build pointer, and stops on delete', { timeout: 180_000 }, async () => {
    const host = `hello.${namespace}.${BASE_DOMAIN}`;
    const www = `www.${namespace}.${BASE_DOMAIN}`;
    // A deploy host name in the project's part of the base domain, and a custom one the project does not
    // control (no managed ProjectDomain holds it): written straight into the spec, it is not served.
    let app = await apps.create({ metadata: { name: 'hello', namespace }, spec: { displayName: 'Hello', environment: { GREETING: 'Hello' }, hostnames: [www, 'bank.example.test'] } });
    await readyReason(namespace, 'hello', 'NoBuild');
    await notServedAnywhere(runtimes, host);

    const v1 = await upload(namespace, app, worker('v1'));
    app = await apps.patch(namespace, 'hello', { spec: { activeBuildId: v1 } });
    await servedEverywhere(runtimes, host, 'Hello from v1');
    await servedEverywhere(runtimes, www, 'Hello from v1');
    await servedEverywhere(runtimes, `WWW.${namespace}.${BASE_DOMAIN}.:443`, 'Hello from v1');
    await notServedAnywhere(runtimes, 'bank.example.test');

    const ready = await readyReason(namespace, 'hello', 'Serving');
    expect(condition(ready, 'Ready')).toMatchObject({ status: 'True', observedGeneration: ready?.metadata?.generation });
    expect(condition(ready, 'Deployed')).toMatchObject({ status: 'True', reason: 'Serving', message: `Build ${v1} is served.` });
    expect(ready?.status).toMatchObject({ servingBuildId: v1, hosts: [host, www], url: `http://${host}:${PUBLIC_PORT}` });
    for (const runtime of runtimes) {
      const res = await fetch(`${runtime.statusUrl}/apps/${namespace}/hello`, STATUS_AUTH);
      expect(await res.json()).toMatchObject({ servingBuildId: v1, hosts: [host, www], servedGeneration: ready?.metadata?.generation });
    }

    // Per-app request metrics, counted by each replica's dispatcher worker.
    for (const runtime of runtimes) {
      const metrics = await (await fetch(`${runtime.statusUrl}/metrics`)).text();
      const served = new RegExp(`cloudwright_runtime_requests_total\\{project="${namespace}",app="hello",class="2xx"\\} (\\d+)`).exec(metrics);
      expect(Number(served?.[1])).toBeGreaterThan(0);
      expect(metrics).toMatch(new RegExp(`cloudwright_runtime_request_duration_seconds_bucket\\{project="${namespace}",app="hello",le="\\+Inf"\\} ${served?.[1]}`));
      expect(metrics).toMatch(new RegExp(`cloudwright_runtime_request_duration_seconds_count\\{project="${namespace}",app="hello"\\} ${served?.[1]}`));
      expect(metrics).toMatch(new RegExp(`cloudwright_runtime_requests_in_flight\\{project="${namespace}",app="hello"\\} 0`));
      // Each shard reports the isolates it loaded at its next health check: read until one has.
      await expect.poll(async () => (await (await fetch(`${runtime.statusUrl}/metrics`)).text()).match(/^cloudwright_runtime_isolates_loaded (\d+)$/m)?.[1], { timeout: 10_000 }).toMatch(/^[1-9]/);
    }

    await apps.patch(namespace, 'hello', { spec: { environment: { GREETING: 'Howdy' } } });
    await servedEverywhere(runtimes, host, 'Howdy from v1');
    await readyReason(namespace, 'hello', 'Serving');

    const v2 = await upload(namespace, app, worker('v2'));
    await apps.patch(namespace, 'hello', { spec: { activeBuildId: v2 } });
    await servedEverywhere(runtimes, host, 'Howdy from v2');
    expect((await readyReason(namespace, 'hello', 'Serving'))?.status?.servingBuildId).toBe(v2);

    // A rollback: the pointer goes back to a build that was served before, with no upload.
    await apps.patch(namespace, 'hello', { spec: { activeBuildId: v1 } });
    await servedEverywhere(runtimes, host, 'Howdy from v1');
    await servedEverywhere(runtimes, www, 'Howdy from v1');
    expect((await readyReason(namespace, 'hello', 'Serving'))?.status?.servingBuildId).toBe(v1);

    await apps.delete(namespace, 'hello');
    await notServedAnywhere(runtimes, host);
    await notServedAnywhere(runtimes, www);
    for (const runtime of runtimes) {
      await eventually(
        'status 404',
        () => fetch(`${runtime.statusUrl}/apps/${namespace}/hello`, STATUS_AUTH).then((r) => r.status),
        (s) => s === 404,
      );
    }
  });

  it('leaves out of its reports an app served just as it asks, which the operator reads from the report’s mark', { timeout: 120_000 }, async () => {
    const app = await apps.create({ metadata: { name: 'plain', namespace }, spec: { displayName: 'Plain' } });
    const v1 = await upload(namespace, app, worker('v1'));
    const deployed = await apps.patch(namespace, 'plain', { spec: { activeBuildId: v1 } });
    const ready = await readyReason(namespace, 'plain', 'Serving');
    const host = `plain.${namespace}.${BASE_DOMAIN}`;
    expect(ready?.status).toMatchObject({ servingBuildId: v1, hosts: [host], url: `http://${host}:${PUBLIC_PORT}` });
    for (const runtime of runtimes) {
      const report = await reports.get(namespace, replicaReportName(runtime.name, namespace));
      expect(report?.spec.apps.map((a) => a.app)).not.toContain('plain');
      expect(report?.spec.defaultHost).toEqual({ domain: BASE_DOMAIN, scheme: 'http', port: PUBLIC_PORT });
      // The mark has passed the deploy: the replica acted on it (what the operator's Ready rests on).
      expect(compareResourceVersions(report?.spec.acted, deployed.metadata?.resourceVersion)).toBeGreaterThanOrEqual(0);
      expect(reportOf(report, ready, deployed.metadata?.resourceVersion)).toMatchObject({ servingBuildId: v1, servedGeneration: ready?.metadata?.generation });
      // The replica's own status port still tells everything about it.
      const res = await fetch(`${runtime.statusUrl}/apps/${namespace}/plain`, STATUS_AUTH);
      expect(await res.json()).toMatchObject({ servingBuildId: v1, hosts: [host] });
    }
    await apps.delete(namespace, 'plain');
  });

  it('reports builds it cannot serve while the previous build keeps serving', { timeout: 180_000 }, async () => {
    const host = `shaky.${namespace}.${BASE_DOMAIN}`;
    const app = await apps.create({ metadata: { name: 'shaky', namespace }, spec: { displayName: 'Shaky' } });
    const good = await upload(namespace, app, worker('good'));
    await apps.patch(namespace, 'shaky', { spec: { activeBuildId: good } });
    await servedEverywhere(runtimes, host, 'Hello from good');
    await readyReason(namespace, 'shaky', 'Serving');

    // workerd refuses it: the condition carries workerd's message, and the good build keeps serving.
    const broken = await upload(namespace, app, artifactFromFiles({ 'worker.js': 'export default { fetch( {\n' }));
    await apps.patch(namespace, 'shaky', { spec: { activeBuildId: broken } });
    const failed = await readyReason(namespace, 'shaky', 'BuildFailed');
    expect(condition(failed, 'Deployed')).toMatchObject({ status: 'False', reason: 'BuildFailed' });
    expect(condition(failed, 'Deployed')?.message).toMatch(new RegExp(`^Build ${broken} cannot be served: .*SyntaxError.* The app keeps serving build ${good}\\.$`, 's'));
    expect(failed?.status?.servingBuildId).toBe(good);
    await servedEverywhere(runtimes, host, 'Hello from good');
    // A replica started since serves what the others serve, not nothing: the release recorded as served before
    // (status.served) is its fallback. The broken build is tried in the background there, with no request, and
    // reported; until then the replica reports it rolling out, never served.
    const started = await startRuntime('cw-runtime-f', namespace, running, { CW_WATCH_NAMESPACE: namespace });
    try {
      const report = async () => (await (await fetch(`${started.statusUrl}/apps/${namespace}/shaky`, STATUS_AUTH)).json()) as RuntimeAppReport;
      const found = await eventually('the late replica reporting the broken build', report, (r) => r.failure !== undefined || r.servingBuildId === broken);
      expect(found).toMatchObject({ servingBuildId: good, failure: { reason: 'BuildFailed', buildId: broken } });
      expect(found.servedGeneration).not.toBe(failed?.metadata?.generation);
      await servedEverywhere([started], host, 'Hello from good');
      expect((await apps.get(namespace, 'shaky'))?.status?.served?.buildId).toBe(good);
    } finally {
      await started.service.stop();
    }

    // A Build with no artifact in the bucket.
    const lost = await upload(namespace, app, worker('lost'), { artifact: false });
    await apps.patch(namespace, 'shaky', { spec: { activeBuildId: lost } });
    const missing = await readyReason(namespace, 'shaky', 'BuildNotFound');
    expect(condition(missing, 'Deployed')?.message).toBe(`The artifact of build ${lost} is not in the object store. The app keeps serving build ${good}.`);

    // No Build resource either; then both appear (out of order, as a GitOps sync may apply them), and it is served.
    const late = worker('late');
    const lateId = buildIdFor(createHash('sha256').update(late).digest('hex'));
    await apps.patch(namespace, 'shaky', { spec: { activeBuildId: lateId } });
    const unknown = await readyReason(namespace, 'shaky', 'BuildNotFound');
    expect(condition(unknown, 'Deployed')?.message).toBe(
      `Build ${lateId} does not exist: there is no Build ${buildResourceName('shaky', lateId)} in namespace ${namespace}. The app keeps serving build ${good}.`,
    );
    await upload(namespace, app, late);
    await servedEverywhere(runtimes, host, 'Hello from late');
    expect((await readyReason(namespace, 'shaky', 'Serving'))?.status?.servingBuildId).toBe(lateId);
  });

  it('a replica started later is ready having prepared nothing, and prepares an existing app on its first request', { timeout: 120_000 }, async () => {
    const app = await apps.create({ metadata: { name: 'early', namespace }, spec: { displayName: 'Early' } });
    const id = await upload(namespace, app, worker('early'));
    await apps.patch(namespace, 'early', { spec: { activeBuildId: id } });
    await servedEverywhere(runtimes, `early.${namespace}.${BASE_DOMAIN}`, 'Hello from early');

    // This namespace only: watching every namespace, it prepared at once any new build another test file deployed
    // after its first list (the policy for deploys), and its count of prepared apps said 1 or 2, not 0 and 1.
    const late = await startRuntime('cw-runtime-c', namespace, running, { CW_WATCH_NAMESPACE: namespace }); // returns once /readyz answers 200
    const gauge = async (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(await (await fetch(`${late.statusUrl}/metrics`)).text())?.[1]);
    // It takes traffic before it has gone through its first list; once through, nothing was prepared.
    await eventually(
      'the first list settled',
      () => gauge('cloudwright_runtime_first_list_pending'),
      (pending) => pending === 0,
    );
    // Served on demand (docs/runtime.md): routed, not fetched, until a request asks for it.
    const early = async () => (await readFile(late.service.logPath, 'utf8')).split('\n').filter((line) => line.includes('early'));
    expect(await gauge('cloudwright_runtime_apps_served'), (await early()).join('\n')).toBe(0);
    expect(await gauge('cloudwright_runtime_apps_deployed')).toBeGreaterThanOrEqual(1);
    const res = await send(late.port, `early.${namespace}.${BASE_DOMAIN}`);
    expect([res.status, res.body]).toEqual([200, 'Hello from early']);
    expect(await gauge('cloudwright_runtime_apps_served')).toBe(1);
    await late.service.stop();
  });

  it('a replica started after a refused first build checks it before reporting it served, reports it BuildFailed, and does not load it again', { timeout: 120_000 }, async () => {
    const app = await apps.create({ metadata: { name: 'fragile', namespace }, spec: { displayName: 'Fragile' } });
    const broken = await upload(namespace, app, artifactFromFiles({ 'worker.js': 'export default { fetch( {\n' }));
    await apps.patch(namespace, 'fragile', { spec: { activeBuildId: broken } });
    await readyReason(namespace, 'fragile', 'BuildFailed'); // the replicas up at the deploy prepared it at once

    const late = await startRuntime('cw-runtime-d', namespace, running);
    const report = async () => {
      const answer = await fetch(`${late.statusUrl}/apps/${namespace}/fragile`, STATUS_AUTH);
      return answer.status === 200 ? ((await answer.json()) as RuntimeAppReport) : undefined;
    };
    // Refused by the replicas up at the deploy (its Ready condition says so): the new replica tries it in the
    // background before it would report it served, with no request, and never reports it served.
    const reports: RuntimeAppReport[] = [];
    const failed = await eventually(
      'the late replica reporting the build failed, with no request',
      async () => {
        const r = await report();
        if (r) reports.push(r);
        return r;
      },
      (r) => r?.failure?.reason === 'BuildFailed',
    );
    expect(failed).toMatchObject({ failure: { buildId: broken, message: expect.stringMatching(/SyntaxError/) } });
    expect(reports.filter((r) => r.servingBuildId !== undefined || r.servedGeneration !== undefined)).toEqual([]);
    // Its requests are answered BuildFailed at once, without loading the build again.
    const host = `fragile.${namespace}.${BASE_DOMAIN}`;
    const reasonOf = async () => {
      const answer = await send(late.port, host);
      expect(answer.status).toBe(503);
      return JSON.parse(answer.body).reason as string;
    };
    expect(await reasonOf()).toBe('BuildFailed');
    expect(await reasonOf()).toBe('BuildFailed');
    await late.service.stop();
  });

  it('an app a replica had let go keeps serving its build there when a new one cannot be, and says so', { timeout: 120_000 }, async () => {
    // One app kept prepared: a request for another lets the first go.
    const small = await startRuntime('cw-runtime-e', namespace, running, { CW_WATCH_NAMESPACE: namespace, CW_RUNTIME_PREPARED_APPS: '1' });
    const idle = await apps.create({ metadata: { name: 'idle', namespace }, spec: { displayName: 'Idle' } });
    const busy = await apps.create({ metadata: { name: 'busy', namespace }, spec: { displayName: 'Busy' } });
    const good = await upload(namespace, idle, worker('good'));
    await apps.patch(namespace, 'idle', { spec: { activeBuildId: good } });
    await apps.patch(namespace, 'busy', { spec: { activeBuildId: await upload(namespace, busy, worker('busy')) } });
    const [idleHost, busyHost] = [`idle.${namespace}.${BASE_DOMAIN}`, `busy.${namespace}.${BASE_DOMAIN}`];
    await servedEverywhere([...runtimes, small], idleHost, 'Hello from good');
    await servedEverywhere([small], busyHost, 'Hello from busy');
    const report = async () => (await (await fetch(`${small.statusUrl}/apps/${namespace}/idle`, STATUS_AUTH)).json()) as RuntimeAppReport;
    await eventually(
      'idle let go on the small replica',
      () => fetch(`${small.statusUrl}/metrics`).then((r) => r.text()),
      (text) => /^cloudwright_runtime_apps_served 1$/m.test(text),
    );

    // Through its first list, the replica prepares a new build at deploy (before, only on its first request): the
    // failure is known, and said, at once.
    await eventually(
      'the small replica through its first list',
      () => objectClient<RuntimeReplica>(conn, RUNTIME_REPLICAS).get(namespace, 'cw-runtime-e'),
      (replica) => replica?.spec.ready === true,
    );
    const broken = await upload(namespace, idle, artifactFromFiles({ 'worker.js': 'export default { fetch( {\n' }));
    await apps.patch(namespace, 'idle', { spec: { activeBuildId: broken } });
    const failed = await readyReason(namespace, 'idle', 'BuildFailed');
    expect(condition(failed, 'Deployed')?.message).toMatch(new RegExp(`^Build ${broken} cannot be served: .*SyntaxError.* The app keeps serving build ${good}\\.$`, 's'));
    // The condition may come from the other replicas' reports first: the small one's pass (let busy go, try the
    // broken build, load the good one again) can still be under way on a loaded machine.
    expect(await eventually('the small replica reporting the failure', report, (r) => r.failure !== undefined)).toMatchObject({
      servingBuildId: good,
      failure: { reason: 'BuildFailed', buildId: broken },
    });
    for (const runtime of [...runtimes, small]) expect(await send(runtime.port, idleHost)).toMatchObject({ status: 200, body: 'Hello from good' });
    await small.service.stop();
  });
});
