import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTar } from '../../../src/app-artifacts/tar.ts';
import type { BuildRunSpec, RunResult } from './build-runner.ts';
import { LocalBuildRunner } from './local-runner.ts';

// The URLs a build gets are presigned in production; here a small server plays the bucket.
let server: Server;
let base: string;
let work: string;
const uploads = new Map<string, Buffer>();
let source: Buffer;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'local-runner-'));
  const src = join(work, 'repo');
  mkdirSync(join(src, 'app'), { recursive: true });
  writeFileSync(join(src, 'app', 'worker.js'), 'export default {}');
  source = execFileSync('tar', ['-czf', '-', '-C', src, '.']);
  server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/source') return void res.end(source);
    if (req.method === 'PUT') return void buffer(req).then((body) => (uploads.set(req.url ?? '', body), res.end()));
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(() => {
  server.close();
  rmSync(work, { recursive: true, force: true });
});

const limits = { cpuMillis: 1000, memoryBytes: 256 * 1024 * 1024, diskBytes: 256 * 1024 * 1024, deadlineSeconds: 30 };

function spec(id: string, over: Partial<BuildRunSpec> = {}): BuildRunSpec {
  return { id, namespace: 'p', build: 'b', sourceUrl: `${base}/source`, outputUrl: `${base}/out/${id}`, outputDirectory: '.', environment: {}, limits, ...over };
}

/** Runs `s` to its end; `onLog` sees the log so far each time it grows. */
async function run(runner: LocalBuildRunner, s: BuildRunSpec, onLog?: (log: string) => void): Promise<{ result: RunResult; log: string }> {
  let log = '';
  const result = await new Promise<RunResult>((resolve) => {
    void runner.run(s, {
      log: (text) => {
        log += text;
        onLog?.(log);
      },
      finished: resolve,
    });
  });
  return { result, log };
}

describe('LocalBuildRunner', { timeout: 60_000 }, () => {
  const runner = new LocalBuildRunner({ workDir: join(tmpdir(), 'local-runner-work') });

  it('fetches the source, runs the command with only the build’s environment, and puts a tar of the output', async () => {
    process.env['CW_SECRET_OF_THE_OPERATOR'] = 'x';
    const { result, log } = await run(
      runner,
      spec('ok', { command: 'mkdir -p out && cp app/worker.js out/ && env | sort > out/env.txt && echo built', outputDirectory: 'out', environment: { GREETING: 'hello' } }),
    );
    expect(result).toEqual({ outcome: 'succeeded' });
    expect(log).toContain('built\n');
    const files = await readTar(uploads.get('/out/ok') ?? Buffer.alloc(0), { maxEntries: 10, maxPathBytes: 100 });
    expect(files.map((f) => f.path).sort()).toEqual(['env.txt', 'worker.js']);
    const env = Buffer.from(files.find((f) => f.path === 'env.txt')?.content ?? []).toString();
    expect(env).toContain('GREETING=hello');
    expect(env).toContain('CI=1');
    expect(env).not.toMatch(/CW_BUILD_|CW_SECRET_OF_THE_OPERATOR|KUBECONFIG|AWS_/);
  });

  it('fails with CommandFailed and the command’s output when the command fails', async () => {
    const { result, log } = await run(runner, spec('fails', { command: 'echo "missing script: build" >&2; exit 3' }));
    expect(result).toMatchObject({ outcome: 'failed', reason: 'CommandFailed' });
    expect(log).toContain('missing script: build');
    expect(log).toContain('the command exited with 3');
  });

  it('fails with OutputInvalid when the output directory is not there', async () => {
    const { result } = await run(runner, spec('no-output', { outputDirectory: 'dist' }));
    expect(result).toMatchObject({ outcome: 'failed', reason: 'OutputInvalid' });
  });

  it('kills a build past its deadline, with its children', async () => {
    const started = Date.now();
    const { result } = await run(runner, spec('slow', { command: 'sleep 60 & sleep 60', limits: { ...limits, deadlineSeconds: 2 } }));
    expect(result).toMatchObject({ outcome: 'failed', reason: 'DeadlineExceeded' });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('kills a build that uses more memory than its bound', async () => {
    const grow = `node -e "const a = []; setInterval(() => a.push(Buffer.alloc(16 << 20, 1)), 20)"`;
    const { result } = await run(runner, spec('memory', { command: grow, limits: { ...limits, memoryBytes: 128 * 1024 * 1024 } }));
    expect(result).toMatchObject({ outcome: 'failed', reason: 'ResourceLimitExceeded' });
    expect(result.outcome === 'failed' && result.message).toContain('128 MiB of memory');
  });

  it('leaves no process behind when the build ends, not even one that left its process group with setsid', async () => {
    expect(runner.contained).toBe(true);
    const marker = `sleep 300.${process.pid}${Date.now() % 100_000}`;
    const escaped = () => {
      try {
        return execFileSync('pgrep', ['-f', marker], { encoding: 'utf8' }).trim();
      } catch {
        return ''; // pgrep exits 1 when nothing matches
      }
    };
    const { result, log } = await run(
      runner,
      spec('detached', { command: `setsid sh -c 'exec ${marker}' > /dev/null 2>&1 < /dev/null & sleep 0.5; pgrep -f '${marker}' > /dev/null && echo detached` }),
    );
    expect(result).toEqual({ outcome: 'succeeded' });
    expect(log).toContain('detached\n');
    await expect.poll(escaped, { timeout: 5_000 }).toBe('');
  });

  it('stops a running build on request', async () => {
    const { result } = await run(runner, spec('stopped', { command: 'sleep 60' }), (log) => {
      if (log.includes('running: sleep 60')) void runner.stop('stopped');
    });
    expect(result).toEqual({ outcome: 'stopped' });
  });

  it('fails with SourceUnavailable when the source cannot be fetched', async () => {
    const { result } = await run(runner, spec('gone', { sourceUrl: `${base}/nothing` }));
    expect(result).toMatchObject({ outcome: 'failed', reason: 'SourceUnavailable' });
  });
});
