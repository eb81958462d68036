// `make bench-runtime` (and the second half of `make bench`): the runtime as a GitOps user drives it, with
// custom resources and the bucket, no REST API. Starts a local control plane, MinIO and one cw-runtime, then:
//
//   1. deploy → first 200, with 100 other apps already served by the replica (`--apps`): 20 deploys of a
//      ~100 KB bundle to one app, each timed from the artifact upload (what the API's deploy route does: store
//      the artifact, create the Build, set spec.activeBuildId) until the entry point first answers 200 with
//      the new build;
//   2. rollback → served: spec.activeBuildId set back to earlier builds (no upload), until served;
//   3. requests/s of a hello worker through the entry point against the same worker alone in workerd
//      (on TCP), loaded alternately (`--rounds`, default 2, each), by autocannon in a process of its own;
//   4. a replica with 1,000 apps (`--scale-apps`): first requests (each loads an isolate) and warm ones,
//      memory per loaded app, and the start of a second replica until it is ready to serve them all.
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

const TARGETS = { deployP50Ms: 100, deployP95Ms: 250, rollbackP50Ms: 50, ratio: 0.9, p99ExtraMs: 1 };
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
    apps: { type: 'string', default: '100' },
    'scale-apps': { type: 'string', default: '1000' },
  },
});
const deploys = Number(flags.deploys);
const rollbacks = Number(flags.rollbacks);
const bundleBytes = Number(flags['bundle-kb']) * 1024;
const connections = Number(flags.connections);
const durationSeconds = Number(flags.duration);
const warmupSeconds = Number(flags.warmup);
const rounds = Number(flags.rounds);
const backgroundApps = Number(flags.apps);
const scaleApps = Number(flags['scale-apps']);

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

async function load(label: string, url: string, host: string, pids: Record<string, number>, clients = connections): Promise<Measured> {
  const spec: RuntimeLoadSpec = { url, host, connections: clients, warmupSeconds, durationSeconds };
  say(`loading ${label}: ${clients} connection${clients === 1 ? '' : 's'}, ${warmupSeconds} s warm-up + ${durationSeconds} s`);
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
  const loaderBefore = reapedChildrenCpuSeconds();
  const result = JSON.parse(await runToCompletion(node, [join(repoRoot, 'bench/runtime-load.ts'), JSON.stringify(spec)])) as RuntimeLoadResult;
  if (result.errors > 0 || result.non2xx > 0 || result.total === 0) throw new Error(`${label}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`);
  const requests = result.total + result.warmupTotal;
  const cpuMicros = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, ((cpuSeconds(pid) - (before[name] ?? 0)) * 1e6) / requests]));
  cpuMicros.loader = ((reapedChildrenCpuSeconds() - loaderBefore) * 1e6) / requests;
  return { ...result, cpuMicros };
}

interface Throughput {
  direct: Measured[];
  routed: Measured[];
  /** One request at a time: the latency the entry point adds, without the queueing of a saturated server. */
  oneByOne: { direct: Measured; routed: Measured };
}

