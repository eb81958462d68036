// The runtime's throughput for bench/runtime.ts: the entry point in front of the replica's workerd shards
// against as many workerd processes serving the worker alone (one per shard, on TCP, as clients reach the
// entry point), on the same cores, loaded alternately; CPU per request of every process on the path from
// /proc; and the latency the path adds, one request at a time.
import { join } from 'node:path';
import type { KubeConnection } from '../src/kube/index.ts';
import { shardOf } from '../runtime-server/engine/shard-of.ts';
import { artifactFromFiles } from '../runtime-server/engine/testing/artifact-builder.ts';
import { createTestNamespace } from '../e2e/harness/namespace.ts';
import { freePort } from '../e2e/harness/process.ts';
import { repoRoot } from '../e2e/harness/tools.ts';
import { runToCompletion } from './child.ts';
import { cpuSeconds, firstServed, reapedChildrenCpuSeconds, shardPids, upload, type Kit } from './runtime-kit.ts';
import type { RuntimeLoadResult, RuntimeLoadSpec } from './runtime-load.ts';
import type { SerialResult, SerialSpec } from './runtime-serial.ts';
import { workerdOnTcp } from './runtime-workerd.ts';

/** A worker measured: its source, environment, and how its answer starts (to know it is served). */
export interface BenchWorker {
  readonly name: string;
  readonly source: string;
  readonly env: Record<string, string>;
  readonly prefix: string;
}

/**
 * A page render: items made, sorted by a locale-aware compare, escaped and formatted into an HTML table.
 * About 1 ms of CPU in workerd with the default ROWS (bench/README.md says how it was sized).
 */
export const RENDER_SOURCE = `export default {
  fetch(request, env) {
    const rows = Number(env.ROWS);
    const items = [];
    let seed = 42;
    for (let i = 0; i < rows; i++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      items.push({ id: i, name: 'item ' + seed.toString(36), price: (seed % 100000) / 100 });
    }
    items.sort((a, b) => a.name.localeCompare(b.name));
    const esc = (s) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
    let html = '<!doctype html><html><body><table>';
    for (const it of items) html += '<tr><td>' + it.id + '</td><td>' + esc(it.name) + '</td><td>' + it.price.toFixed(2) + '</td></tr>';
    return new Response(html + '</table></body></html>', { headers: { 'content-type': 'text/html; charset=utf-8' } });
  },
};
`;

export interface Measured extends RuntimeLoadResult {
  /** CPU microseconds per request of each process group on the path, over the whole load run (warm-up included). */
  cpuMicros: Record<string, number>;
  /** Cores the group kept busy during the run (CPU seconds / wall seconds). */
  cores: Record<string, number>;
}

export interface WorkerThroughput {
  readonly worker: string;
  /** The page render's size. */
  readonly rows?: number;
  readonly direct: Measured[];
  readonly routed: Measured[];
}

export interface Throughput {
  readonly shards: number;
  readonly workers: WorkerThroughput[];
  /** One request at a time to the hello worker: direct workerd and the entry point, alternately. */
  readonly serial: { readonly direct: SerialResult[]; readonly routed: SerialResult[] };
}

export interface ThroughputOptions {
  readonly kit: Kit;
  readonly kube: KubeConnection;
  readonly port: number;
  readonly runtimePid: number;
  readonly stateDir: string;
  readonly stops: (() => Promise<void>)[];
  readonly node: string;
  readonly baseDomain: string;
  readonly connections: number;
  readonly warmupSeconds: number;
  readonly durationSeconds: number;
  readonly rounds: number;
  readonly serialCount: number;
  readonly workers: readonly BenchWorker[];
  readonly say: (message: string) => void;
}

export async function measureThroughput(o: ThroughputOptions): Promise<Throughput> {
  const shards = shardPids(o.runtimePid);
  if (shards.length === 0 || shards.some((pid) => pid === undefined)) throw new Error(`cw-runtime runs no workerd for some shard: ${JSON.stringify(shards)}`);
  // One project per shard, so the load spreads over every shard as many tenants' traffic would.
  const projects = await projectsPerShard(o, shards.length);
  const results: WorkerThroughput[] = [];
  for (const worker of o.workers) results.push(await measureWorker(o, worker, projects, shards));
  const hello = o.workers[0]!;
  const serial = await measureSerial(o, hello, projects[0]!);
  return { shards: shards.length, workers: results, serial };
}

async function projectsPerShard(o: ThroughputOptions, count: number): Promise<string[]> {
  const projects: Array<string | undefined> = new Array<string | undefined>(count);
  projects[shardOf(o.kit.namespace, count)] = o.kit.namespace;
  for (let tries = 0; projects.includes(undefined) && tries < 100; tries++) {
    const namespace = await createTestNamespace(o.kube, 'bench');
    projects[shardOf(namespace, count)] ??= namespace;
  }
  if (projects.includes(undefined)) throw new Error('could not place a project on every shard');
  return projects as string[];
}

