// `make bench-runtime` (and the second half of `make bench`): the runtime as a GitOps user drives it, with
// custom resources and the bucket, no REST API. Starts a local control plane, MinIO and one cw-runtime, then:
//
//   1. deploy → first 200, with 100 other apps already served by the replica (`--apps`): 20 deploys of a
//      ~100 KB bundle to one app, each timed from the artifact upload (what the API's deploy route does: store
//      the artifact, create the Build, set spec.activeBuildId) until the entry point first answers 200 with
//      the new build;
//   2. rollback → served: spec.activeBuildId set back to earlier builds (no upload), until served;
//   3. requests/s through the entry point in front of the replica's workerd shards (one per core), against as
//      many workerd processes serving the worker alone (on TCP), on the same cores, loaded alternately
//      (`--rounds`, default 2, each) by autocannon processes of their own: the hello worker, and a page render of
//      about 1 ms of CPU (`--render-micros`: its rows sized on the machine, or `--render-rows`), and the same
//      render at 400 rows (earlier figures' size); CPU per request of each process from /proc; then one request at a
//      time, direct and through the entry point (bench/runtime-throughput.ts);
//   3b. the per-request cost of a rollout's split: the hello worker in a rollout at weight 50 against the same
//      worker without one, on one shard, alternately (`--rollout-duration` s each, `--rollout-rounds`; or
//      `--rollout-only` for this section alone; bench/runtime-rollout.ts);
//   4. a replica with 1,000 apps (`--scale-apps`): first requests (each loads an isolate) and warm ones,
//      memory per loaded app, and the start of a second replica until it is ready to serve them all;
//   0. first, on a replica of its own with its HTTPS listener (bench/runtime-tls.ts; `--skip-tls`, or
//      `--tls-only` for this section alone): handshakes against Node's own tls server, kept-alive HTTPS against
//      HTTP, memory with 1,000 certificates cached and the cache bound, issuance against Pebble.
//
// Prints PASS/MISS against the targets; exits non-zero only when the run itself failed. See
// docs/runtime.md ("Measurements").
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { benchRun, runBench } from './run.ts';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startControlPlane } from '../e2e/harness/control-plane.ts';
import { installCrds } from '../e2e/harness/install-crds.ts';
import { createRunBucket, startMinio } from '../e2e/harness/minio.ts';
import { createTestNamespace } from '../e2e/harness/namespace.ts';
import { freePort, waitForHttp } from '../e2e/harness/process.ts';
import { RUNTIME_STATUS_TOKEN, STATUS_AUTH } from '../e2e/harness/runtime-status-token.ts';
import { repoRoot, toolPath } from '../e2e/harness/tools.ts';
import type { Build } from '../src/apis/v1alpha1/build.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { loadKubeConnection, objectClient, type KubeConnection } from '../src/kube/index.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { BUILDS, RUNTIME_APPS } from '../src/platform/resources.ts';
import { RUNTIME_NODE_FLAGS } from '../runtime-server/node-flags.ts';
import { artifactFromFiles } from '../runtime-server/engine/testing/artifact-builder.ts';
import { spawnToFile } from './child.ts';
import { agent, childrenOf, firstServed, get, percentile, upload, type Kit } from './runtime-kit.ts';
import { measureTls } from './runtime-tls.ts';
import { tlsReport } from './runtime-tls-report.ts';
import { measureThroughput, RENDER_SOURCE, type Measured, type Throughput } from './runtime-throughput.ts';
import { measureRolloutCost, rolloutReport } from './runtime-rollout.ts';
import { renderRowsFor } from './runtime-render-size.ts';

/** The ratios compare the entry point with direct workerd on the same cores; added latency is one request at a time. */
const TARGETS = { deployP50Ms: 100, deployP95Ms: 250, rollbackP50Ms: 50, helloRatio: 0.9, renderRatio: 0.85, addedP50Ms: 0.3 };
const BASE_DOMAIN = 'apps.localhost';
/** Pebble orders only names under a public suffix it accepts: `.test`, not `.localhost`. */
const TLS_BASE_DOMAIN = 'apps.bench.test';

