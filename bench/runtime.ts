// `make bench-runtime` (and the second half of `make bench`): the runtime as a GitOps user drives it, with
// custom resources and the bucket, no REST API. Starts a local control plane, MinIO and one cw-runtime, then:
//
//   1. deploy → first 200: 20 deploys of a ~100 KB bundle to one app, each timed from the artifact upload
//      (what the API's deploy route does: store the artifact, create the Build, set spec.activeBuildId)
//      until the entry point first answers 200 with the new build;
//   2. rollback → served: spec.activeBuildId set back to earlier builds (no upload), until served;
//   3. requests/s of a hello worker through the entry point against the same worker alone in workerd
//      (on TCP), loaded alternately (`--rounds`, default 2, each), by autocannon in a process of its own.
//
// Prints PASS/MISS against the targets; exits non-zero only when the run itself failed. See
// docs/runtime.md ("Measurements").
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { benchRun, runBench } from './run.ts';
import { Agent, request } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startControlPlane } from '../e2e/harness/control-plane.ts';
import { installCrds } from '../e2e/harness/install-crds.ts';
import { createRunBucket, startMinio } from '../e2e/harness/minio.ts';
import { createTestNamespace } from '../e2e/harness/namespace.ts';
import { freePort, waitForHttp } from '../e2e/harness/process.ts';
import { repoRoot, toolPath } from '../e2e/harness/tools.ts';
import type { Build } from '../src/apis/v1alpha1/build.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { loadKubeConnection, objectClient, type ObjectClient } from '../src/kube/index.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { artifactKey, buildIdFor, buildResourceName } from '../src/platform/artifact-keys.ts';
import { BUILDS, RUNTIME_APPS } from '../src/platform/resources.ts';
import { artifactFromFiles } from '../src/workerd/testing/artifact-builder.ts';
import { runToCompletion, spawnToFile } from './child.ts';
import type { RuntimeLoadResult, RuntimeLoadSpec } from './runtime-load.ts';
import { workerdOnTcp } from './runtime-workerd.ts';

const TARGETS = { deployP50Ms: 1000, deployP95Ms: 2000, rollbackP50Ms: 500, ratio: 0.7 };
const BASE_DOMAIN = 'apps.localhost';

const { values: flags } = parseArgs({
  options: {
    deploys: { type: 'string', default: '20' },
    rollbacks: { type: 'string', default: '10' },
    'bundle-kb': { type: 'string', default: '100' },
    connections: { type: 'string', default: '64' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '2' },
  },
});
const deploys = Number(flags.deploys);
const rollbacks = Number(flags.rollbacks);
const bundleBytes = Number(flags['bundle-kb']) * 1024;
const connections = Number(flags.connections);
const durationSeconds = Number(flags.duration);
const warmupSeconds = Number(flags.warmup);
const rounds = Number(flags.rounds);

const run = benchRun();
const { stateDir, stops } = run;
const node = toolPath('node');
const helloSource = readFileSync(join(repoRoot, 'docs/examples/hello-worker/worker.js'), 'utf8');

function say(message: string): void {
  process.stdout.write(`bench: ${message}\n`);
}

/** A worker of about `bundleBytes` of JavaScript that answers `<version> <n>`; the bulk is code and string data, like a bundled app. */
function bundle(version: string): Uint8Array {
  const chunks: string[] = [];
  let size = 0;
  for (let i = 0; size < bundleBytes; i++) {
    const chunk = `function f${i}(a) { return a + ${i} + ${JSON.stringify(randomBytes(24).toString('base64'))}.length; }\n`;
    chunks.push(chunk);
    size += chunk.length;
  }
  chunks.push(`export default { fetch() { return new Response(${JSON.stringify(version)} + ' ' + f${chunks.length - 1}(0)); } };\n`);
  return artifactFromFiles({ 'worker.js': chunks.join('') });
}

