// What bench/runtime-path.ts puts behind the entry point: the worker alone in a workerd, or the runtime's own
// workerd generation (the dispatcher worker, which loads the worker with the Worker Loader) serving it as an app.
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import type { RoutingTable } from '../runtime-server/engine/dispatcher/routing-table.ts';
import { startGeneration } from '../runtime-server/engine/generation.ts';
import { resolveWorkerdBinary } from '../runtime-server/engine/index.ts';
import { UpstreamPool, type Upstream } from '../runtime-server/engine/upstream.ts';
import type { WorkerCodeJson } from '../runtime-server/engine/worker-code.ts';
import { silentRuntimeLogger } from '../src/runtime-contract/log.ts';
import type { BenchWorker } from './runtime-throughput.ts';
import { workerdAlone } from './runtime-workerd.ts';

/** The app key and host the path bench routes to. */
export const PATH_APP = { key: 'bench/app', host: 'app.bench.apps.localhost' };

export interface PathUpstream {
  readonly upstream: Upstream;
  /** The workerd process, for its CPU. */
  readonly pid: number;
  stop(): Promise<void>;
}

/** The worker alone in a workerd on a Unix socket: what the entry point costs without the dispatcher. */
export async function aloneUpstream(dir: string, worker: BenchWorker): Promise<PathUpstream> {
  const socketPath = join(dir, 'alone.sock');
  const proc = await workerdAlone(dir, `unix:${socketPath}`, worker.source, worker.env);
  const pool = new UpstreamPool();
  return {
    upstream: { socket: pool.socket(socketPath), pool },
    pid: proc.pid,
    stop: async () => {
      pool.destroy();
      await proc.stop();
    },
  };
}

/**
 * A workerd generation of the runtime serving the worker as its one app, its code handed out as the runtime
 * process does (`GET /code/{id}` on a Unix socket): the dispatcher's routing, limits and counts, and the
 * Worker Loader hop into the app's isolate, as in a shard.
 */
export async function dispatcherUpstream(dir: string, worker: BenchWorker): Promise<PathUpstream> {
  mkdirSync(dir, { recursive: true });
  const runtimeSocket = join(dir, 'runtime.sock');
  const code: WorkerCodeJson = { compatibilityDate: '2025-09-01', compatibilityFlags: [], mainModule: 'worker.js', modules: { 'worker.js': { js: worker.source } }, env: worker.env };
  const runtime = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(code));
  });
  await new Promise<void>((resolve) => runtime.listen(runtimeSocket, resolve));
  const table: RoutingTable = { hosts: { [PATH_APP.host]: PATH_APP.key }, apps: { [PATH_APP.key]: { id: 'bench-1', build: 'b1', limit: 100, depth: 100 } }, retryAfter: '1' };
  const ctx = { binary: resolveWorkerdBinary(), startTimeoutMs: 10_000, log: silentRuntimeLogger, runtimeSocket, affinityKey: '00'.repeat(32), v8Flags: [] };
  const gen = await startGeneration(ctx, 1, 0, join(dir, 'generation'), [], table);
  return {
    upstream: gen.upstream,
    pid: gen.proc.pid,
    stop: async () => {
      gen.upstream.pool.destroy();
      await gen.proc.stop();
      runtime.close();
    },
  };
}
