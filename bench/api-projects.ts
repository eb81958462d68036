// `make bench`: throughput and latency of `GET /v1/projects` on a real cw-api (member token, answered from
// the informer cache) against `GET /hello` on bare Fastify, same Node, same machine, loaded one after the
// other in many short interleaved rounds (bare, bare with access log, bare on cw-api's server, cw-api,
// cw-api at warn; the order rotating), each round's ratio taken against the same round's bare Fastify,
// medians reported.
// Starts what it needs (a local control plane, no MinIO or moto), every server and the load generator in a
// child process of its own. Prints PASS/MISS against the targets; exits non-zero only when the run itself
// failed (a server did not start, a request failed, a response was not 2xx). See bench/README.md.
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { benchRun, runBench } from './run.ts';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createMemberAccount } from '../e2e/harness/accounts.ts';
import { startControlPlane } from '../e2e/harness/control-plane.ts';
import { installCrds } from '../e2e/harness/install-crds.ts';
import { freePort, waitForHttp, type Service } from '../e2e/harness/process.ts';
import { repoRoot, toolPath } from '../e2e/harness/tools.ts';
import { runToCompletion, spawnToFile } from './child.ts';
import { failed, type LoadPlan, type LoadResult, type LoadWindow } from './load-plan.ts';

// Against bare Fastify listening with cw-api's own server options: the ratio of cw-api's own work alone (issue 38).
const TARGET_RATIO = 0.8;
const TARGET_P99_MS = 5;

const { values: flags } = parseArgs({
  options: {
    connections: { type: 'string', default: '64' },
    duration: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '12' },
    // Another checkout of the repository (the build before a change, say; its `make setup` done): its cw-api
    // is loaded as one more target, as shipped, so two builds compare in the same rounds.
    compare: { type: 'string' },
  },
});
/** A flag's value as a number at least `min`, or a one-line error naming the flag. */
function numberFlag(name: keyof typeof flags, min: number, integer = false): number {
  const value = Number(flags[name]);
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    process.stderr.write(`bench: --${name} must be ${integer ? 'a whole number' : 'a number'} of at least ${min}, not ${JSON.stringify(flags[name])}\n`);
    process.exit(2);
  }
  return value;
}
const connections = numberFlag('connections', 1, true);
const durationSeconds = numberFlag('duration', 1);
const warmupSeconds = numberFlag('warmup', 0);
const rounds = numberFlag('rounds', 1, true);

interface Target {
  label: string;
  url: string;
  token?: string;
  pid?: number;
}

interface Server {
  url: string;
  pid: number | undefined;
}

const run = benchRun();
const { stateDir, stops } = run;
const node = toolPath('node');

function say(message: string): void {
  process.stdout.write(`bench: ${message}\n`);
}

async function startServer(name: string, script: string, env: NodeJS.ProcessEnv, healthPath: string, root = repoRoot): Promise<Server> {
  const port = await freePort();
  const service: Service = spawnToFile({
    name,
    command: node,
    args: [...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean), join(root, script)],
    env: { ...process.env, ...env, PORT: String(port), CW_API_HOST: '127.0.0.1', CW_API_PORT: String(port) },
    logPath: join(stateDir, `${name}.log`),
  });
  stops.push(() => service.stop());
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(service, `${url}${healthPath}`, 60_000);
  return { url, pid: service.child.pid };
}

/** After the first round the servers' code is optimised: a second of warm-up opens the connections. */
const laterWarmupSeconds = Math.min(warmupSeconds, 1);

/** Loads every target in `rounds` rounds through one load-generator process; each target's windows in round order. */
async function measure(targets: Target[]): Promise<Map<Target, LoadResult[]>> {
  const plan: LoadPlan = {
    targets: targets.map(({ url, token, pid }) => ({ url, token, pid })),
    connections,
    rounds,
    firstWarmupSeconds: warmupSeconds,
    warmupSeconds: laterWarmupSeconds,
    durationSeconds,
  };
  say(`${targets.length} targets × ${rounds} rounds of ${durationSeconds} s at ${connections} connections (${warmupSeconds} s warm-up per target in the first round, then ${laterWarmupSeconds} s)`);
  const output = await runToCompletion(node, [join(repoRoot, 'bench/load.ts'), JSON.stringify(plan)]);
  const windows = output
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as LoadWindow);
  const results = new Map<Target, LoadResult[]>(targets.map((target) => [target, []]));
  for (const window of windows.sort((a, b) => a.round - b.round)) {
    const target = targets[window.target] as Target;
    if (failed(window)) {
      throw new Error(`${target.label}: ${window.errors} errors, ${window.timeouts} timeouts, status codes ${JSON.stringify(window.statusCodes)}`);
    }
    results.get(target)?.push(window);
  }
  return results;
}