/** GET through the entry point with `Host`, on one kept-alive connection. */
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
function get(port: number, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', headers: { host }, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Polls until the entry point answers 200 starting with `prefix`; resolves with the time of that answer. */
async function firstServed(port: number, host: string, prefix: string, timeoutMs = 60_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const res = await get(port, host).catch(() => undefined);
    if (res?.status === 200 && res.body.startsWith(prefix)) return performance.now();
    await sleep(2);
  }
  throw new Error(`${host} did not serve ${prefix} within ${timeoutMs} ms`);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

interface Kit {
  namespace: string;
  apps: ObjectClient<RuntimeApp>;
  builds: ObjectClient<Build>;
  bucket: S3ObjectStore;
}

/** Stores the artifact and records its Build, as the API's deploy route does; answers the build id. */
async function upload(kit: Kit, app: string, owner: RuntimeApp, artifact: Uint8Array): Promise<string> {
  const digest = createHash('sha256').update(artifact).digest('hex');
  const buildId = buildIdFor(digest);
  const key = artifactKey(kit.namespace, app, buildId);
  await kit.bucket.put(key, artifact);
  await kit.builds.create({
    metadata: {
      name: buildResourceName(app, buildId),
      namespace: kit.namespace,
      ownerReferences: [{ apiVersion: 'cloudwright.dev/v1alpha1', kind: 'RuntimeApp', name: app, uid: owner.metadata?.uid ?? '', controller: true }],
    },
    spec: { app, buildId, digest, size: artifact.length, objectKey: key },
  });
  return buildId;
}

async function measureDeploys(kit: Kit, port: number): Promise<{ total: number[]; fromSpec: number[]; builds: { id: string; version: string }[]; compressed: number }> {
  const app = 'deploy';
  const host = `${app}.${kit.namespace}.${BASE_DOMAIN}`;
  const owner = await kit.apps.create({ metadata: { name: app, namespace: kit.namespace }, spec: { displayName: 'Deploy bench' } });
  const total: number[] = [];
  const fromSpec: number[] = [];
  const builds: { id: string; version: string }[] = [];
  let compressed = 0;
  for (let i = 1; i <= deploys; i++) {
    const version = `v${i}`;
    const artifact = bundle(version);
    compressed = artifact.length;
    const t0 = performance.now();
    const id = await upload(kit, app, owner, artifact);
    const t1 = performance.now();
    await kit.apps.patch(kit.namespace, app, { spec: { activeBuildId: id } });
    const served = await firstServed(port, host, `${version} `);
    total.push(served - t0);
    fromSpec.push(served - t1);
    builds.push({ id, version });
  }
  return { total, fromSpec, builds, compressed };
}

async function measureRollbacks(kit: Kit, port: number, builds: { id: string; version: string }[]): Promise<number[]> {
  const host = `deploy.${kit.namespace}.${BASE_DOMAIN}`;
  const times: number[] = [];
  for (let i = 0; i < rollbacks; i++) {
    // Back to an earlier build each time (never the one served), whose files the runtime has already removed.
    const target = builds[(builds.length - 2 - i + builds.length * 4) % builds.length]!;
    const t0 = performance.now();
    await kit.apps.patch(kit.namespace, 'deploy', { spec: { activeBuildId: target.id } });
    times.push((await firstServed(port, host, `${target.version} `)) - t0);
  }
  return times;
}

/** CPU seconds (user + system) `pid` has used so far, from /proc (Linux). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}
const CLOCK_TICKS = 100; // USER_HZ on Linux

/** CPU seconds of this process's children that have exited and been reaped (the load runs). */
function reapedChildrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS;
}

/** The children of `pid` (workerd, for cw-runtime). */
function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
}

interface Measured extends RuntimeLoadResult {
  /** CPU microseconds per request of each process serving it, over the whole load run (warm-up included). */
  cpuMicros: Record<string, number>;
}

async function load(label: string, url: string, host: string, pids: Record<string, number>): Promise<Measured> {
  const spec: RuntimeLoadSpec = { url, host, connections, warmupSeconds, durationSeconds };
  say(`loading ${label}: ${connections} connections, ${warmupSeconds} s warm-up + ${durationSeconds} s`);
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
  const loaderBefore = reapedChildrenCpuSeconds();
  const result = JSON.parse(await runToCompletion(node, [join(repoRoot, 'bench/runtime-load.ts'), JSON.stringify(spec)])) as RuntimeLoadResult;
  if (result.errors > 0 || result.non2xx > 0 || result.total === 0) throw new Error(`${label}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`);
  const requests = result.total + result.warmupTotal;
  const cpuMicros = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, ((cpuSeconds(pid) - (before[name] ?? 0)) * 1e6) / requests]));
  cpuMicros.loader = ((reapedChildrenCpuSeconds() - loaderBefore) * 1e6) / requests;
  return { ...result, cpuMicros };
}

