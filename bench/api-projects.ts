// `make bench`: throughput and latency of `GET /v1/projects` on a real cw-api (member token, answered from
// the informer cache) against `GET /hello` on bare Fastify, same Node, same machine, measured one after the
// other. Starts what it needs (a local control plane, no MinIO or moto), every server and every load run in
// a child process of its own. Prints PASS/MISS against the targets; exits non-zero only when the run itself
// failed (a server did not start, a request failed, a response was not 2xx). See bench/README.md.
import { readFileSync } from 'node:fs';
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
  },
});
const connections = Number(flags.connections);
const durationSeconds = Number(flags.duration);
const warmupSeconds = Number(flags.warmup);

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

async function measure(target: Target): Promise<LoadResult> {
  const spec: LoadSpec = { url: target.url, token: target.token, connections, warmupSeconds, durationSeconds };
  say(`loading ${target.label}: ${connections} connections, ${warmupSeconds} s warm-up + ${durationSeconds} s`);
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
  const [bare, apiShipped, apiQuiet] = await Promise.all([
    startServer('bare-fastify', 'bench/bare-fastify.ts', {}, '/hello'),
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

  const baseline = await measure({ label: 'bare Fastify GET /hello', url: `${bare}/hello` });
  const runs: [string, LoadResult][] = [['bare Fastify  GET /hello', baseline]];
  runs.push(['cw-api        GET /v1/projects (log level info, as shipped)', await measure({ label: 'cw-api GET /v1/projects', url: `${apiShipped}/v1/projects`, token: member.token })]);
  runs.push(['cw-api        GET /v1/projects (log level warn)', await measure({ label: 'cw-api (warn) GET /v1/projects', url: `${apiQuiet}/v1/projects`, token: member.token })]);

  report(runs, baseline);
}

function report(runs: [string, LoadResult][], baseline: LoadResult): void {
  const fastify = (JSON.parse(readFileSync(join(repoRoot, 'node_modules/fastify/package.json'), 'utf8')) as { version: string }).version;
  const lines = [
    '',
    `Node ${process.version}, Fastify ${fastify}; ${connections} connections, ${warmupSeconds} s warm-up, ${durationSeconds} s measured; one run after the other`,
    '',
    `${'server and route'.padEnd(62)}${'req/s'.padStart(10)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'ratio'.padStart(8)}`,
    ...runs.map(
      ([label, r]) =>
        `${label.padEnd(62)}${r.requestsPerSecond.toFixed(0).padStart(10)}${r.p50Ms.toFixed(0).padStart(9)}${r.p99Ms.toFixed(0).padStart(9)}${(r.requestsPerSecond / baseline.requestsPerSecond).toFixed(2).padStart(8)}`,
    ),
    '',
    `targets: throughput ≥ ${TARGET_RATIO} × bare Fastify, p99 < ${TARGET_P99_MS} ms`,
    ...runs.slice(1).flatMap(([label, r]) => {
      const ratio = r.requestsPerSecond / baseline.requestsPerSecond;
      const name = label.replace(/\s+/g, ' ');
      return [
        `  ${ratio >= TARGET_RATIO ? 'PASS' : 'MISS'} throughput  ${name}: ${ratio.toFixed(2)} × bare`,
        `  ${r.p99Ms < TARGET_P99_MS ? 'PASS' : 'MISS'} p99         ${name}: ${r.p99Ms.toFixed(0)} ms`,
      ];
    }),
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

await runBench(run, main);
