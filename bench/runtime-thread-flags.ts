// `make bench-runtime-thread-flags`: what asking a stuck thread which app it runs costs (`running-app.ts`). workerd
// then runs with V8's perf map and a trampoline per interpreted function, and its bootstrap compile cache no longer
// matches its flags (workerd warns, and compiles the bootstrap from source for each isolate). A runtime engine with
// one shard, with and without (`limits.askTheThread`), alternately: the first request of apps it never served (a
// new isolate each), then workerd's CPU per request of a ~300-row render over those apps; the figures of the runs
// with the flags as a ratio of those without. After a run with them: what a stop reads (the perf map and V8's event
// logs, their size), how long reading them takes (`isolate-code.ts`, done while the shard is stopped) and the longest
// pause of the event loop meanwhile (what the other shards wait).
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { RuntimeEngine } from '../runtime-server/engine/engine.ts';
import { artifactFromFiles } from '../runtime-server/engine/testing/artifact-builder.ts';
import { send } from '../runtime-server/engine/testing/http.ts';
import { MemoryArtifactSource } from '../runtime-server/engine/testing/memory-artifacts.ts';
import { workerdIsolates } from '../runtime-server/engine/running-app.ts';
import { cpuSeconds, percentile } from './runtime-kit.ts';

const { values: flags } = parseArgs({
  options: {
    apps: { type: 'string', default: '24' },
    rounds: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '3' },
  },
});
const APPS = Number(flags.apps);
const ROUNDS = Number(flags.rounds);
const LOAD_MS = Number(flags.seconds) * 1000;

/** A distinct build per app and run, so every first request loads a new isolate. */
function renderWorker(n: number): Uint8Array {
  return artifactFromFiles({
    'worker.js': `const rows = Array.from({ length: 300 }, (_, j) => ({ j, s: 'row ' + j }));
export default { fetch() { let html = ''; for (const r of rows) html += '<tr><td>' + r.j + '</td><td>' + r.s + '</td></tr>'; return new Response(html + ${n}); } };
`,
  });
}

interface RunFigures {
  readonly firstMs: number[];
  readonly workerdUsPerRequest: number;
  /** What a stop reads at the end of the run (asking the thread only): the perf map's size, the event logs', and the time to read them. */
  readonly stopReads?: { readonly perfMapBytes: number; readonly eventLogBytes: number; readonly readMs: number; readonly longestPauseMs: number };
}

const artifacts = new MemoryArtifactSource();
let builds = 0;

async function run(askTheThread: boolean): Promise<RunFigures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cw-bench-flags-'));
  const engine = new RuntimeEngine({ artifacts, dataDir, baseDomain: 'apps.test', publicScheme: 'http', shards: 1, limits: { askTheThread } });
  try {
    await engine.start();
    const port = engine.address.port;
    const firstMs: number[] = [];
    for (let i = 0; i < APPS; i++) {
      const buildId = `b${builds++}`;
      artifacts.put(buildId, renderWorker(builds));
      await engine.deploy({ project: 'bench', appId: `a${i}`, buildId, env: {}, hostnames: [] });
      const started = performance.now();
      const answer = await send(port, `a${i}.bench.apps.test`);
      firstMs.push(performance.now() - started);
      if (answer.status !== 200) throw new Error(`app a${i} answered ${answer.status}`);
    }
    const pid = engine.status().shards[0]!.pid!;
    const cpuBefore = cpuSeconds(pid);
    const started = performance.now();
    let requests = 0;
    while (performance.now() - started < LOAD_MS) {
      await send(port, `a${requests % APPS}.bench.apps.test`);
      requests++;
    }
    const workerdUsPerRequest = ((cpuSeconds(pid) - cpuBefore) * 1e6) / requests;
    return { firstMs, workerdUsPerRequest, ...(askTheThread ? { stopReads: await stopReads(join(dataDir, 'run'), pid) } : {}) };
  } finally {
    await engine.stop(0);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The sizes of what asking a stopped thread reads, and how long reading it takes. */
async function stopReads(runDir: string, pid: number): Promise<NonNullable<RunFigures['stopReads']>> {
  const files = readdirSync(runDir, { recursive: true }).map(String);
  const map = files.find((name) => name.endsWith(`/perf-${pid}.map`));
  if (!map) throw new Error(`no perf map of workerd ${pid}`);
  const dir = join(runDir, map, '..');
  const eventLogBytes = files.filter((name) => name.endsWith(`-${pid}-v8.log`)).reduce((sum, name) => sum + statSync(join(runDir, name)).size, 0);
  // The event loop keeps serving the other shards while it reads: its longest pause is what they wait at most.
  let last = performance.now();
  let longestPauseMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longestPauseMs = Math.max(longestPauseMs, now - last);
    last = now;
  }, 1);
  const started = performance.now();
  (await workerdIsolates(pid, dir)).apps([0]);
  const readMs = performance.now() - started;
  clearInterval(ticker);
  longestPauseMs = Math.max(longestPauseMs, performance.now() - last);
  return { perfMapBytes: statSync(join(runDir, map)).size, eventLogBytes, readMs, longestPauseMs };
}

const without: RunFigures[] = [];
const withFlags: RunFigures[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  for (const ask of [false, true]) {
    const figures = await run(ask);
    (ask ? withFlags : without).push(figures);
    console.log(
      `round ${round}, ${ask ? 'asking the thread' : 'not asking     '}: first request p50 ${percentile(figures.firstMs, 50).toFixed(1)} ms, max ${Math.max(...figures.firstMs).toFixed(1)} ms; workerd ${figures.workerdUsPerRequest.toFixed(0)} µs a request${figures.stopReads === undefined ? '' : `; a stop reads a ${(figures.stopReads.perfMapBytes / 1024).toFixed(0)} KiB perf map and ${(figures.stopReads.eventLogBytes / 1024).toFixed(0)} KiB of event logs in ${figures.stopReads.readMs.toFixed(0)} ms, the event loop paused at most ${figures.stopReads.longestPauseMs.toFixed(0)} ms`}`,
    );
  }
}
const firstP50 = (runs: RunFigures[]) =>
  percentile(
    runs.flatMap((r) => r.firstMs),
    50,
  );
const cpu = (runs: RunFigures[]) =>
  percentile(
    runs.map((r) => r.workerdUsPerRequest),
    50,
  );
console.log(
  `\nasking the thread / not: first request p50 ${firstP50(withFlags).toFixed(1)} / ${firstP50(without).toFixed(1)} ms (${(firstP50(withFlags) / firstP50(without)).toFixed(2)}×); ` +
    `workerd CPU a request (median of rounds) ${cpu(withFlags).toFixed(0)} / ${cpu(without).toFixed(0)} µs (${(cpu(withFlags) / cpu(without)).toFixed(2)}×)`,
);