/** Deploys `worker` in each project (each on its own shard) and loads it through the entry point and directly, alternately. */
async function measureWorker(o: ThroughputOptions, worker: BenchWorker, projects: string[], shards: number[]): Promise<WorkerThroughput> {
  for (const namespace of projects) {
    const owner = await o.kit.apps.create({ metadata: { name: worker.name, namespace }, spec: { displayName: worker.name, environment: worker.env } });
    const id = await upload(o.kit, worker.name, owner, artifactFromFiles({ 'worker.js': worker.source }), namespace);
    await o.kit.apps.patch(namespace, worker.name, { spec: { activeBuildId: id } });
  }
  const hosts = projects.map((namespace) => `${worker.name}.${namespace}.${o.baseDomain}`);
  for (const host of hosts) await firstServed(o.port, host, worker.prefix);
  const direct = await Promise.all(
    projects.map(async (_, i) => {
      const port = await freePort();
      const proc = await workerdOnTcp(join(o.stateDir, `direct-${worker.name}-${i}`), port, worker.source, worker.env);
      return { port, proc };
    }),
  );
  const directRuns: Measured[] = [];
  const routedRuns: Measured[] = [];
  try {
    // Alternated, so a change in what else the machine does shows in both.
    for (let round = 1; round <= o.rounds; round++) {
      directRuns.push(
        await load(
          o,
          `${worker.name}: ${direct.length} direct workerd (round ${round})`,
          direct.map((d, i) => ({ url: `http://127.0.0.1:${d.port}/`, host: hosts[i]! })),
          { workerd: direct.map((d) => d.proc.pid) },
        ),
      );
      routedRuns.push(
        await load(
          o,
          `${worker.name}: entry point, ${shards.length} shards (round ${round})`,
          hosts.map((host) => ({ url: `http://127.0.0.1:${o.port}/`, host })),
          { router: [o.runtimePid], workerd: shards },
        ),
      );
    }
  } finally {
    await Promise.all(direct.map((d) => d.proc.stop()));
  }
  return { worker: worker.name, ...(worker.env.ROWS ? { rows: Number(worker.env.ROWS) } : {}), direct: directRuns, routed: routedRuns };
}

/** Loads each target with its share of the connections, each by an autocannon process of its own, at once. */
export async function load(
  o: Pick<ThroughputOptions, 'connections' | 'warmupSeconds' | 'durationSeconds' | 'node' | 'say'>,
  label: string,
  targets: Array<{ url: string; host: string; keys?: RuntimeLoadSpec['keys'] }>,
  groups: Record<string, number[]>,
): Promise<Measured> {
  const share = Math.max(1, Math.round(o.connections / targets.length));
  o.say(`loading ${label}: ${targets.length} × ${share} connections, ${o.warmupSeconds} s warm-up + ${o.durationSeconds} s`);
  const groupCpu = () => Object.fromEntries(Object.entries(groups).map(([name, pids]) => [name, pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0)]));
  const before = groupCpu();
  const loaderBefore = reapedChildrenCpuSeconds();
  const t0 = performance.now();
  const results = await Promise.all(
    targets.map(async (target) => {
      const spec: RuntimeLoadSpec = {
        url: target.url,
        host: target.host,
        connections: share,
        warmupSeconds: o.warmupSeconds,
        durationSeconds: o.durationSeconds,
        ...(target.keys ? { keys: target.keys } : {}),
      };
      return JSON.parse(await runToCompletion(o.node, [join(repoRoot, 'bench/runtime-load.ts'), JSON.stringify(spec)])) as RuntimeLoadResult;
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  const sum = (pick: (r: RuntimeLoadResult) => number) => results.reduce((total, r) => total + pick(r), 0);
  const merged: RuntimeLoadResult = {
    requestsPerSecond: sum((r) => r.requestsPerSecond),
    p50Ms: Math.max(...results.map((r) => r.p50Ms)),
    p99Ms: Math.max(...results.map((r) => r.p99Ms)),
    total: sum((r) => r.total),
    warmupTotal: sum((r) => r.warmupTotal),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    non2xx: sum((r) => r.non2xx),
  };
  if (merged.errors > 0 || merged.non2xx > 0 || merged.total === 0) throw new Error(`${label}: ${merged.errors} errors, ${merged.timeouts} timeouts, ${merged.non2xx} non-2xx`);
  const requests = merged.total + merged.warmupTotal;
  const after = groupCpu();
  const used = Object.fromEntries(Object.keys(groups).map((name) => [name, (after[name] ?? 0) - (before[name] ?? 0)]));
  used.loader = reapedChildrenCpuSeconds() - loaderBefore;
  const cpuMicros = Object.fromEntries(Object.entries(used).map(([name, seconds]) => [name, (seconds * 1e6) / requests]));
  const cores = Object.fromEntries(Object.entries(used).map(([name, seconds]) => [name, seconds / wall]));
  return { ...merged, cpuMicros, cores };
}

/** One request at a time, on one connection: direct workerd and the entry point, alternately (two rounds each). */
async function measureSerial(o: ThroughputOptions, worker: BenchWorker, project: string): Promise<Throughput['serial']> {
  const host = `${worker.name}.${project}.${o.baseDomain}`;
  const port = await freePort();
  const proc = await workerdOnTcp(join(o.stateDir, 'direct-serial'), port, worker.source, worker.env);
  const direct: SerialResult[] = [];
  const routed: SerialResult[] = [];
  const run = async (url: string) => {
    const spec: SerialSpec = { url, host, count: o.serialCount, warmup: Math.ceil(o.serialCount / 10) };
    return JSON.parse(await runToCompletion(o.node, [join(repoRoot, 'bench/runtime-serial.ts'), JSON.stringify(spec)])) as SerialResult;
  };
  try {
    for (let round = 1; round <= 2; round++) {
      o.say(`${worker.name}, one request at a time (round ${round}): direct workerd, then the entry point`);
      direct.push(await run(`http://127.0.0.1:${port}`));
      routed.push(await run(`http://127.0.0.1:${o.port}`));
    }
  } finally {
    await proc.stop();
  }
  return { direct, routed };
}