const { values: flags } = parseArgs({
  options: {
    deploys: { type: 'string', default: '20' },
    rollbacks: { type: 'string', default: '10' },
    'bundle-kb': { type: 'string', default: '100' },
    connections: { type: 'string', default: '64' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '2' },
    // Empty: sized on the machine to `--render-micros` of workerd CPU per request (bench/runtime-render-size.ts).
    'render-rows': { type: 'string', default: '' },
    'render-micros': { type: 'string', default: '1000' },
    'serial-requests': { type: 'string', default: '3000' },
    shards: { type: 'string', default: '' },
    apps: { type: 'string', default: '100' },
    'scale-apps': { type: 'string', default: '1000' },
    'skip-tls': { type: 'boolean', default: false },
    'tls-only': { type: 'boolean', default: false },
    'rollout-only': { type: 'boolean', default: false },
    'rollout-duration': { type: 'string', default: '3' },
    'rollout-warmup': { type: 'string', default: '1' },
    'rollout-rounds': { type: 'string', default: '2' },
    'tls-certificates': { type: 'string', default: '1000' },
    'tls-extra': { type: 'string', default: '500' },
    'tls-connections': { type: 'string', default: '16' },
    'tls-duration': { type: 'string', default: '3' },
    'tls-warmup': { type: 'string', default: '1' },
    'tls-rounds': { type: 'string', default: '3' },
    'tls-issuances': { type: 'string', default: '5' },
    'tls-churn-passes': { type: 'string', default: '3' },
  },
});
const deploys = Number(flags.deploys);
const rollbacks = Number(flags.rollbacks);
const bundleBytes = Number(flags['bundle-kb']) * 1024;
const connections = Number(flags.connections);
const durationSeconds = Number(flags.duration);
const warmupSeconds = Number(flags.warmup);
const rounds = Number(flags.rounds);
const renderMicros = Number(flags['render-micros']);
/** The page render of earlier figures (docs/runtime.md), measured beside the sized one so they stay comparable. */
const FIXED_RENDER_ROWS = 400;
const serialRequests = Number(flags['serial-requests']);
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
  const kube = loadKubeConnection(cluster.kubeconfig);
  const bucket = new S3ObjectStore({ config: minio.s3, bucket: bucketName });
  if (!flags['skip-tls'] && !flags['rollout-only']) {
    await runTls(bucketEnv, kube, bucket);
    if (flags['tls-only']) return;
  }
  const runtime = await startRuntime('cw-runtime', bucketEnv);
  const port = runtime.port;

  const kit: Kit = {
    namespace: await createTestNamespace(kube, 'bench'),
    apps: objectClient<RuntimeApp>(kube, RUNTIME_APPS),
    builds: objectClient<Build>(kube, BUILDS),
    bucket,
  };
  say(`ready in ${((Date.now() - t0) / 1000).toFixed(1)} s; logs in ${stateDir}`);
  if (flags['rollout-only']) {
    await runRollout(kit, runtime);
    return;
  }

  say(`${backgroundApps} apps served beside the one deployed`);
  await createApps(kit, 0, backgroundApps);
  await servedApps(runtime.statusPort, backgroundApps);
  await firstRequests(kit, port, 0, backgroundApps);
  say(`${deploys} deploys of a ${flags['bundle-kb']} KB bundle`);
  const deployed = await measureDeploys(kit, port);
  say(`${rollbacks} rollbacks`);
  const rolledBack = await measureRollbacks(kit, port, deployed.builds);
  const sized = flags['render-rows'] ? { rows: Number(flags['render-rows']), micros: NaN } : await renderRowsFor({ stateDir, node, say }, renderMicros);
  say(`page render: ${sized.rows} rows${Number.isNaN(sized.micros) ? '' : ` (about ${sized.micros.toFixed(0)} µs of workerd CPU a request, sized to ${renderMicros})`}`);
  const throughput = await measureThroughput({
    kit,
    kube,
    port,
    runtimePid: runtime.pid,
    stateDir,
    stops,
    node,
    baseDomain: BASE_DOMAIN,
    connections,
    warmupSeconds,
    durationSeconds,
    rounds,
    serialCount: serialRequests,
    workers: [
      { name: 'hello', source: helloSource, env: { GREETING: 'Hello' }, prefix: 'Hello, world!' },
      { name: 'render', source: RENDER_SOURCE, env: { ROWS: String(sized.rows) }, prefix: '<!doctype html>' },
      { name: `render-${FIXED_RENDER_ROWS}`, source: RENDER_SOURCE, env: { ROWS: String(FIXED_RENDER_ROWS) }, prefix: '<!doctype html>' },
    ],
    say,
  });
  await runRollout(kit, runtime);
  const scale = scaleApps > backgroundApps ? await measureScale(kit, runtime, bucketEnv, 1 + throughput.workers.length * throughput.shards) : undefined;
  report(deployed, rolledBack, throughput, scale);
}