async function main(): Promise<void> {
  const t0 = Date.now();
  const cluster = await startControlPlane({ stateDir, throwaway: true });
  stops.push(() => cluster.stop());
  await installCrds(cluster.kubeconfig);
  const member = await createMemberAccount(cluster.kubeconfig, 'bench');

  // The per-caller rate limit (50/s by default) would answer nearly every request with 429; it is raised
  // out of reach, so its bookkeeping is still measured but never refuses.
  const apiEnv = { KUBECONFIG: cluster.kubeconfig, CW_API_RATE_LIMIT: '1000000000', CW_API_RATE_BURST: '1000000000', CW_API_IN_FLIGHT_PER_USER: '100000' };
  const [bare, bareLogged, bareSameServer, apiShipped, apiQuiet, apiCompared] = await Promise.all([
    startServer('bare-fastify', 'bench/bare-fastify.ts', {}, '/hello'),
    startServer('bare-fastify-logged', 'bench/bare-fastify.ts', { BENCH_ACCESS_LOG: '1' }, '/hello'),
    startServer('bare-fastify-api-server', 'bench/bare-fastify.ts', { BENCH_API_SERVER: '1' }, '/hello'),
    startServer('cw-api', 'bin/cw-api.ts', apiEnv, '/healthz'),
    startServer('cw-api-warn', 'bin/cw-api.ts', { ...apiEnv, CW_LOG_LEVEL: 'warn' }, '/healthz'),
    ...(flags.compare === undefined ? [] : [startServer('cw-api-compared', 'bin/cw-api.ts', apiEnv, '/healthz', flags.compare)]),
  ]);
  for (const { url } of [apiShipped, apiQuiet, ...(apiCompared ? [apiCompared] : [])]) {
    const res = await fetch(`${url}/v1/projects`, { headers: { authorization: `Bearer ${member.token}` } });
    const body = (await res.json()) as { projects?: { project_id: string }[] };
    if (res.status !== 200 || body.projects?.[0]?.project_id !== member.project) {
      throw new Error(`GET ${url}/v1/projects answered ${res.status} ${JSON.stringify(body)}, not the member's project`);
    }
  }
  say(`servers ready in ${((Date.now() - t0) / 1000).toFixed(1)} s; logs in ${stateDir}`);

  const at = (server: Server, path: string) => ({ url: `${server.url}${path}`, ...(server.pid === undefined ? {} : { pid: server.pid }) });
  const plain: Target = { label: 'bare Fastify  GET /hello (no logger)', ...at(bare, '/hello') };
  const logged: Target = { label: 'bare Fastify  GET /hello (access log, info)', ...at(bareLogged, '/hello') };
  const sameServer: Target = { label: "bare Fastify  GET /hello (cw-api's server, no logger)", ...at(bareSameServer, '/hello') };
  const targets: Target[] = [
    plain,
    logged,
    sameServer,
    { label: 'cw-api        GET /v1/projects (info, as shipped)', ...at(apiShipped, '/v1/projects'), token: member.token },
    { label: 'cw-api        GET /v1/projects (warn: no access log)', ...at(apiQuiet, '/v1/projects'), token: member.token },
    ...(apiCompared ? [{ label: 'cw-api        GET /v1/projects (--compare, info)', ...at(apiCompared, '/v1/projects'), token: member.token }] : []),
  ];
  report(targets, await measure(targets));
}

/** The `q` quantile (0…1) of `values`, interpolating between neighbours; `median` is `quantile(values, 0.5)`. */
const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((x, y) => x - y);
  const position = (sorted.length - 1) * q;
  const below = sorted[Math.floor(position)] ?? Number.NaN;
  const above = sorted[Math.ceil(position)] ?? Number.NaN;
  return below + (above - below) * (position - Math.floor(position));
};
const median = (values: number[]): number => quantile(values, 0.5);

