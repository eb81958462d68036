// `make bench-operator-memory`: what each RuntimeApp costs cw-operator's memory (issue 45: at most 10 KB).
// Starts a local control plane and a cw-operator reconciling one namespace, reads the operator's resident
// memory, applies `--apps` RuntimeApps there (server-side apply, as kubectl and GitOps tools write them, so
// they carry managedFields), waits until the operator has written every one's status, lets it settle, and
// reads it again: the growth per app. Then it measures the informer cache alone, with a full GC, in a child
// process (bench/informer-cache-memory.ts). `--root DIR` runs the operator of another checkout (say main's)
// for a before/after. Not a test: it prints figures; it exits non-zero only when the run itself failed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startControlPlane } from '../e2e/harness/control-plane.ts';
import { installCrds } from '../e2e/harness/install-crds.ts';
import { residentBytes } from '../e2e/harness/process-memory.ts';
import { freePort, waitForHttp } from '../e2e/harness/process.ts';
import { repoRoot, toolPath } from '../e2e/harness/tools.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { loadKubeConnection, NAMESPACES, objectClient, type KubeList } from '../src/kube/index.ts';
import { resourcePath } from '../src/kube/resource.ts';
import { RUNTIME_APPS } from '../src/platform/resources.ts';
import { runToCompletion, spawnToFile } from './child.ts';
import { benchRun, runBench } from './run.ts';

const TARGET_BYTES_PER_APP = 10 * 1024;
const NAMESPACE = 'bench-apps';

const { values: flags } = parseArgs({ options: { apps: { type: 'string', default: '3000' }, root: { type: 'string', default: repoRoot } } });
const count = Number(flags.apps);
if (!Number.isInteger(count) || count < 1) {
  process.stderr.write(`bench: --apps must be a whole number of at least 1, not ${JSON.stringify(flags.apps)}\n`);
  process.exit(2);
}
const run = benchRun();
const say = (message: string) => process.stdout.write(`bench: ${message}\n`);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

type Memory = { rss: number; heapTotal: number; heapUsed: number; external: number; arrayBuffers: number };

/** What the process retains: bench/gc-probe.ts, preloaded into it, prints its memory after a full GC on SIGUSR2. */
async function retained(pid: number, logPath: string): Promise<Memory> {
  const probes = () =>
    readFileSync(logPath, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('{"gcProbe"'));
  const seen = probes().length;
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 100; i++) {
    const line = probes()[seen];
    if (line) return (JSON.parse(line) as { gcProbe: Memory }).gcProbe;
    await sleep(100);
  }
  throw new Error('cw-operator did not answer the GC probe within 10 s');
}

/** A loaded apiserver on a shared two-core machine now and then drops a connection: an apply is idempotent. */
async function withRetries<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (attempt >= 5) throw new Error(`${String(err)} (${String((err as { cause?: unknown }).cause)})`);
      await sleep(500 * attempt);
    }
  }
}

/** The resident memory once it stopped moving: sampled every second until five samples agree within 1 %. */
async function settledResident(pid: number): Promise<number> {
  const samples: number[] = [];
  for (;;) {
    samples.push(residentBytes(pid));
    const last = samples.slice(-5);
    if (last.length === 5 && Math.max(...last) - Math.min(...last) < Math.max(...last) * 0.01) return last.at(-1)!;
    if (samples.length > 120) return last.at(-1)!;
    await sleep(1000);
  }
}