/** The rollout section, on the replica of the other sections, printed as soon as it is measured. */
async function runRollout(kit: Kit, runtime: { port: number; statusPort: number; pid: number }): Promise<void> {
  const cost = await measureRolloutCost({
    kit,
    port: runtime.port,
    runtimePid: runtime.pid,
    node,
    connections,
    warmupSeconds: Number(flags['rollout-warmup']),
    durationSeconds: Number(flags['rollout-duration']),
    rounds: Number(flags['rollout-rounds']),
    baseDomain: BASE_DOMAIN,
    helloSource,
    report: async (namespace, app) => {
      const res = await fetch(`http://127.0.0.1:${runtime.statusPort}/apps/${namespace}/${app}`, STATUS_AUTH).catch(() => undefined);
      return res?.ok ? ((await res.json()) as { rollout?: { weight: number; stable: { requests: number }; canary: { requests: number } } }) : undefined;
    },
    say,
  });
  process.stdout.write(`${rolloutReport(cost).join('\n')}\n`);
}

/** The TLS section, on a cw-runtime of its own (stopped at its end), printed as soon as it is measured. */
async function runTls(env: BucketEnv, kube: KubeConnection, bucket: S3ObjectStore): Promise<void> {
  const timing = {
    connections: Number(flags['tls-connections']),
    httpConnections: connections,
    warmupSeconds: Number(flags['tls-warmup']),
    durationSeconds: Number(flags['tls-duration']),
    rounds: Number(flags['tls-rounds']),
  };
  const figures = await measureTls({
    env: { ...env, stateDir, stops, node, baseDomain: TLS_BASE_DOMAIN },
    kube,
    kit: { apps: objectClient<RuntimeApp>(kube, RUNTIME_APPS), builds: objectClient<Build>(kube, BUILDS), bucket },
    helloSource,
    certificates: Number(flags['tls-certificates']),
    extra: Number(flags['tls-extra']),
    issuances: Number(flags['tls-issuances']),
    churnPasses: Number(flags['tls-churn-passes']),
    say,
    ...timing,
  });
  process.stdout.write(`${tlsReport(figures, timing).join('\n')}\n`);
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
    args: [...RUNTIME_NODE_FLAGS, join(repoRoot, 'bin/cw-runtime.ts')],
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
      CW_RUNTIME_STATUS_TOKEN: RUNTIME_STATUS_TOKEN,
      // Empty: the replica's default, one shard per core.
      ...(flags.shards ? { CW_RUNTIME_SHARDS: flags.shards } : {}),
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
    const res = await fetch(`http://127.0.0.1:${statusPort}/apps`, STATUS_AUTH).catch(() => undefined);
    // Apps being deployed are listed too, without a build served yet.
    const apps = res?.ok ? ((await res.json()) as { apps: Array<{ servingBuildId?: string }> }).apps : [];
    if (apps.filter((a) => a.servingBuildId).length >= count) return;
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
  /** Apps besides the scale's own (loaded before it started). */
  others: number;
  converge: number;
  cold: number[];
  warm: number[];
  bytesBefore: number;
  bytesAfter: number;
  loaded: number;
  second: { readyMs: number; allServedMs: number; bytes: number };
}

