// The load generator, run as its own process so it shares no event loop with the orchestrator or the
// servers. Argument: a JSON {@link LoadPlan}. It loads the targets one at a time in rounds, the order rotating
// each round (A B C, B C A, C A B, …), so that each target's windows sit close in time to every other's and a
// burst of other load on the machine falls on all alike. Each window is a warm-up run (discarded: it opens
// the connections and, in the first round, lets V8 optimise both sides) followed by the measured run. One
// process for the whole plan keeps the generator's own code equally warm for every target. Prints one JSON
// {@link LoadWindow} line per measured window on stdout, progress on stderr. A command target (a process run
// again and again, command-load.ts) is loaded the same way, so a server and the git it wraps can be compared.
import autocannon from 'autocannon';
import { loadCommand } from './command-load.ts';
import { processCpuMicros } from './process-cpu.ts';
import { failed, type LoadPlan, type LoadResult, type LoadTarget, type LoadWindow } from './load-plan.ts';

async function load(target: LoadTarget, connections: number, duration: number): Promise<LoadResult> {
  if ('command' in target) return loadCommand(target, connections, duration);
  const headers: Record<string, string> = target.token ? { authorization: `Bearer ${target.token}` } : {};
  const cpuBefore = target.pid === undefined ? undefined : processCpuMicros(target.pid);
  const result = await autocannon({ url: target.url, connections, duration, headers });
  const cpuAfter = target.pid === undefined ? undefined : processCpuMicros(target.pid);
  return {
    requestsPerSecond: result.requests.total / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total: result.requests.total,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, Number(count)])),
    ...(cpuBefore !== undefined && cpuAfter !== undefined && result.requests.total > 0 ? { cpuMicrosPerRequest: (cpuAfter - cpuBefore) / result.requests.total } : {}),
  };
}

const plan = JSON.parse(process.argv[2] ?? '{}') as LoadPlan;
run: for (let round = 1; round <= plan.rounds; round++) {
  process.stderr.write(`bench: round ${round}/${plan.rounds}\n`);
  const warmup = round === 1 ? plan.firstWarmupSeconds : plan.warmupSeconds;
  for (let k = 0; k < plan.targets.length; k++) {
    const index = (round - 1 + k) % plan.targets.length;
    const target = plan.targets[index] as LoadTarget;
    if (warmup > 0) await load(target, plan.connections, warmup);
    const window: LoadWindow = { round, target: index, ...(await load(target, plan.connections, plan.durationSeconds)) };
    process.stdout.write(`${JSON.stringify(window)}\n`);
    // The orchestrator reports the failed window; the rounds left would only take time.
    if (failed(window)) break run;
  }
}
