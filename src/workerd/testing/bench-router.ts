// Quick measurement: requests/s of the hello worker through the router vs straight to workerd's socket.
//   node src/workerd/testing/bench-router.ts [--connections 64] [--duration 10]
// Not a test; the real benchmark target comes later. Runs autocannon as a separate process.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import { RuntimeEngine } from '../engine.ts';
import { artifactFromFiles } from './artifact-builder.ts';
import { MemoryArtifactSource } from './memory-artifacts.ts';
import { silentRuntimeLogger } from '../log.ts';
import { renderWorkerdConfig } from '../workerd-config.ts';
import { resolveWorkerdBinary, WorkerdProcess } from '../workerd-process.ts';

/** The hello worker alone in a workerd listening on TCP, as clients reach the router. */
async function workerdOnTcp(dir: string): Promise<{ port: number; proc: WorkerdProcess }> {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
  writeFileSync(join(dir, 'worker.js'), worker);
  const config = renderWorkerdConfig({
    deployments: [
      {
        project: 'bench',
        appId: 'tcp',
        buildId: 'hello',
        socket: `127.0.0.1:${port}`,
        modules: [{ name: 'worker.js', type: 'esModule', embedPath: 'worker.js' }],
        env: { GREETING: 'Hello' },
        compatibilityDate: '2025-09-01',
        compatibilityFlags: [],
      },
    ],
  });
  writeFileSync(join(dir, 'tcp.capnp'), config.text);
  const proc = await WorkerdProcess.start({
    binary: resolveWorkerdBinary(),
    configPath: join(dir, 'tcp.capnp'),
    experimental: false,
    sockets: config.sockets.keys(),
    startTimeoutMs: 10_000,
    log: silentRuntimeLogger,
  });
  return { port, proc };
}

const { values } = parseArgs({ options: { connections: { type: 'string', default: '64' }, duration: { type: 'string', default: '10' } } });
const root = new URL('../../../', import.meta.url).pathname;
const autocannon = join(root, 'node_modules/.bin/autocannon');
const worker = readFileSync(join(root, 'docs/examples/hello-worker/worker.js'), 'utf8');

async function run(label: string, args: string[], duration = values.duration): Promise<number> {
  const { stdout } = await promisify(execFile)(autocannon, ['--json', '-c', values.connections, '-d', duration, ...args], { maxBuffer: 64 << 20 });
  const result = JSON.parse(stdout) as { requests: { average: number }; latency: { p99: number }; non2xx: number; errors: number };
  console.log(`${label.padEnd(28)} ${result.requests.average.toFixed(0).padStart(7)} req/s   p99 ${result.latency.p99} ms   non-2xx ${result.non2xx}   errors ${result.errors}`);
  return result.requests.average;
}

const dataDir = mkdtempSync(join(tmpdir(), 'cw-bench-'));
const engine = new RuntimeEngine({
  artifacts: new MemoryArtifactSource().put('hello', artifactFromFiles({ 'worker.js': worker })),
  dataDir,
  baseDomain: 'apps.test',
  defaultMaxConcurrentRequests: 10_000,
});
try {
  await engine.start();
  const { port } = await engine.router.listen(0);
  await engine.deploy({ project: 'bench', appId: 'hello', buildId: 'hello', env: { GREETING: 'Hello' }, hostnames: [] });
  const host = engine.defaultHost('bench', 'hello');
  const socketPath = join(dataDir, 'run', `g${engine.status().generation}`, '0.sock');
  const tcp = await workerdOnTcp(dataDir);
  try {
    await run('warm-up', ['-S', socketPath, `http://${host}/`], '2');
    const direct = await run('direct to workerd (TCP)', ['-H', `host=${host}`, `http://127.0.0.1:${tcp.port}/`]);
    const unix = await run('direct to workerd (unix)', ['-S', socketPath, `http://${host}/`]);
    const routed = await run('through the router', ['-H', `host=${host}`, `http://127.0.0.1:${port}/`]);
    console.log(`ratio router/direct: ${(routed / direct).toFixed(2)} (TCP), ${(routed / unix).toFixed(2)} (unix socket)`);
  } finally {
    await tcp.proc.stop();
  }
} finally {
  await engine.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