/** Grows the replica to `scaleApps` apps (beside `others`: the deploy app and the throughput's), requests each (loading its isolate), then starts a second replica. */
async function measureScale(kit: Kit, runtime: { port: number; statusPort: number; pid: number }, env: BucketEnv, others: number): Promise<Scale> {
  const total = scaleApps + others;
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
  return { apps: total, others, converge, cold, warm, bytesBefore, bytesAfter, loaded, second: result };
}

function report(deployed: { total: number[]; fromSpec: number[]; compressed: number }, rolledBack: number[], throughput: Throughput, scale: Scale | undefined): void {
  const ms = (v: number) => `${v.toFixed(0)} ms`;
  const mean = (rs: Measured[], pick: (r: Measured) => number) => rs.reduce((sum, r) => sum + pick(r), 0) / rs.length;
  const rate = (rs: Measured[]) => mean(rs, (r) => r.requestsPerSecond);
  const micros = (rs: Measured[], name: string) => mean(rs, (r) => r.cpuMicros[name] ?? 0).toFixed(0);
  const cores = (rs: Measured[], ...names: string[]) => mean(rs, (r) => names.reduce((sum, name) => sum + (r.cores[name] ?? 0), 0)).toFixed(2);
  const ratios = new Map(throughput.workers.map((w) => [w.worker, rate(w.routed) / rate(w.direct)]));
  const deployP50 = percentile(deployed.total, 50);
  const deployP95 = percentile(deployed.total, 95);
  const rollbackP50 = percentile(rolledBack, 50);
  const { serial } = throughput;
  const median = (values: number[]) => percentile(values, 50);
  const addedP50 = median(serial.routed.map((r) => r.p50Ms)) - median(serial.direct.map((r) => r.p50Ms));
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
    `requests/s: ${connections} connections split over ${throughput.shards} apps (one project on each of the replica's ${throughput.shards} shards), ${warmupSeconds} s warm-up + ${durationSeconds} s per run;`,
    `against ${throughput.shards} direct workerd processes (TCP), one per shard, on the same cores; runs alternate`,
    ...throughput.workers.flatMap((w) => [
      `  ${w.worker}${w.rows === undefined ? '' : ` (${w.rows} rows: about ${micros(w.direct, 'workerd')} µs of workerd CPU per request direct)`}`,
      ...w.direct.map((r, i) => `    direct workerd × ${throughput.shards}   round ${i + 1}: ${r.requestsPerSecond.toFixed(0).padStart(7)} req/s   p50 ${r.p50Ms} ms   p99 ${r.p99Ms} ms`),
      ...w.routed.map((r, i) => `    entry point + shards  round ${i + 1}: ${r.requestsPerSecond.toFixed(0).padStart(7)} req/s   p50 ${r.p50Ms} ms   p99 ${r.p99Ms} ms`),
      `    ratio entry point / direct: ${ratios.get(w.worker)!.toFixed(2)} (${rate(w.routed).toFixed(0)} / ${rate(w.direct).toFixed(0)} req/s)`,
      `    CPU per request: direct workerd ${micros(w.direct, 'workerd')} µs; through the entry point: entry point (Node) ${micros(w.routed, 'router')} µs + dispatcher and app (workerd shards) ${micros(w.routed, 'workerd')} µs; load generator ${micros(w.direct, 'loader')} / ${micros(w.routed, 'loader')} µs`,
      // The app runs the same code in a shard as alone, so the shard's CPU beyond direct workerd's is the dispatcher's and the Worker Loader hop's.
      `    of the shards' CPU: the app about ${micros(w.direct, 'workerd')} µs (as alone), the dispatcher and the hop into the app's isolate about ${(mean(w.routed, (r) => r.cpuMicros.workerd ?? 0) - mean(w.direct, (r) => r.cpuMicros.workerd ?? 0)).toFixed(0)} µs`,
      `    cores kept busy: direct workerd ${cores(w.direct, 'workerd')}; the replica (entry point + shards) ${cores(w.routed, 'router', 'workerd')} (of which shards ${cores(w.routed, 'workerd')}); load generator ${cores(w.direct, 'loader')} / ${cores(w.routed, 'loader')}`,
    ]),
    `  one request at a time (hello, ${serialRequests} requests a run, µs timer): direct p50 ${serial.direct.map((r) => r.p50Ms.toFixed(3)).join(' / ')} ms, p99 ${serial.direct.map((r) => r.p99Ms.toFixed(2)).join(' / ')} ms; ` +
      `entry point p50 ${serial.routed.map((r) => r.p50Ms.toFixed(3)).join(' / ')} ms, p99 ${serial.routed.map((r) => r.p99Ms.toFixed(2)).join(' / ')} ms: added p50 ${addedP50.toFixed(3)} ms`,
    `  (${cpus().length} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at the end: the load generators, the entry point and workerd share them)`,
    ...(scale
      ? [
          '',
          `${scale.apps} apps on one replica (${scaleApps - backgroundApps} added at once: served by the replica ${(scale.converge / 1000).toFixed(1)} s after the first was created)`,
          `  first request of an app (loads its isolate)   p50 ${ms(percentile(scale.cold, 50))}   p95 ${ms(percentile(scale.cold, 95))}`,
          `  later requests                                p50 ${ms(percentile(scale.warm, 50))}   p95 ${ms(percentile(scale.warm, 95))}`,
          `  memory (cw-runtime + workerd): ${mb(scale.bytesBefore)} with ${backgroundApps} loaded, ${mb(scale.bytesAfter)} with ${scale.loaded} isolates loaded: ${((scale.bytesAfter - scale.bytesBefore) / Math.max(scale.loaded - backgroundApps - scale.others, 1) / 1024 / 1024).toFixed(2)} MB per loaded app`,
          `  a second replica: ready in ${(scale.second.readyMs / 1000).toFixed(1)} s (process start to /readyz), serving all ${scale.apps} after ${(scale.second.allServedMs / 1000).toFixed(1)} s, ${mb(scale.second.bytes)} then (served on demand: builds are prepared and isolates loaded on first request; bench/runtime-first-request.ts measures it)`,
        ]
      : []),
    '',
    'targets',
    `  ${mark(deployP50 < TARGETS.deployP50Ms)} deploy p50 < ${TARGETS.deployP50Ms} ms: ${ms(deployP50)} (${(deployP50 / TARGETS.deployP50Ms).toFixed(2)} of target)`,
    `  ${mark(deployP95 < TARGETS.deployP95Ms)} deploy p95 < ${TARGETS.deployP95Ms} ms: ${ms(deployP95)} (${(deployP95 / TARGETS.deployP95Ms).toFixed(2)} of target)`,
    `  ${mark(rollbackP50 < TARGETS.rollbackP50Ms)} rollback p50 < ${TARGETS.rollbackP50Ms} ms: ${ms(rollbackP50)} (${(rollbackP50 / TARGETS.rollbackP50Ms).toFixed(2)} of target)`,
    `  ${mark((ratios.get('render') ?? 0) >= TARGETS.renderRatio)} render worker (about 1 ms of CPU) through the entry point ≥ ${TARGETS.renderRatio} × direct workerd: ${(ratios.get('render') ?? NaN).toFixed(2)}`,
    `  ${mark((ratios.get('hello') ?? 0) >= TARGETS.helloRatio)} hello worker through the entry point ≥ ${TARGETS.helloRatio} × direct workerd: ${(ratios.get('hello') ?? NaN).toFixed(2)}`,
    `  ${mark(addedP50 <= TARGETS.addedP50Ms)} added latency one request at a time p50 ≤ ${TARGETS.addedP50Ms} ms: ${addedP50.toFixed(3)} ms`,
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