function report(targets: Target[], results: Map<Target, LoadResult[]>): void {
  const fastify = (JSON.parse(readFileSync(join(repoRoot, 'node_modules/fastify/package.json'), 'utf8')) as { version: string }).version;
  const of = (target: Target): LoadResult[] => results.get(target) ?? [];
  // Each round's ratio against the same round's reference, then the median of those.
  const ratios = (target: Target, reference: Target): number[] => of(target).map((r, i) => r.requestsPerSecond / (of(reference)[i]?.requestsPerSecond ?? Number.NaN));
  const ratio = (target: Target, reference: Target): number => median(ratios(target, reference));
  // By CPU time per request the other way round (the reference's over the target's): the share of the
  // reference's speed the target would have if only its own work counted.
  const cpuOf = (target: Target): number[] => of(target).map((r) => r.cpuMicrosPerRequest ?? Number.NaN);
  const cpuRatios = (target: Target, reference: Target): number[] => cpuOf(target).map((cpu, i) => (cpuOf(reference)[i] ?? Number.NaN) / cpu);
  const [plain, logged, sameServer, shippedApi] = targets as [Target, Target, Target, Target];
  const rows = targets.map((target) => ({
    label: target.label,
    rps: median(of(target).map((r) => r.requestsPerSecond)),
    p50: median(of(target).map((r) => r.p50Ms)),
    p99: median(of(target).map((r) => r.p99Ms)),
    cpu: median(cpuOf(target)),
    plain: target === plain ? 1 : ratio(target, plain),
    logged: target === plain ? undefined : ratio(target, logged),
    sameServer: target === plain || target === logged ? undefined : ratio(target, sameServer),
    cpuSameServer: target === plain || target === logged ? undefined : median(cpuRatios(target, sameServer)),
    range: `${Math.min(...of(target).map((r) => r.requestsPerSecond)).toFixed(0)}–${Math.max(...of(target).map((r) => r.requestsPerSecond)).toFixed(0)}`,
  }));
  const fixed = (value: number | undefined, digits: number): string => (value === undefined || Number.isNaN(value) ? '' : value.toFixed(digits));
  const shipped = ratios(shippedApi, plain);
  const shippedSameServer = ratios(shippedApi, sameServer);
  const shippedCpu = cpuRatios(shippedApi, sameServer);
  const lines = [
    '',
    `Node ${process.version}, Fastify ${fastify}; ${connections} connections, ${warmupSeconds} s warm-up (then ${laterWarmupSeconds} s), ${durationSeconds} s measured; ${rounds} interleaved rounds, medians`,
    `${cpus().length} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at the end (anything else running moves these numbers)`,
    '',
    `${'server and route'.padEnd(54)}${'req/s'.padStart(8)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'CPU µs/req'.padStart(12)}${'× bare'.padStart(8)}${'× bare+log'.padStart(12)}${'× same server'.padStart(15)}${'(by CPU)'.padStart(10)}   req/s, slowest–fastest round`,
    ...rows.map(
      (row) =>
        `${row.label.padEnd(54)}${row.rps.toFixed(0).padStart(8)}${row.p50.toFixed(0).padStart(8)}${row.p99.toFixed(0).padStart(8)}${fixed(row.cpu, 1).padStart(12)}${row.plain.toFixed(2).padStart(8)}${fixed(row.logged, 2).padStart(12)}${fixed(row.sameServer, 2).padStart(15)}${fixed(row.cpuSameServer, 2).padStart(10)}   ${row.range}`,
    ),
    '',
    `cw-api as shipped against bare Fastify, round by round: median ${median(shipped).toFixed(2)}, quartiles ${quantile(shipped, 0.25).toFixed(2)}–${quantile(shipped, 0.75).toFixed(2)}`,
    `cw-api as shipped against bare Fastify on cw-api's server (Node's optimizeEmptyRequests), round by round: median ${median(shippedSameServer).toFixed(2)}, quartiles ${quantile(shippedSameServer, 0.25).toFixed(2)}–${quantile(shippedSameServer, 0.75).toFixed(2)}, ${shippedSameServer.filter((r) => r >= TARGET_RATIO).length} of ${shippedSameServer.length} rounds at ≥ ${TARGET_RATIO}`,
    `  the same by server CPU time per request (that server's µs ÷ cw-api's, from /proc): median ${fixed(median(shippedCpu), 2)}, quartiles ${fixed(quantile(shippedCpu, 0.25), 2)}–${fixed(quantile(shippedCpu, 0.75), 2)}`,
    '',
    `targets for cw-api as shipped: throughput ≥ ${TARGET_RATIO} × bare Fastify on the same server (no logger), p99 < ${TARGET_P99_MS} ms`,
    ...rows.slice(3).flatMap((row) => {
      const name = row.label.replace(/\s+/g, ' ');
      const againstSame = row.sameServer ?? 0;
      return [
        `  ${againstSame >= TARGET_RATIO ? 'PASS' : 'MISS'} throughput  ${name}: ${againstSame.toFixed(2)} × the same server (${fixed(row.cpuSameServer, 2)} × by CPU per request; ${row.plain.toFixed(2)} × bare Fastify on its default server)`,
        `  ${row.p99 < TARGET_P99_MS ? 'PASS' : 'MISS'} p99         ${name}: ${row.p99.toFixed(0)} ms`,
      ];
    }),
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

await runBench(run, main);