async function measureThroughput(kit: Kit, port: number, runtimePid: number): Promise<Throughput> {
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
  // The generation serving runs its config from `run/g<n>/` (the checker of new builds from `run/check<n>/`).
  const servingWorkerd = childrenOf(runtimePid).filter((pid) => /\/run\/g\d+\/config\.capnp/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8')));
  if (servingWorkerd.length !== 1) throw new Error(`cw-runtime runs ${servingWorkerd.length} serving workerd processes, not 1`);
  // Alternated, so a change in what else the machine does shows in both.
  for (let round = 1; round <= rounds; round++) {
    direct.push(await load(`direct workerd (round ${round})`, `http://127.0.0.1:${directPort}/`, host, { workerd: workerd.pid }));
    routed.push(await load(`entry point (round ${round})`, `http://127.0.0.1:${port}/`, host, { router: runtimePid, workerd: servingWorkerd[0]! }));
  }
  const oneByOne = {
    direct: await load('direct workerd, one request at a time', `http://127.0.0.1:${directPort}/`, host, { workerd: workerd.pid }, 1),
    routed: await load('entry point, one request at a time', `http://127.0.0.1:${port}/`, host, { router: runtimePid, workerd: servingWorkerd[0]! }, 1),
  };
  return { direct, routed, oneByOne };
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

  const bucketEnv = { kubeconfig: cluster.kubeconfig, minio, bucketName };
  const runtime = await startRuntime('cw-runtime', bucketEnv);
  const port = runtime.port;

  const kube = loadKubeConnection(cluster.kubeconfig);
  const kit: Kit = {
    namespace: await createTestNamespace(kube, 'bench'),
    apps: objectClient<RuntimeApp>(kube, RUNTIME_APPS),
    builds: objectClient<Build>(kube, BUILDS),
    bucket: new S3ObjectStore({ config: minio.s3, bucket: bucketName }),
  };
  say(`ready in ${((Date.now() - t0) / 1000).toFixed(1)} s; logs in ${stateDir}`);

  say(`${backgroundApps} apps served beside the one deployed`);
  await createApps(kit, 0, backgroundApps);
  await servedApps(runtime.statusPort, backgroundApps);
  await firstRequests(kit, port, 0, backgroundApps);
  say(`${deploys} deploys of a ${flags['bundle-kb']} KB bundle`);
  const deployed = await measureDeploys(kit, port);
  say(`${rollbacks} rollbacks`);
  const rolledBack = await measureRollbacks(kit, port, deployed.builds);
  const throughput = await measureThroughput(kit, port, runtime.pid);
  const scale = scaleApps > backgroundApps ? await measureScale(kit, runtime, bucketEnv) : undefined;
  report(deployed, rolledBack, throughput, scale);
}

interface BucketEnv {
  kubeconfig: string;
  minio: Awaited<ReturnType<typeof startMinio>>;
  bucketName: string;
}

/** Starts a cw-runtime serving every namespace; resolves once it is ready. */
async function startRuntime(name: string, env: BucketEnv): Promise<{ port: number; statusPort: number; pid: number; readyMs: number; stop: () => Promise<void> }> {
  const [port, statusPort] = [await freePort(), await freePort()];
  const t0 = performance.now();
  const runtime = spawnToFile({
    name,
    command: node,
    args: [join(repoRoot, 'bin/cw-runtime.ts')],
    env: {
      ...process.env,
      KUBECONFIG: env.kubeconfig,
      CW_S3_ENDPOINT: env.minio.endpoint,
      CW_S3_BUCKET: env.bucketName,
      CW_S3_REGION: env.minio.s3.region,
      CW_S3_ACCESS_KEY_ID: env.minio.s3.credentials?.accessKeyId ?? '',
      CW_S3_SECRET_ACCESS_KEY: env.minio.s3.credentials?.secretAccessKey ?? '',
      CW_RUNTIME_HOST: '127.0.0.1',
      CW_RUNTIME_PORT: String(port),
      CW_RUNTIME_STATUS_HOST: '127.0.0.1',
      CW_RUNTIME_STATUS_PORT: String(statusPort),
      CW_RUNTIME_BASE_DOMAIN: BASE_DOMAIN,
      CW_LOG_LEVEL: 'warn',
    },
    logPath: join(stateDir, `${name}.log`),
  });
  const stop = () => runtime.stop();
  stops.push(stop);
  await waitForHttp(runtime, `http://127.0.0.1:${statusPort}/readyz`, 300_000);
  return { port, statusPort, pid: runtime.child.pid ?? 0, readyMs: performance.now() - t0, stop };
}

/** A small app of its own, about 100 bytes of JavaScript: it answers `app <i>`. */
function smallApp(i: number): Uint8Array {
  return artifactFromFiles({ 'worker.js': `export default { fetch() { return new Response('app ${i} ok'); } };\n` });
}

/** Creates apps `bg-<from>` … `bg-<to - 1>`, each with a build of its own, as many API deploys would. */
async function createApps(kit: Kit, from: number, to: number): Promise<void> {
  let next = from;
  const worker = async () => {
    while (next < to) {
      const i = next++;
      const name = `bg-${i}`;
      const owner = await kit.apps.create({ metadata: { name, namespace: kit.namespace }, spec: { displayName: name } });
      const id = await upload(kit, name, owner, smallApp(i));
      await kit.apps.patch(kit.namespace, name, { spec: { activeBuildId: id } });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

/** Waits until the replica's status server lists at least `count` served apps. */
async function servedApps(statusPort: number, count: number, timeoutMs = 600_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const res = await fetch(`http://127.0.0.1:${statusPort}/apps`).catch(() => undefined);
    const apps = res?.ok ? ((await res.json()) as { apps: unknown[] }).apps : [];
    if (apps.length >= count) return;
    await sleep(100);
  }
  throw new Error(`the replica did not serve ${count} apps within ${timeoutMs} ms`);
}

/** One request to each of apps `from` … `to - 1`, one after the other; answers each one's latency (ms). */
async function firstRequests(kit: Kit, port: number, from: number, to: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = from; i < to; i++) {
    const t0 = performance.now();
    const res = await get(port, `bg-${i}.${kit.namespace}.${BASE_DOMAIN}`);
    if (res.status !== 200 || res.body !== `app ${i} ok`) throw new Error(`bg-${i} answered ${res.status} ${res.body.slice(0, 200)}`);
    times.push(performance.now() - t0);
  }
  return times;
}

/** Resident memory (bytes) of `pid` and its children (cw-runtime and its workerd processes). */
function residentBytes(pid: number): number {
  const rss = (p: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  return [pid, ...childrenOf(pid)].reduce((sum, p) => sum + rss(p), 0);
}

interface Scale {
  apps: number;
  converge: number;
  cold: number[];
  warm: number[];
  bytesBefore: number;
  bytesAfter: number;
  loaded: number;
  second: { readyMs: number; allServedMs: number; bytes: number };
}

/** Grows the replica to `scaleApps` apps, requests each (loading its isolate), then starts a second replica. */
async function measureScale(kit: Kit, runtime: { port: number; statusPort: number; pid: number }, env: BucketEnv): Promise<Scale> {
  const total = scaleApps + 2; // the deploy and hello apps too
  say(`${scaleApps} apps on one replica`);
  const bytesBefore = residentBytes(runtime.pid);
  const t0 = performance.now();
  await createApps(kit, backgroundApps, scaleApps);
  await servedApps(runtime.statusPort, total);
  const converge = performance.now() - t0;
  const cold = await firstRequests(kit, runtime.port, backgroundApps, scaleApps);
  const warm = await firstRequests(kit, runtime.port, backgroundApps, scaleApps);
  const bytesAfter = residentBytes(runtime.pid);
  const metrics = await (await fetch(`http://127.0.0.1:${runtime.statusPort}/metrics`)).text();
  const loaded = Number(/cloudwright_runtime_isolates_loaded (\d+)/.exec(metrics)?.[1] ?? NaN);
  say('a second replica starting with them');
  const started = performance.now();
  const second = await startRuntime('cw-runtime-2', env);
  await servedApps(second.statusPort, total);
  const result = { readyMs: second.readyMs, allServedMs: performance.now() - started, bytes: residentBytes(second.pid) };
  await second.stop();
  return { apps: total, converge, cold, warm, bytesBefore, bytesAfter, loaded, second: result };
}

function report(deployed: { total: number[]; fromSpec: number[]; compressed: number }, rolledBack: number[], throughput: Throughput, scale: Scale | undefined): void {
  const ms = (v: number) => `${v.toFixed(0)} ms`;
  const mean = (rs: Measured[]) => rs.reduce((sum, r) => sum + r.requestsPerSecond, 0) / rs.length;
  const cpu = (rs: Measured[], name: string) => rs.reduce((sum, r) => sum + (r.cpuMicros[name] ?? 0), 0) / rs.length;
  const [direct, routed] = [mean(throughput.direct), mean(throughput.routed)];
  const ratio = routed / direct;
  const deployP50 = percentile(deployed.total, 50);
  const deployP95 = percentile(deployed.total, 95);
  const rollbackP50 = percentile(rolledBack, 50);
  const { oneByOne } = throughput;
  const p99Extra = oneByOne.routed.p99Ms - oneByOne.direct.p99Ms;
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
  const mark = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  const lines = [
    '',
    `Node ${process.version}, workerd ${readWorkerdVersion()}; bundle ${flags['bundle-kb']} KB of JavaScript (${(deployed.compressed / 1024).toFixed(0)} KB as .tar.zst)`,
    '',
    `${backgroundApps} other apps served by the replica during the deploys and rollbacks`,
    `deploy → first 200 (${deploys} deploys; from the artifact upload)   p50 ${ms(deployP50)}   p95 ${ms(deployP95)}   max ${ms(Math.max(...deployed.total))}`,
    `  of which from spec.activeBuildId written                          p50 ${ms(percentile(deployed.fromSpec, 50))}   p95 ${ms(percentile(deployed.fromSpec, 95))}`,
    `rollback → served (${rollbacks} rollbacks; from spec.activeBuildId written) p50 ${ms(rollbackP50)}   p95 ${ms(percentile(rolledBack, 95))}`,
    '',
    `requests/s of the hello worker: ${connections} connections, ${warmupSeconds} s warm-up + ${durationSeconds} s per run, one run after the other`,
    ...throughput.direct.map((r, i) => `  direct workerd (TCP)    round ${i + 1}: ${r.requestsPerSecond.toFixed(0).padStart(7)} req/s   p50 ${r.p50Ms} ms   p99 ${r.p99Ms} ms`),
    ...throughput.routed.map((r, i) => `  entry point (cw-runtime) round ${i + 1}: ${r.requestsPerSecond.toFixed(0).padStart(6)} req/s   p50 ${r.p50Ms} ms   p99 ${r.p99Ms} ms`),
    `  ratio entry point / direct: ${ratio.toFixed(2)} (${routed.toFixed(0)} / ${direct.toFixed(0)} req/s)`,
    // autocannon's percentiles have 1 ms resolution; one request at a time, the mean is exact (1 / rate).
    `  one request at a time: direct mean ${(1000 / oneByOne.direct.requestsPerSecond).toFixed(2)} ms, p99 ${oneByOne.direct.p99Ms} ms; ` +
      `entry point mean ${(1000 / oneByOne.routed.requestsPerSecond).toFixed(2)} ms, p99 ${oneByOne.routed.p99Ms} ms (+${(1000 / oneByOne.routed.requestsPerSecond - 1000 / oneByOne.direct.requestsPerSecond).toFixed(2)} ms per request)`,
    `  CPU per request: direct workerd ${cpu(throughput.direct, 'workerd').toFixed(0)} µs (load generator ${cpu(throughput.direct, 'loader').toFixed(0)} µs); ` +
      `through the entry point, router ${cpu(throughput.routed, 'router').toFixed(0)} µs + workerd ${cpu(throughput.routed, 'workerd').toFixed(0)} µs (load generator ${cpu(throughput.routed, 'loader').toFixed(0)} µs)`,
    `  (${cpus().length} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at the end: the load generator, the router and workerd share them)`,
    ...(scale
      ? [
          '',
          `${scale.apps} apps on one replica (${scaleApps - backgroundApps} added at once: served by the replica ${(scale.converge / 1000).toFixed(1)} s after the first was created)`,
          `  first request of an app (loads its isolate)   p50 ${ms(percentile(scale.cold, 50))}   p95 ${ms(percentile(scale.cold, 95))}`,
          `  later requests                                p50 ${ms(percentile(scale.warm, 50))}   p95 ${ms(percentile(scale.warm, 95))}`,
          `  memory (cw-runtime + workerd): ${mb(scale.bytesBefore)} with ${backgroundApps} loaded, ${mb(scale.bytesAfter)} with ${scale.loaded} isolates loaded: ${((scale.bytesAfter - scale.bytesBefore) / Math.max(scale.loaded - backgroundApps - 2, 1) / 1024 / 1024).toFixed(2)} MB per loaded app`,
          `  a second replica: ready in ${(scale.second.readyMs / 1000).toFixed(1)} s (process start to /readyz), serving all ${scale.apps} after ${(scale.second.allServedMs / 1000).toFixed(1)} s, ${mb(scale.second.bytes)} then (isolates load on first request)`,
        ]
      : []),
    '',
    'targets',
    `  ${mark(deployP50 < TARGETS.deployP50Ms)} deploy p50 < ${TARGETS.deployP50Ms} ms: ${ms(deployP50)} (${(deployP50 / TARGETS.deployP50Ms).toFixed(2)} of target)`,
    `  ${mark(deployP95 < TARGETS.deployP95Ms)} deploy p95 < ${TARGETS.deployP95Ms} ms: ${ms(deployP95)} (${(deployP95 / TARGETS.deployP95Ms).toFixed(2)} of target)`,
    `  ${mark(rollbackP50 < TARGETS.rollbackP50Ms)} rollback p50 < ${TARGETS.rollbackP50Ms} ms: ${ms(rollbackP50)} (${(rollbackP50 / TARGETS.rollbackP50Ms).toFixed(2)} of target)`,
    `  ${mark(ratio >= TARGETS.ratio)} throughput ratio ≥ ${TARGETS.ratio}: ${ratio.toFixed(2)}`,
    `  ${mark(p99Extra <= TARGETS.p99ExtraMs)} p99 within ${TARGETS.p99ExtraMs} ms of direct (one request at a time): ${p99Extra >= 0 ? '+' : ''}${p99Extra.toFixed(1)} ms`,
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
