// `make bench-runtime-first-request`: the first request of an app on a replica that never served it (issue 45,
// docs/runtime.md "Apps served on demand"). Starts MinIO and one runtime engine serving on demand from the bucket
// (the `S3ArtifactSource` cw-runtime uses), with as many shards as cores, then:
//
//   1. a new replica: the engine's start and the deploy of `--apps` apps (default 500) and `--idle-apps` more
//      (default 10,000, in 1,000 projects, never requested: what a pass and a route cost with many apps) until all
//      route, with nothing fetched;
//   2. first requests: each app's first request, one after another on a kept-alive connection, timed from the
//      request to the whole answer (fetched from the bucket, checked, unpacked, load-checked, routed, its isolate
//      loaded), then a second request of the same app (warm); `--prepared-apps` (default 100) is the LRU bound,
//      so past it every first request also lets an app go;
//   3. a burst: `--burst` (default 20) concurrent first requests of one app: one preparation, the slowest answer;
//   4. apps with static assets (`--assets-apps`, default 10): a first request also starts a new workerd for the
//      app's shard (workerd fixes assets services at start).
//
// Prints PASS/MISS against the targets of issue 45 (first request p50 < 150 ms, p99 < 500 ms); exits non-zero only
// when the run itself failed. Not a test.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createRunBucket, startMinio } from '../e2e/harness/minio.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { artifactKey, buildIdFor } from '../src/platform/artifact-keys.ts';
import { RuntimeEngine } from '../runtime-server/engine/engine.ts';
import { artifactFromFiles } from '../runtime-server/engine/testing/artifact-builder.ts';
import { S3ArtifactSource } from '../runtime-server/s3-artifact-source.ts';
import { benchRun, runBench } from './run.ts';
import { agent, get, percentile } from './runtime-kit.ts';

const TARGETS = { firstP50Ms: 150, firstP99Ms: 500 };
const BASE_DOMAIN = 'apps.localhost';
const PROJECT = 'bench';

const { values: flags } = parseArgs({
  options: {
    apps: { type: 'string', default: '500' },
    'prepared-apps': { type: 'string', default: '100' },
    burst: { type: 'string', default: '20' },
    'assets-apps': { type: 'string', default: '10' },
    'idle-apps': { type: 'string', default: '10000' },
  },
});
const appCount = Number(flags.apps);
const assetsCount = Number(flags['assets-apps']);
const idleCount = Number(flags['idle-apps']);

/** A small app (a few hundred bytes), distinct per app so every build is fetched and loaded anew. */
function smallApp(name: string, assets: boolean): Uint8Array {
  return artifactFromFiles({
    'worker.js': `export default { fetch(request, env) { return new Response(${JSON.stringify(`hello from ${name}`)} + (env.ASSETS ? ' with assets' : '')); } };`,
    ...(assets ? { 'assets/logo.txt': `logo of ${name}` } : {}),
  });
}

