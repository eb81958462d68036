// Serving drain (spec "Server drain on SIGTERM") of a real cw-git on MinIO: `stop()`, what SIGTERM does, while 20
// real `git clone`s are in flight. The clones go through a proxy that holds back the last byte of each one's fetch
// request, so all 20 are being served (their requests being received) when the drain begins, and finish only when
// the test lets them: new work is refused meanwhile, and every clone in flight completes, those that then wait for a
// turn among the fetches running (`server.max_fetches_per_caller`) included: they are in flight, not new work.
import { randomBytes } from 'node:crypto';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { GitClient } from '../e2e/harness/git-client.ts';
import { newTokenSecret, startGitService } from '../e2e/harness/git-service.ts';
import { FLUSH, pktLine } from './plumbing/pkt-line.ts';
import { mintToken } from './auth/index.ts';
import type { RunningService } from './serve.ts';
import { scrape } from './testing/scrape.ts';

const CLONES = 20;
const SECRET = newTokenSecret();
const token = mintToken({ sub: 'ada', scopes: ['read', 'write'] }, SECRET);
const authorization = `Bearer ${token}`;

interface HoldingProxy {
  readonly url: string;
  /** Resolves once `count` fetch requests are held. */
  held(count: number): Promise<void>;
  /** Sends the held requests' last bytes. */
  release(): void;
  close(): Promise<void>;
}

/** A proxy in front of cw-git that sends every request on except the last byte of a fetch (`command=fetch`), until released. */
async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  const upstream = new URL(target);
  const releases: (() => void)[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => {
      const body = Buffer.concat(chunks);
      const text = req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
      const hold = req.method === 'POST' && (req.url ?? '').endsWith('/git-upload-pack') && text.includes('command=fetch');
      const { 'transfer-encoding': _chunked, ...headers } = req.headers;
      const out = request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...headers, 'content-length': String(body.length) }, agent: false },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.once('error', () => res.destroy());
      if (!hold) return void out.end(body);
      out.write(body.subarray(0, -1));
      releases.push(() => out.end(body.subarray(-1)));
      for (const waiter of waiters.filter((w) => releases.length >= w.count)) waiter.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held: (count) => (releases.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve }))),
    release: () => {
      for (const release of releases.splice(0)) release();
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let service: RunningService;
let proxy: HoldingProxy;
let git: GitClient;

beforeAll(async () => {
  // A drain timeout far longer than the test: the clones finish because they are let, not cut.
  [service, git] = await Promise.all([startGitService({ s3: inject('s3'), bucket: inject('bucket'), tokenSecret: SECRET, drainTimeout: '50s' }), GitClient.create()]);
  proxy = await startHoldingProxy(service.url);
});
afterAll(async () => {
  await service?.stop();
  await proxy?.close();
});

const status = async (path: string, init: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {}) => {
  const response = await fetch(`${service.url}${path}`, { ...init, headers: { authorization, ...init.headers } });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), error: response.status === 200 ? undefined : ((await response.json()) as { error?: string }).error };
};
const withToken = (url: string, repo: string) => `${url.replace('http://', `http://git:${token}@`)}/${repo}`;

describe('serving drain', () => {
  it('refuses new git and LFS work with 503 and Retry-After 15, keeps /healthz at 200, and lets 20 clones in flight finish', async () => {
    const repo = `drain/r-${randomBytes(4).toString('hex')}`;
    expect((await status(`/${repo}`, { method: 'PUT' })).status).toBe(201);
    const work = await git.workdir('work');
    await git.run(['init', '-q'], { cwd: work });
    await git.commit(work, 'first', { 'README.md': 'hello\n', 'src/a.txt': 'a\n' });
    const tip = await git.commit(work, 'second', { 'src/b.txt': randomBytes(64 * 1024).toString('hex') });
    await git.run(['push', '-q', withToken(service.url, repo), 'main'], { cwd: work });

    const clones = Promise.allSettled(Array.from({ length: CLONES }, (_, i) => git.run(['-c', 'protocol.version=2', 'clone', '-q', withToken(proxy.url, repo), join(git.home, `clone-${i}`)])));
    let stopped: Promise<void> | undefined;
    try {
      await proxy.held(CLONES);
      // Every held fetch is being served (the scrape is one more request).
      await vi.waitFor(async () => expect((await scrape(service.url, token)).value('service_http_inflight')).toBe(CLONES + 1));
      expect([(await status('/healthz')).status, (await status('/readyz')).status]).toEqual([200, 200]);

      stopped = service.stop();
      // Serving drain begins once the maintenance drain ends (at once: no maintenance runs here).
      await vi.waitFor(async () => expect((await status('/readyz')).status).toBe(503));
      const draining = { status: 503, retryAfter: '15', error: 'draining' };
      expect(await status('/readyz')).toEqual(draining);
      expect((await status('/healthz')).status).toBe(200);

      // New work: clone, fetch, push (a stock git and by hand), LFS object work.
      const clone = await git.run(['clone', '-q', withToken(service.url, repo), join(git.home, 'late-clone')], { okCodes: [128] });
      expect(clone.stderr.toString()).toContain('503');
      const push = await git.run(['push', withToken(service.url, repo), `${tip}:refs/heads/late`], { cwd: work, okCodes: [128] });
      expect(push.stderr.toString()).toContain('503');
      const uploadPack = { 'content-type': 'application/x-git-upload-pack-request', 'git-protocol': 'version=2' };
      expect(await status(`/${repo}/info/refs?service=git-upload-pack`)).toEqual(draining);
      expect(await status(`/${repo}/git-upload-pack`, { method: 'POST', headers: uploadPack, body: Buffer.concat([pktLine('command=ls-refs\n'), FLUSH]) })).toEqual(draining);
      expect(await status(`/${repo}/git-receive-pack`, { method: 'POST', headers: { 'content-type': 'application/x-git-receive-pack-request' }, body: FLUSH })).toEqual(draining);
      const lfs = { accept: 'application/vnd.git-lfs+json', 'content-type': 'application/vnd.git-lfs+json' };
      const oid = 'a'.repeat(64);
      expect(await status(`/${repo}/info/lfs/objects/batch`, { method: 'POST', headers: lfs, body: JSON.stringify({ operation: 'download', objects: [{ oid, size: 1 }] }) })).toEqual(draining);
      expect(await status(`/${repo}/info/lfs/objects/${oid}`)).toEqual(draining);
      // Both refused pushes are counted: git's at its ref advertisement, the one by hand at the push itself.
      expect((await scrape(service.url, token)).value('service_push_refused_total', { reason: 'draining' })).toBe(2);
    } finally {
      proxy.release();
    }
    for (const [i, done] of (await clones).entries()) {
      expect(done.status, `clone ${i}`).toBe('fulfilled');
      expect(await git.out(['rev-parse', 'HEAD'], join(git.home, `clone-${i}`))).toBe(tip);
    }
    // In flight no more: the instance waits out the load balancer's grace, still alive and still not ready.
    expect((await status('/healthz')).status).toBe(200);
    expect((await status('/readyz')).status).toBe(503);
    await stopped;
  });
});