async function measureThroughput(kit: Kit, port: number, runtimePid: number): Promise<{ direct: Measured[]; routed: Measured[] }> {
  const app = 'hello';
  const host = `${app}.${kit.namespace}.${BASE_DOMAIN}`;
  const owner = await kit.apps.create({ metadata: { name: app, namespace: kit.namespace }, spec: { displayName: 'Hello', environment: { GREETING: 'Hello' } } });
  const id = await upload(kit, app, owner, artifactFromFiles({ 'worker.js': helloSource }));
  await kit.apps.patch(kit.namespace, app, { spec: { activeBuildId: id } });
  await firstServed(port, host, 'Hello, world!');

  const directPort = await freePort();
  const workerd = await workerdOnTcp(join(stateDir, 'direct'), directPort, helloSource, { GREETING: 'Hello' });
  stops.push(() => workerd.stop());
  const direct: Measured[] = [];
  const routed: Measured[] = [];
  const servingWorkerd = childrenOf(runtimePid);
  if (servingWorkerd.length !== 1) throw new Error(`cw-runtime runs ${servingWorkerd.length} workerd processes, not 1`);
  // Alternated, so a change in what else the machine does shows in both.
  for (let round = 1; round <= rounds; round++) {
    direct.push(await load(`direct workerd (round ${round})`, `http://127.0.0.1:${directPort}/`, host, { workerd: workerd.pid }));
    routed.push(await load(`entry point (round ${round})`, `http://127.0.0.1:${port}/`, host, { router: runtimePid, workerd: servingWorkerd[0]! }));
  }
  return { direct, routed };
}

async function main(): Promise<void> {
  const t0 = Date.now();
  const [cluster, minio] = await Promise.all([startControlPlane({ stateDir, throwaway: true }), startMinio(stateDir)]);
  stops.push(
    () => cluster.stop(),
    () => minio.service.stop(),
  );
  await installCrds(cluster.kubeconfig);
  const bucketName = await createRunBucket(minio, 'cw-bench');

  const [port, statusPort] = [await freePort(), await freePort()];
  const runtime = spawnToFile({
    name: 'cw-runtime',
    command: node,
    args: [join(repoRoot, 'bin/cw-runtime.ts')],
    env: {
      ...process.env,
      KUBECONFIG: cluster.kubeconfig,
      CW_S3_ENDPOINT: minio.endpoint,
      CW_S3_BUCKET: bucketName,
      CW_S3_REGION: minio.s3.region,
      CW_S3_ACCESS_KEY_ID: minio.s3.credentials?.accessKeyId ?? '',
      CW_S3_SECRET_ACCESS_KEY: minio.s3.credentials?.secretAccessKey ?? '',
      CW_RUNTIME_HOST: '127.0.0.1',
      CW_RUNTIME_PORT: String(port),
      CW_RUNTIME_STATUS_HOST: '127.0.0.1',
      CW_RUNTIME_STATUS_PORT: String(statusPort),
      CW_RUNTIME_BASE_DOMAIN: BASE_DOMAIN,
      CW_LOG_LEVEL: 'warn',
    },
    logPath: join(stateDir, 'cw-runtime.log'),
  });
  stops.push(() => runtime.stop());
  await waitForHttp(runtime, `http://127.0.0.1:${statusPort}/readyz`, 60_000);

  const kube = loadKubeConnection(cluster.kubeconfig);
  const kit: Kit = {
    namespace: await createTestNamespace(kube, 'bench'),
    apps: objectClient<RuntimeApp>(kube, RUNTIME_APPS),
    builds: objectClient<Build>(kube, BUILDS),
    bucket: new S3ObjectStore({ config: minio.s3, bucket: bucketName }),
  };
  say(`ready in ${((Date.now() - t0) / 1000).toFixed(1)} s; logs in ${stateDir}`);

  say(`${deploys} deploys of a ${flags['bundle-kb']} KB bundle`);
  const deployed = await measureDeploys(kit, port);
  say(`${rollbacks} rollbacks`);
  const rolledBack = await measureRollbacks(kit, port, deployed.builds);
  const throughput = await measureThroughput(kit, port, runtime.child.pid ?? 0);
  report(deployed, rolledBack, throughput);
}

