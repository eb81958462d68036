// The runtime's side of a rollout on the real stack: two cw-runtime replicas read a RuntimeApp whose
// status.rollout this test writes as the operator would, split its traffic the same way, and report their
// per-release counts in their RuntimeReplicaReports. (The operator's stepping and analysis are tested with it.)
import { reportOf } from './harness/replica-report.ts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Build } from '../src/apis/v1alpha1/build.ts';
import type { RolloutStatus } from '../src/apis/v1alpha1/rollout.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { replicaReportName, type RuntimeReplicaReport } from '../src/apis/v1alpha1/runtime-replica-report.ts';
import { loadKubeConnection, objectClient } from '../src/kube/index.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { BUILDS, RUNTIME_APPS, RUNTIME_REPLICA_REPORTS } from '../src/platform/resources.ts';
import { keyOnCanary, releaseOf } from '../src/runtime-contract/releases.ts';
import { artifactFromFiles } from '../runtime-server/engine/testing/artifact-builder.ts';
import { send } from '../runtime-server/engine/testing/http.ts';
import { storeBuild } from './harness/gitops-build.ts';
import { createTestNamespace } from './harness/namespace.ts';
import type { Service } from './harness/process.ts';
import { BASE_DOMAIN, eventually, servedEverywhere, startRuntime, type Runtime } from './harness/runtime-stack.ts';

const conn = loadKubeConnection(inject('kubeconfig'));
const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
const builds = objectClient<Build>(conn, BUILDS);
const reports = objectClient<RuntimeReplicaReport>(conn, RUNTIME_REPLICA_REPORTS);
const bucket = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
const running: Service[] = [];
afterAll(async () => Promise.all(running.map((s) => s.stop(5_000))));

const worker = (version: string) =>
  artifactFromFiles({
    'worker.js': `export default { fetch(request, env) { return new Response(\`\${env.GREETING} from ${version}\`, { status: new URL(request.url).pathname === '/fail' ? 500 : 200 }); } };\n`,
  });

const upload = (namespace: string, app: RuntimeApp, artifact: Uint8Array) => storeBuild({ bucket, builds }, namespace, app, artifact);

let runtimes: Runtime[] = [];
let namespace = '';

beforeAll(async () => {
  namespace = await createTestNamespace(conn, 'rollout');
  runtimes = await Promise.all([startRuntime('cw-runtime-ra', namespace, running), startRuntime('cw-runtime-rb', namespace, running)]);
}, 120_000);

/** The app's report in a replica's RuntimeReplicaReport for the app's project. */
async function reported(runtime: Runtime) {
  const report = await reports.get(namespace, replicaReportName(runtime.name, namespace));
  return reportOf(report, await apps.get(namespace, 'shop'));
}

describe('a rollout in the runtime replicas', () => {
  it('splits by the recorded weight on every replica alike, follows status changes without a new generation, and reports per-release counts', { timeout: 180_000 }, async () => {
    const host = `shop.${namespace}.${BASE_DOMAIN}`;
    let app = await apps.create({ metadata: { name: 'shop', namespace }, spec: { displayName: 'Shop', environment: { GREETING: 'Hi' } } });
    const v1 = await upload(namespace, app, worker('v1'));
    const v2 = await upload(namespace, app, worker('v2'));
    app = await apps.patch(namespace, 'shop', { spec: { activeBuildId: v1 } });
    const stable = releaseOf(app.spec)!;
    await servedEverywhere(runtimes, host, 'Hi from v1');

    // A deploy with a rollout policy; the operator's part, written here: v1 stable, v2 at 30 %.
    app = await apps.patch(namespace, 'shop', { spec: { activeBuildId: v2, rollout: { steps: [{ weight: 30 }, { weight: 60 }], affinity: { header: 'X-User' } } } });
    const generation = app.metadata?.generation;
    const rollout = (weight: number, phase: RolloutStatus['phase'] = 'Progressing'): RolloutStatus => ({ phase, stable, canary: releaseOf(app.spec)!, step: weight === 30 ? 0 : 1, weight });
    await apps.patchStatus(namespace, 'shop', { status: { rollout: rollout(30) } });
    for (const runtime of runtimes)
      await eventually(
        `${runtime.name} reports the split`,
        () => reported(runtime),
        (r) => r?.rollout?.weight === 30 && r.servingBuildId === v2,
      );

    const keys = Array.from({ length: 200 }, (_, i) => `user-${i}`);
    const versions = async (runtime: Runtime) => Promise.all(keys.map(async (key) => (await send(runtime.port, host, '/', { headers: { 'x-user': key } })).body));
    const [onA, onB] = await Promise.all(runtimes.map(versions));
    expect(onA).toEqual(onB); // every replica puts a key where the others do
    expect(keys.filter((key, i) => onA![i] !== (keyOnCanary(key, 30) ? 'Hi from v2' : 'Hi from v1'))).toEqual([]);

    // Every request the split assigned reaches the replica's report within seconds (a 500 is an error); those
    // forced to a release by the header are served but not counted (anyone may send it).
    const [a] = runtimes;
    const keyedOnCanary = onA!.filter((body) => body === 'Hi from v2').length;
    for (const path of ['/', '/', '/fail']) await send(a!.port, host, path, { headers: { 'cw-rollout-build': 'canary' } });
    await send(a!.port, host, '/fail', { headers: { 'cw-rollout-build': 'stable' } });
    await send(a!.port, host, '/fail', { headers: { 'x-user': keys.find((key) => keyOnCanary(key, 30))! } });
    const sentAt = Date.now();
    const after = await eventually(
      'the counts in the RuntimeReplicaReports',
      () => reported(a!),
      (r) => r?.rollout?.canary.requests === keyedOnCanary + 1 && r.rollout.stable.requests === keys.length - keyedOnCanary,
      6_000,
    );
    console.log(`per-release counts reached the RuntimeReplicaReports ${Date.now() - sentAt} ms after the requests`);
    expect(after?.rollout).toMatchObject({ canary: { errors: 1 }, stable: { errors: 0 } });
    expect(after?.rollout?.release).toBe(releaseOf(app.spec)!.release);

    // A step: status only, the same generation; keys on v2 stay there.
    await apps.patchStatus(namespace, 'shop', { status: { rollout: rollout(60) } });
    for (const runtime of runtimes)
      await eventually(
        `${runtime.name} at 60 %`,
        () => reported(runtime),
        (r) => r?.rollout?.weight === 60,
      );
    expect((await apps.get(namespace, 'shop'))?.metadata?.generation).toBe(generation);
    const at60 = await versions(runtimes[1]!);
    expect(keys.filter((_, i) => onA![i] === 'Hi from v2' && at60[i] !== 'Hi from v2')).toEqual([]);

    // The Prometheus metrics carry the build of the app's answers during the rollout, forced ones too.
    const metrics = await (await fetch(`${a!.statusUrl}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`cloudwright_runtime_requests_total\\{project="${namespace}",app="shop",build="${v2}",class="5xx"\\} 2`));

    // Aborted: the stable release alone, everywhere, and no rollout in the reports.
    await apps.patchStatus(namespace, 'shop', { status: { rollout: rollout(60, 'Aborted') } });
    for (const runtime of runtimes)
      await eventually(
        `${runtime.name} back on v1`,
        () => reported(runtime),
        (r) => r?.servingBuildId === v1 && r.rollout === undefined,
      );
    expect(new Set(await versions(runtimes[0]!))).toEqual(new Set(['Hi from v1']));
  });
});
