// `make bench-runtime-path`: the request path's parts, without a control plane, for A/B work on them. The entry
// point (`EntryProxy`, in this process) in front of (a) the worker alone in a workerd and (b) the runtime's own
// workerd generation serving it as an app (the dispatcher and the Worker Loader hop), loaded alternately by an
// autocannon process of its own; per request, this process's CPU (user and system, the entry point's) and
// workerd's, from /proc; then one request at a time through each. (b) − (a) in workerd is what the dispatcher
// and the hop cost; the entry point's cost is read in both. bench/runtime.ts measures the whole replica.
import { mkdtempSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EntryProxy } from '../runtime-server/engine/entry-proxy.ts';
import { repoRoot, toolPath } from '../e2e/harness/tools.ts';
import { runToCompletion } from './child.ts';
import { cpuSeconds, percentile } from './runtime-kit.ts';
import type { RuntimeLoadResult, RuntimeLoadSpec } from './runtime-load.ts';
import { aloneUpstream, dispatcherUpstream, PATH_APP, type PathUpstream } from './runtime-path-upstreams.ts';
import type { SerialResult, SerialSpec } from './runtime-serial.ts';
import { RENDER_SOURCE, type BenchWorker } from './runtime-throughput.ts';

const { values: flags } = parseArgs({
  options: {
    worker: { type: 'string', default: 'hello' },
    'render-rows': { type: 'string', default: '400' },
    connections: { type: 'string', default: '32' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '3' },
    'serial-requests': { type: 'string', default: '3000' },
  },
});
const node = toolPath('node');
const worker: BenchWorker =
  flags.worker === 'render'
    ? { name: 'render', source: RENDER_SOURCE, env: { ROWS: flags['render-rows'] }, prefix: '<!doctype html>' }
    : { name: 'hello', source: readFileSync(join(repoRoot, 'docs/examples/hello-worker/worker.js'), 'utf8'), env: { GREETING: 'Hello' }, prefix: 'Hello' };

interface Figures {
  requestsPerSecond: number;
  entryUser: number;
  entrySystem: number;
  workerd: number;
}

/** Loads the entry point in front of `up`; CPU microseconds per request over the run, warm-up included. */
async function loadThrough(port: number, up: PathUpstream): Promise<Figures> {
  const spec: RuntimeLoadSpec = {
    url: `http://127.0.0.1:${port}/`,
    host: PATH_APP.host,
    connections: Number(flags.connections),
    warmupSeconds: Number(flags.warmup),
    durationSeconds: Number(flags.duration),
  };
  const cpu0 = process.cpuUsage();
  const workerd0 = cpuSeconds(up.pid);
  const result = JSON.parse(await runToCompletion(node, [join(repoRoot, 'bench/runtime-load.ts'), JSON.stringify(spec)])) as RuntimeLoadResult;
  const cpu = process.cpuUsage(cpu0);
  const requests = result.total + result.warmupTotal;
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`${result.errors} errors, ${result.non2xx} non-2xx`);
  return { requestsPerSecond: result.requestsPerSecond, entryUser: cpu.user / requests, entrySystem: cpu.system / requests, workerd: ((cpuSeconds(up.pid) - workerd0) * 1e6) / requests };
}

async function serial(port: number): Promise<SerialResult> {
  const count = Number(flags['serial-requests']);
  const spec: SerialSpec = { url: `http://127.0.0.1:${port}`, host: PATH_APP.host, count, warmup: Math.ceil(count / 10) };
  return JSON.parse(await runToCompletion(node, [join(repoRoot, 'bench/runtime-serial.ts'), JSON.stringify(spec)])) as SerialResult;
}

const dir = mkdtempSync(join(tmpdir(), 'cw-bench-path-'));
const ups = { alone: await aloneUpstream(join(dir, 'alone'), worker), dispatcher: await dispatcherUpstream(join(dir, 'dispatcher'), worker) };
const proxies = Object.fromEntries(
  await Promise.all(
    Object.entries(ups).map(async ([name, up]) => {
      const proxy = new EntryProxy({ route: () => ({ upstream: up.upstream, app: PATH_APP.key }) });
      return [name, { proxy, port: (await proxy.listen()).port }] as const;
    }),
  ),
) as Record<keyof typeof ups, { proxy: EntryProxy; port: number }>;
const runs: Record<keyof typeof ups, Figures[]> = { alone: [], dispatcher: [] };
const latency: Record<keyof typeof ups, SerialResult[]> = { alone: [], dispatcher: [] };
try {
  for (let round = 1; round <= Number(flags.rounds); round++) {
    for (const name of ['alone', 'dispatcher'] as const) {
      process.stdout.write(`bench: ${worker.name}, round ${round}: entry point + ${name === 'alone' ? 'the worker alone in workerd' : 'dispatcher + app in workerd'}\n`);
      runs[name].push(await loadThrough(proxies[name].port, ups[name]));
      latency[name].push(await serial(proxies[name].port));
    }
  }
} finally {
  for (const { proxy } of Object.values(proxies)) await proxy.close();
  for (const up of Object.values(ups)) await up.stop();
}

const us = (v: number) => `${v.toFixed(0).padStart(4)} µs`;
const median = (values: number[]) => percentile(values, 50);
for (const name of ['alone', 'dispatcher'] as const) {
  process.stdout.write(`entry point + ${name === 'alone' ? 'worker alone   ' : 'dispatcher, app'}\n`);
  for (const [i, r] of runs[name].entries()) {
    process.stdout.write(
      `  round ${i + 1}: ${r.requestsPerSecond.toFixed(0).padStart(6)} req/s   entry point ${us(r.entryUser + r.entrySystem)} (user ${us(r.entryUser)}, system ${us(r.entrySystem)})   workerd ${us(r.workerd)}   one at a time p50 ${latency[name][i]!.p50Ms.toFixed(3)} ms\n`,
    );
  }
}
const workerd = (name: keyof typeof ups) => median(runs[name].map((r) => r.workerd));
process.stdout.write(
  `medians: the dispatcher and the hop cost ${(workerd('dispatcher') - workerd('alone')).toFixed(0)} µs of workerd CPU a request; one at a time they add ${(median(latency.dispatcher.map((r) => r.p50Ms)) - median(latency.alone.map((r) => r.p50Ms))).toFixed(3)} ms at p50\n`,
);
