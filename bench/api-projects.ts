// `make bench`: throughput and latency of `GET /v1/projects` on a real cw-api (member token, answered from
// the informer cache) against `GET /hello` on bare Fastify, same Node, same machine, loaded one after the
// other in interleaved rounds (bare, bare with access log, cw-api, cw-api at warn; again), medians reported.
// Starts what it needs (a local control plane, no MinIO or moto), every server and every load run in a child
// process of its own. Prints PASS/MISS against the targets; exits non-zero only when the run itself failed (a
// server did not start, a request failed, a response was not 2xx). See bench/README.md.
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
import type { LoadResult, LoadSpec } from './load.ts';

const TARGET_RATIO = 0.6;
const TARGET_P99_MS = 10;

const { values: flags } = parseArgs({
  options: {
    connections: { type: 'string', default: '64' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '5' },
  },
});
const connections = Number(flags.connections);
const durationSeconds = Number(flags.duration);
const warmupSeconds = Number(flags.warmup);
const rounds = Number(flags.rounds);

interface Target {
  label: string;
  url: string;
  token?: string;
}

const run = benchRun();
const { stateDir, stops } = run;
const node = toolPath('node');

function say(message: string): void {
  process.stdout.write(`bench: ${message}\n`);
}

async function startServer(name: string, script: string, env: NodeJS.ProcessEnv, healthPath: string): Promise<string> {
  const port = await freePort();
  const service: Service = spawnToFile({
    name,
    command: node,
    args: [join(repoRoot, script)],
    env: { ...process.env, ...env, PORT: String(port), CW_API_HOST: '127.0.0.1', CW_API_PORT: String(port) },
    logPath: join(stateDir, `${name}.log`),
  });
  stops.push(() => service.stop());
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(service, `${url}${healthPath}`, 60_000);
  return url;
}

/** After the first round the servers' code is optimised: a second of warm-up opens the connections. */
const LATER_WARMUP_SECONDS = 1;

async function measure(target: Target, round: number): Promise<LoadResult> {
  const warmup = round === 1 ? warmupSeconds : Math.min(warmupSeconds, LATER_WARMUP_SECONDS);
  const spec: LoadSpec = { url: target.url, token: target.token, connections, warmupSeconds: warmup, durationSeconds };
  say(`round ${round}/${rounds}, loading ${target.label.replace(/\s+/g, ' ')}: ${connections} connections, ${warmup} s warm-up + ${durationSeconds} s`);
  const result = JSON.parse(await runToCompletion(node, [join(repoRoot, 'bench/load.ts'), JSON.stringify(spec)])) as LoadResult;
  if (result.errors > 0 || result.non2xx > 0 || result.total === 0) {
    throw new Error(`${target.label}: ${result.errors} errors, ${result.timeouts} timeouts, status codes ${JSON.stringify(result.statusCodes)}`);
  }
  return result;
}