const run = benchRun();
await runBench(run, async () => {
  const minio = await startMinio(run.stateDir);
  run.stops.push(() => minio.service.stop());
  const bucket = await createRunBucket(minio, 'cw-bench-first');
  const store = new S3ObjectStore({ config: minio.s3, bucket });
  const names = [...Array.from({ length: appCount }, (_, i) => `a${i}`), ...Array.from({ length: assetsCount }, (_, i) => `s${i}`), 'burst'];
  const builds = new Map<string, string>();
  for (const name of names) {
    const artifact = smallApp(name, name.startsWith('s'));
    const buildId = buildIdFor(createHash('sha256').update(artifact).digest('hex'));
    await store.put(artifactKey(PROJECT, name, buildId), artifact);
    builds.set(name, buildId);
  }
  const dataDir = join(run.stateDir, 'rt');
  mkdirSync(dataDir);

  // 1. A new replica: started, every app deployed (routed, not prepared).
  const t0 = performance.now();
  const engine = new RuntimeEngine({
    artifacts: new S3ArtifactSource(store),
    dataDir,
    baseDomain: BASE_DOMAIN,
    shards: RuntimeEngine.defaultShards(),
    onDemand: { maxApps: Number(flags['prepared-apps']) },
  });
  await engine.start();
  run.stops.push(() => engine.stop(0));
  const started = performance.now() - t0;
  // Idle apps are routed and never requested (their builds need not exist): what each pass and route costs with many apps.
  const idle = Array.from({ length: idleCount }, (_, i) => ({ project: `idle${i % 1000}`, appId: `i${i}`, buildId: 'b-idle', env: {}, hostnames: [] }));
  await Promise.all([...names.map((name) => engine.deploy({ project: PROJECT, appId: name, buildId: builds.get(name)!, env: {}, hostnames: [] })), ...idle.map((app) => engine.deploy(app))]);
  const ready = performance.now() - t0;
  const port = engine.address.port;
  process.stdout.write(
    `new replica: engine started in ${started.toFixed(0)} ms; ${names.length + idleCount} apps (${idleCount} idle) deployed and routed after ${ready.toFixed(0)} ms, ${engine.preparedOnDemand} prepared\n`,
  );

  // 2. First and second requests, one at a time.
  const timed = async (name: string): Promise<number> => {
    const start = performance.now();
    const res = await get(port, `${name}.${PROJECT}.${BASE_DOMAIN}`);
    const ms = performance.now() - start;
    if (res.status !== 200 || !res.body.startsWith(`hello from ${name}`)) throw new Error(`${name} answered ${res.status}: ${res.body.slice(0, 200)}`);
    return ms;
  };
  const first: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < appCount; i++) {
    first.push(await timed(`a${i}`));
    warm.push(await timed(`a${i}`));
  }
  const line = (label: string, ms: number[]) =>
    `${label}: n=${ms.length} p50 ${percentile(ms, 50).toFixed(1)} ms, p90 ${percentile(ms, 90).toFixed(1)} ms, p99 ${percentile(ms, 99).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms`;
  process.stdout.write(`${line('first request (small app, never served here)', first)}\n${line('second request (warm)', warm)}\n`);
  const slowest = first
    .map((ms, i) => ({ ms, i }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 5);
  process.stdout.write(`slowest first requests: ${slowest.map(({ ms, i }) => `a${i} ${ms.toFixed(0)} ms`).join(', ')}\n`);
  process.stdout.write(`prepared apps kept: ${engine.preparedOnDemand} (bound ${flags['prepared-apps']})\n`);

  // 3. A burst of first requests of one app.
  const burst = Number(flags.burst);
  const b0 = performance.now();
  // Each on a connection of its own (fetch would drop the Host header).
  const answers = await Promise.all(Array.from({ length: burst }, () => get(port, `burst.${PROJECT}.${BASE_DOMAIN}`, false).then((r) => r.status)));
  const burstMs = performance.now() - b0;
  process.stdout.write(`burst: ${burst} concurrent first requests of one app, all answered in ${burstMs.toFixed(1)} ms (${answers.filter((s) => s === 200).length} × 200)\n`);

  // 4. First requests of apps with static assets: a new workerd for their shard each time.
  const withAssets: number[] = [];
  for (let i = 0; i < assetsCount; i++) withAssets.push(await timed(`s${i}`));
  if (withAssets.length > 0) process.stdout.write(`${line('first request (app with static assets: a new workerd for its shard)', withAssets)}\n`);

  const p50 = percentile(first, 50);
  const p99 = percentile(first, 99);
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  process.stdout.write(`${verdict(p50 < TARGETS.firstP50Ms)} first request p50 ${p50.toFixed(1)} ms (target < ${TARGETS.firstP50Ms} ms)\n`);
  process.stdout.write(`${verdict(p99 < TARGETS.firstP99Ms)} first request p99 ${p99.toFixed(1)} ms (target < ${TARGETS.firstP99Ms} ms)\n`);
  agent.destroy();
});