await runBench(run, async () => {
  const cluster = await startControlPlane({ stateDir: run.stateDir, throwaway: true });
  run.stops.push(() => cluster.stop());
  await installCrds(cluster.kubeconfig);
  const conn = loadKubeConnection(cluster.kubeconfig);
  await objectClient(conn, NAMESPACES).create({ metadata: { name: NAMESPACE } });

  const port = await freePort();
  const operator = spawnToFile({
    name: 'cw-operator',
    command: toolPath('node'),
    args: ['--expose-gc', '--import', join(repoRoot, 'bench/gc-probe.ts'), join(flags.root, 'bin/cw-operator.ts')],
    env: { ...process.env, KUBECONFIG: cluster.kubeconfig, CW_OPERATOR_PORT: String(port), POD_NAMESPACE: NAMESPACE, CW_WATCH_NAMESPACE: NAMESPACE, CW_LEADER_ELECTION: 'false' },
    logPath: join(run.stateDir, 'cw-operator.log'),
  });
  run.stops.push(() => operator.stop());
  await waitForHttp(operator, `http://127.0.0.1:${port}/healthz`, 60_000);
  const pid = operator.child.pid!;
  const logPath = join(run.stateDir, 'cw-operator.log');
  const empty = { resident: await settledResident(pid), retained: await retained(pid, logPath) };
  say(`cw-operator (${flags.root}) with no apps: ${mb(empty.resident)} resident, ${mb(empty.retained.heapUsed)} V8 heap after a full GC`);

  // Two sizes, a third of the apps then all of them: the cost per app is the slope between them, free of
  // what the first reconciles leave in place once whatever their number (compiled code, pools, caches).
  const apps = objectClient<RuntimeApp>(conn, RUNTIME_APPS);
  const sizes = [Math.ceil(count / 3), count];
  const measured: { apps: number; resident: number; retained: Memory }[] = [];
  let applied = 0;
  for (const size of sizes) {
    const started = Date.now();
    for (; applied < size; applied += 32) {
      const batch = Array.from({ length: Math.min(32, size - applied) }, (_, j) => `app-${String(applied + j).padStart(6, '0')}`);
      await Promise.all(batch.map((name) => withRetries(() => apps.apply({ metadata: { name, namespace: NAMESPACE }, spec: { displayName: name } }, { fieldManager: 'kubectl' }))));
    }
    applied = size;
    await untilReconciled(size);
    const point = { apps: size, resident: await settledResident(pid), retained: await retained(pid, logPath) };
    measured.push(point);
    say(
      `${size} apps, every one with its status ${((Date.now() - started) / 1000).toFixed(1)} s after the first was applied: ` +
        `${mb(point.resident)} resident, ${mb(point.retained.rss)} after a full GC, V8 heap ${mb(point.retained.heapUsed)} used of ${mb(point.retained.heapTotal)} + external ${mb(point.retained.external)}`,
    );
  }
  const [small, large] = measured as [(typeof measured)[number], (typeof measured)[number]];
  const added = large.apps - small.apps;
  const residentPerApp = (large.resident - small.resident) / added;
  const retainedPerApp = (large.retained.heapUsed + large.retained.external - small.retained.heapUsed - small.retained.external) / added;
  say(`per app, from ${small.apps} to ${large.apps} apps: ${kb(residentPerApp)} resident; ${kb(retainedPerApp)} retained (V8 heap and external memory after a full GC)`);
  say(`target ${kb(TARGET_BYTES_PER_APP)} per app: retained ${retainedPerApp <= TARGET_BYTES_PER_APP ? 'PASS' : 'MISS'}, resident ${residentPerApp <= TARGET_BYTES_PER_APP ? 'PASS' : 'MISS'}`);

  /** Until `size` apps have their status written for their generation: the operator reconciled each once. */
  async function untilReconciled(size: number): Promise<void> {
    for (;;) {
      let reconciled = 0;
      let next: string | undefined;
      do {
        const page = await conn.api.request<KubeList<RuntimeApp>>('GET', resourcePath(RUNTIME_APPS, NAMESPACE), { query: { limit: 500, continue: next } });
        reconciled += page.items.filter((a) => a.status?.observedGeneration === a.metadata?.generation).length;
        next = page.metadata?.continue;
      } while (next);
      if (reconciled >= size) return;
      await sleep(2000);
    }
  }

  const cache = JSON.parse(
    await runToCompletion(toolPath('node'), ['--expose-gc', join(repoRoot, 'bench/informer-cache-memory.ts'), JSON.stringify({ kubeconfig: cluster.kubeconfig, namespace: NAMESPACE })]),
  ) as Record<'whole' | 'cached' | 'projected', { objects: number; bytes: number }>;
  say(`V8 heap per cached RuntimeApp (after a full GC): whole object ${kb(cache.whole.bytes)}, informer cache ${kb(cache.cached.bytes)}, cw-runtime's projection ${kb(cache.projected.bytes)}`);
});