async function main(): Promise<void> {
  const t0 = Date.now();
  const cluster = await startControlPlane({ stateDir, throwaway: true });
  stops.push(() => cluster.stop());
  await installCrds(cluster.kubeconfig);
  const member = await createMemberAccount(cluster.kubeconfig, 'bench');

  // The per-caller rate limit (50/s by default) would answer nearly every request with 429; it is raised
  // out of reach, so its bookkeeping is still measured but never refuses.
  const apiEnv = { KUBECONFIG: cluster.kubeconfig, CW_API_RATE_LIMIT: '1000000000', CW_API_RATE_BURST: '1000000000' };
  const [bare, bareLogged, apiShipped, apiQuiet] = await Promise.all([
    startServer('bare-fastify', 'bench/bare-fastify.ts', {}, '/hello'),
    startServer('bare-fastify-logged', 'bench/bare-fastify.ts', { BENCH_ACCESS_LOG: '1' }, '/hello'),
    startServer('cw-api', 'bin/cw-api.ts', apiEnv, '/healthz'),
    startServer('cw-api-warn', 'bin/cw-api.ts', { ...apiEnv, CW_LOG_LEVEL: 'warn' }, '/healthz'),
  ]);
  for (const url of [apiShipped, apiQuiet]) {
    const res = await fetch(`${url}/v1/projects`, { headers: { authorization: `Bearer ${member.token}` } });
    const body = (await res.json()) as { projects?: { project_id: string }[] };
    if (res.status !== 200 || body.projects?.[0]?.project_id !== member.project) {
      throw new Error(`GET ${url}/v1/projects answered ${res.status} ${JSON.stringify(body)}, not the member's project`);
    }
  }
  say(`servers ready in ${((Date.now() - t0) / 1000).toFixed(1)} s; logs in ${stateDir}`);

  const plain: Target = { label: 'bare Fastify  GET /hello (no logger)', url: `${bare}/hello` };
  const logged: Target = { label: 'bare Fastify  GET /hello (access log, info)', url: `${bareLogged}/hello` };
  const targets: Target[] = [
    plain,
    logged,
    { label: 'cw-api        GET /v1/projects (info, as shipped)', url: `${apiShipped}/v1/projects`, token: member.token },
    { label: 'cw-api        GET /v1/projects (warn: no access log)', url: `${apiQuiet}/v1/projects`, token: member.token },
  ];
  // Interleaved (A B C D, A B C D, …) so a burst of other load on the machine hits every target alike.
  const results = new Map<Target, LoadResult[]>(targets.map((target) => [target, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const target of targets) {
      results.get(target)?.push(await measure(target, round));
    }
  }
  report(targets, results);
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

function report(targets: Target[], results: Map<Target, LoadResult[]>): void {
  const fastify = (JSON.parse(readFileSync(join(repoRoot, 'node_modules/fastify/package.json'), 'utf8')) as { version: string }).version;
  const of = (target: Target): LoadResult[] => results.get(target) ?? [];
  // Each round's ratio against the same round's reference, then the median of those.
  const ratio = (target: Target, reference: Target): number => median(of(target).map((r, i) => r.requestsPerSecond / (of(reference)[i]?.requestsPerSecond ?? Number.NaN)));
  const plain = targets[0] as Target;
  const logged = targets[1] as Target;
  const rows = targets.map((target) => ({
    label: target.label,
    rps: median(of(target).map((r) => r.requestsPerSecond)),
    p50: median(of(target).map((r) => r.p50Ms)),
    p99: median(of(target).map((r) => r.p99Ms)),
    plain: target === plain ? 1 : ratio(target, plain),
    logged: target === plain ? undefined : ratio(target, logged),
    all: of(target).map((r) => r.requestsPerSecond.toFixed(0)).join(' '),
  }));
  const lines = [
    '',
    `Node ${process.version}, Fastify ${fastify}; ${connections} connections, ${warmupSeconds} s warm-up (then ${Math.min(warmupSeconds, LATER_WARMUP_SECONDS)} s), ${durationSeconds} s measured; ${rounds} interleaved rounds, medians`,
    `${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the end (anything else running moves these numbers)`,
    '',
    `${'server and route'.padEnd(54)}${'req/s'.padStart(8)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'× bare'.padStart(8)}${'× bare+log'.padStart(12)}   req/s per round`,
    ...rows.map(
      (row) =>
        `${row.label.padEnd(54)}${row.rps.toFixed(0).padStart(8)}${row.p50.toFixed(0).padStart(8)}${row.p99.toFixed(0).padStart(8)}${row.plain.toFixed(2).padStart(8)}${(row.logged === undefined ? '' : row.logged.toFixed(2)).padStart(12)}   ${row.all}`,
    ),
    '',
    `targets for cw-api as shipped: throughput ≥ ${TARGET_RATIO} × bare Fastify (no logger), p99 < ${TARGET_P99_MS} ms`,
    ...rows.slice(2).flatMap((row) => {
      const name = row.label.replace(/\s+/g, ' ');
      return [
        `  ${row.plain >= TARGET_RATIO ? 'PASS' : 'MISS'} throughput  ${name}: ${row.plain.toFixed(2)} × bare (${(row.logged ?? 0).toFixed(2)} × bare with the same access log)`,
        `  ${row.p99 < TARGET_P99_MS ? 'PASS' : 'MISS'} p99         ${name}: ${row.p99.toFixed(0)} ms`,
      ];
    }),
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

await runBench(run, main);