function report(deployed: { total: number[]; fromSpec: number[]; compressed: number }, rolledBack: number[], throughput: { direct: Measured[]; routed: Measured[] }): void {
  const ms = (v: number) => `${v.toFixed(0)} ms`;
  const mean = (rs: Measured[]) => rs.reduce((sum, r) => sum + r.requestsPerSecond, 0) / rs.length;
  const cpu = (rs: Measured[], name: string) => rs.reduce((sum, r) => sum + (r.cpuMicros[name] ?? 0), 0) / rs.length;
  const [direct, routed] = [mean(throughput.direct), mean(throughput.routed)];
  const ratio = routed / direct;
  const deployP50 = percentile(deployed.total, 50);
  const deployP95 = percentile(deployed.total, 95);
  const rollbackP50 = percentile(rolledBack, 50);
  const mark = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  const lines = [
    '',
    `Node ${process.version}, workerd ${readWorkerdVersion()}; bundle ${flags['bundle-kb']} KB of JavaScript (${(deployed.compressed / 1024).toFixed(0)} KB as .tar.zst)`,
    '',
    `deploy → first 200 (${deploys} deploys; from the artifact upload)   p50 ${ms(deployP50)}   p95 ${ms(deployP95)}   max ${ms(Math.max(...deployed.total))}`,
    `  of which from spec.activeBuildId written                          p50 ${ms(percentile(deployed.fromSpec, 50))}   p95 ${ms(percentile(deployed.fromSpec, 95))}`,
    `rollback → served (${rollbacks} rollbacks; from spec.activeBuildId written) p50 ${ms(rollbackP50)}   p95 ${ms(percentile(rolledBack, 95))}`,
    '',
    `requests/s of the hello worker: ${connections} connections, ${warmupSeconds} s warm-up + ${durationSeconds} s per run, one run after the other`,
    ...throughput.direct.map((r, i) => `  direct workerd (TCP)    round ${i + 1}: ${r.requestsPerSecond.toFixed(0).padStart(7)} req/s   p50 ${r.p50Ms} ms   p99 ${r.p99Ms} ms`),
    ...throughput.routed.map((r, i) => `  entry point (cw-runtime) round ${i + 1}: ${r.requestsPerSecond.toFixed(0).padStart(6)} req/s   p50 ${r.p50Ms} ms   p99 ${r.p99Ms} ms`),
    `  ratio entry point / direct: ${ratio.toFixed(2)} (${routed.toFixed(0)} / ${direct.toFixed(0)} req/s)`,
    `  CPU per request: direct workerd ${cpu(throughput.direct, 'workerd').toFixed(0)} µs (load generator ${cpu(throughput.direct, 'loader').toFixed(0)} µs); ` +
      `through the entry point, router ${cpu(throughput.routed, 'router').toFixed(0)} µs + workerd ${cpu(throughput.routed, 'workerd').toFixed(0)} µs (load generator ${cpu(throughput.routed, 'loader').toFixed(0)} µs)`,
    `  (${cpus().length} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at the end: the load generator, the router and workerd share them)`,
    '',
    'targets',
    `  ${mark(deployP50 < TARGETS.deployP50Ms)} deploy p50 < ${TARGETS.deployP50Ms} ms: ${ms(deployP50)} (${(deployP50 / TARGETS.deployP50Ms).toFixed(2)} of target)`,
    `  ${mark(deployP95 < TARGETS.deployP95Ms)} deploy p95 < ${TARGETS.deployP95Ms} ms: ${ms(deployP95)} (${(deployP95 / TARGETS.deployP95Ms).toFixed(2)} of target)`,
    `  ${mark(rollbackP50 < TARGETS.rollbackP50Ms)} rollback p50 < ${TARGETS.rollbackP50Ms} ms: ${ms(rollbackP50)} (${(rollbackP50 / TARGETS.rollbackP50Ms).toFixed(2)} of target)`,
    `  ${mark(ratio >= TARGETS.ratio)} throughput ratio ≥ ${TARGETS.ratio}: ${ratio.toFixed(2)}`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

function readWorkerdVersion(): string {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'node_modules/@cloudflare/workerd-linux-64/package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

stops.unshift(async () => agent.destroy());
await runBench(run, main);
