// The metrics of a real cw-git (startService) on MinIO, each moved by the event it counts and read as Prometheus
// would, from `GET /metrics`: the store behind a proxy that fails chosen requests, real git pushes and clones,
// crafted pushes for what git never sends. (`service_push_refused_total{reason="draining"}`: drain.int.test.ts.)
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { GitClient } from '../e2e/harness/git-client.ts';
import { gitServiceConfig, newTokenSecret } from '../e2e/harness/git-service.ts';
import { FLUSH, pktLine } from './plumbing/pkt-line.ts';
import { runGit } from '../src/git/run-git.ts';
import { HERMETIC_GIT_ENV, ScratchRepo } from '../src/git/testing/scratch-repo.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { COMPACT_EVERY } from '../src/repo-store/pending.ts';
import { RepoStore, zeroOid } from '../src/repo-store/index.ts';
import { mintToken } from './auth/index.ts';
import { parseConfig } from './config/index.ts';
import { startService, type RunningService } from './serve.ts';
import { scrape } from './testing/scrape.ts';

const Z = zeroOid('sha1');
const SECRET = newTokenSecret();
const token = mintToken({ sub: 'ada', scopes: ['read', 'write'] }, SECRET);
const authorization = `Bearer ${token}`;
const MAX_PACK_BYTES = 64 * 1024;
const STALL_THRESHOLD_MS = 100;

/** Which store requests the proxy fails: method and object key. */
type FailRule = (method: string, key: string) => boolean;

/** An HTTP proxy in front of MinIO that answers S3's 503 ServiceUnavailable to the requests `fail` picks. */
async function startStoreProxy(target: string, bucket: string): Promise<{ endpoint: string; fail: FailRule | undefined; close: () => Promise<void> }> {
  const upstream = new URL(target);
  const proxy = {
    endpoint: '',
    fail: undefined as FailRule | undefined,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    const key = decodeURIComponent(new URL(req.url ?? '/', 'http://store').pathname.slice(`/${bucket}/`.length));
    if (proxy.fail?.(req.method ?? 'GET', key)) {
      req.resume();
      req.once('end', () => {
        res.writeHead(503, { 'content-type': 'application/xml' });
        res.end('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>ServiceUnavailable</Code><Message>failed by the test</Message></Error>');
      });
      return;
    }
    // The signature covers Host: it is forwarded as the client sent it.
    const { expect: _continue, ...headers } = req.headers;
    const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.once('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}

/** `count` requests matching `rule`, then none. */
function times(count: number, rule: FailRule): FailRule {
  let left = count;
  return (method, key) => left > 0 && rule(method, key) && left-- > 0;
}

/** Blocks this thread, and the event loop with it, for `ms`. */
function blockEventLoop(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

let proxy: Awaited<ReturnType<typeof startStoreProxy>>;
let service: RunningService;
let cacheDir: string;
let git: GitClient;
/** The bucket without the proxy, for what the test itself writes and checks. */
let bucket: S3ObjectStore;
let direct: RepoStore;

beforeAll(async () => {
  proxy = await startStoreProxy(inject('s3').endpoint!, inject('bucket'));
  const { text, env, dir } = await gitServiceConfig({ s3: { ...inject('s3'), endpoint: proxy.endpoint }, bucket: inject('bucket'), tokenSecret: SECRET });
  // An evictor pass every 50 ms: the disk gauge is set within the test. (The serve role only, the harness's
  // default: no maintainer's store requests among the ones counted here.)
  const config = parseConfig(text, { ...env, SERVICE__CACHE__EVICT_INTERVAL: '50ms' }, { source: 'test config', baseDir: dir });
  cacheDir = config.cache.dir;
  service = await startService(config, { logLevel: 'error', runtimeStallThresholdMs: STALL_THRESHOLD_MS, limits: { maxPackBytes: MAX_PACK_BYTES } });
  git = await GitClient.create();
  bucket = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket'), registry: new Registry() });
  direct = new RepoStore({ store: bucket, registry: new Registry() });
});
afterAll(async () => {
  await service?.stop();
  bucket?.destroy();
  await proxy?.close();
});

const metrics = () => scrape(service.url, token);
const remote = (repo: string) => `${service.url.replace('http://', `http://git:${token}@`)}/${repo}`;

async function createRepo(): Promise<string> {
  const repo = `metrics/r-${randomBytes(4).toString('hex')}`;
  expect((await fetch(`${service.url}/${repo}`, { method: 'PUT', headers: { authorization } })).status).toBe(201);
  return repo;
}

/** A working repository with one commit of `files` on main. */
async function workWith(files: Record<string, string>): Promise<{ dir: string; commit: string }> {
  const dir = await git.workdir(`w-${randomBytes(4).toString('hex')}`);
  await git.run(['init', '-q'], { cwd: dir });
  return { dir, commit: await git.commit(dir, 'first', files) };
}

/** A push by hand (what git never sends): one command (`old new ref`), then `pack`; answers the report's lines. */
async function rawPush(repo: string, command: string, pack: Buffer): Promise<string[]> {
  const response = await fetch(`${service.url}/${repo}/git-receive-pack`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/x-git-receive-pack-request' },
    body: Buffer.concat([pktLine(`${command}\0report-status\n`), FLUSH, pack]),
  });
  expect(response.status).toBe(200);
  // pkt-lines: 4 hex digits of length, then the line.
  return [...(await response.text()).matchAll(/[0-9a-f]{4}((?:unpack|ok|ng) [^\n]*)\n/g)].map((m) => m[1]!);
}

describe('cw-git metrics', () => {
  it('counts store requests by operation and outcome: ok, not_found, precondition_failed', async () => {
    const before = await metrics();
    const count = (m: typeof before, outcome: string, op: string) => m.value('service_store_requests_total', { op, outcome }) ?? 0;
    const repo = await createRepo();
    await git.run(['ls-remote', remote(repo)]);
    // A repository nobody created: its manifest is not there.
    expect((await fetch(`${service.url}/metrics/absent/info/refs?service=git-upload-pack`, { headers: { authorization } })).status).toBe(404);
    // The name is taken: the manifest's If-None-Match put fails.
    expect((await fetch(`${service.url}/${repo}`, { method: 'PUT', headers: { authorization } })).status).toBe(409);
    const after = await metrics();
    expect(count(after, 'ok', 'put') - count(before, 'ok', 'put')).toBeGreaterThanOrEqual(1);
    expect(count(after, 'ok', 'get') - count(before, 'ok', 'get')).toBeGreaterThanOrEqual(1);
    expect(count(after, 'not_found', 'get') - count(before, 'not_found', 'get')).toBeGreaterThanOrEqual(1);
    expect(count(after, 'precondition_failed', 'put') - count(before, 'precondition_failed', 'put')).toBe(1);
  });

  it('retries a store request that failed with a retryable error, counting each failed attempt; past the budget, 503 store_unavailable', async () => {
    const repo = await createRepo();
    const manifestGet: FailRule = (method, key) => method === 'GET' && key === `repos/${repo}/manifest.json`;
    const read = async () => {
      const m = await metrics();
      return { failed: m.value('service_store_requests_total', { op: 'get', outcome: 'retryable_error' }) ?? 0, retries: m.value('service_store_retries_total', { op: 'get' }) ?? 0 };
    };
    const before = await read();
    proxy.fail = times(2, manifestGet);
    try {
      expect(await git.out(['ls-remote', remote(repo)])).toBe('');
      const retried = await read();
      expect([retried.failed - before.failed, retried.retries - before.retries]).toEqual([2, 2]);

      // Every attempt fails: four attempts, three retries, then the answer says to come back.
      proxy.fail = manifestGet;
      const refused = await fetch(`${service.url}/${repo}/info/refs?service=git-upload-pack`, { headers: { authorization } });
      expect([refused.status, (await refused.json()) as unknown]).toEqual([503, expect.objectContaining({ error: 'store_unavailable', retryable: true })]);
      const exhausted = await read();
      expect([exhausted.failed - retried.failed, exhausted.retries - retried.retries]).toEqual([4, 3]);
    } finally {
      proxy.fail = undefined;
    }
  });

  it('counts a maintenance marker the writer failed to put; the push itself succeeds', async () => {
    const repo = await createRepo();
    // COMPACT_EVERY - 1 packs published straight to the bucket; the service's push adds the one that makes
    // compaction due, so it puts the repository's marker, which the store refuses.
    const work = await ScratchRepo.create();
    const commits: string[] = [];
    for (let i = 1; i < COMPACT_EVERY; i++) commits.push(await work.commit('main', { 'n.txt': `${i}\n` }));
    const packs = await Promise.all(commits.map((commit, i) => work.pack([commit], commits.slice(i - 1, i))));
    for (const [i, commit] of commits.entries()) {
      const refUpdates = [{ ref: 'refs/heads/main', old: commits[i - 1] ?? Z, new: commit }];
      const pack = { body: packs[i]!.pack, idx: packs[i]!.idx };
      expect((await direct.publish(repo, { kind: 'push', refUpdates, pack, pusher: 'seed', requestId: `seed-${i}`, atomic: true })).outcome).toBe('published');
    }
    const last = await work.commit('main', { 'n.txt': 'last\n' });
    const before = await metrics();
    proxy.fail = (method, key) => method === 'PUT' && key.startsWith('pending/');
    try {
      await git.run(['push', remote(repo), 'main'], { cwd: work.dir });
    } finally {
      proxy.fail = undefined;
    }
    const after = await metrics();
    expect((after.value('service_pending_marker_put_failures_total') ?? 0) - (before.value('service_pending_marker_put_failures_total') ?? 0)).toBe(1);
    expect((after.value('service_store_retries_total', { op: 'put' }) ?? 0) - (before.value('service_store_retries_total', { op: 'put' }) ?? 0)).toBe(3);
    expect((await direct.readHead(repo)).refs.get('refs/heads/main')).toBe(last);
    expect(await bucket.head(`pending/${repo}.json`)).toBeUndefined();
    await work.remove();
  });

  it('counts refused pushes by reason: body, unpack, connectivity', async () => {
    const repo = await createRepo();
    const refused = async () => {
      const m = await metrics();
      return Object.fromEntries(['body', 'unpack', 'connectivity'].map((reason) => [reason, m.value('service_push_refused_total', { reason }) ?? 0]));
    };
    const before = await refused();

    // body: a pack over the limit (random bytes do not compress).
    const big = await workWith({ 'big.bin': randomBytes(2 * MAX_PACK_BYTES).toString('base64') });
    const tooBig = await git.run(['push', remote(repo), 'main'], { cwd: big.dir, okCodes: [0, 1] });
    expect(tooBig.stderr.toString()).toMatch(/unpack(?:er error| failed)/);

    // unpack: bytes that are not a pack.
    expect(await rawPush(repo, `${Z} ${big.commit} refs/heads/main`, Buffer.from('PACK, or not'))).toEqual([expect.stringMatching(/^unpack index-pack failed/), 'ng refs/heads/main unpacker error']);

    // connectivity: a commit whose parent is neither in the pack nor on the server.
    const dir = await git.workdir(`orphan-${randomBytes(4).toString('hex')}`);
    const plumb = async (args: string[], stdin?: string) => (await runGit(['-C', dir, ...args], { env: HERMETIC_GIT_ENV, ...(stdin === undefined ? {} : { stdin }) })).stdout.toString().trim();
    await plumb(['init', '-q']);
    const blob = await plumb(['hash-object', '-w', '--stdin'], 'base\n');
    const tree = await plumb(['mktree'], `100644 blob ${blob}\tbase.txt\n`);
    const base = await plumb(['commit-tree', tree, '-m', 'base']);
    const child = await plumb(['commit-tree', tree, '-p', base, '-m', 'child']);
    const pack = (await runGit(['-C', dir, 'pack-objects', '--stdout', '--revs'], { stdin: `${child}\n^${base}\n` })).stdout;
    expect(await rawPush(repo, `${Z} ${child} refs/heads/child`, pack)).toEqual(['unpack ok', 'ng refs/heads/child missing necessary objects']);

    const after = await refused();
    expect({ body: after.body! - before.body!, unpack: after.unpack! - before.unpack!, connectivity: after.connectivity! - before.connectivity! }).toEqual({ body: 1, unpack: 1, connectivity: 1 });
    expect((await direct.readHead(repo)).seq).toBe(0);
  });

  it('counts a published pack the cache could not take, for a push and for an API write; the next sync downloads it', async () => {
    const failures = async () => (await metrics()).value('service_publish_local_apply_failed_total') ?? 0;
    const before = await failures();
    /** Takes the pack directory from the repository's cached copy, its objects kept loose: git reads them all, a pack cannot move in. */
    const withoutPackDir = async (repo: string) => {
      await git.run(['ls-remote', remote(repo)]);
      const copy = join(cacheDir, 'repos', `${repo}.git`);
      const packDir = join(copy, 'objects', 'pack');
      const packs = await Promise.all((await readdir(packDir)).filter((name) => name.endsWith('.pack')).map((name) => readFile(join(packDir, name))));
      await rm(packDir, { recursive: true });
      for (const pack of packs) await runGit(['-C', copy, 'unpack-objects', '-q'], { stdin: pack });
      return packDir;
    };
    const work = await workWith({ 'a.txt': 'a\n' });

    const pushed = await createRepo();
    const packDir = await withoutPackDir(pushed);
    await git.run(['push', remote(pushed), 'main'], { cwd: work.dir });
    expect(await failures()).toBe(before + 1);
    await mkdir(packDir);
    const clone = await git.workdir(`clone-${randomBytes(4).toString('hex')}`);
    await git.run(['clone', '-q', remote(pushed), clone]);
    expect(await git.out(['rev-parse', 'HEAD'], clone)).toBe(work.commit);

    const written = await createRepo();
    await git.run(['push', remote(written), 'main'], { cwd: work.dir });
    await withoutPackDir(written);
    const commit = await fetch(`${service.url}/${written}/api/commits`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({
        branch: 'main',
        message: 'From HTTP',
        committer: { name: 'Ada', email: 'ada@example.com' },
        changes: [{ op: 'upsert', path: 'hello.txt', content: Buffer.from('hi\n').toString('base64'), mode: '100644' }],
      }),
    });
    expect(commit.status).toBe(201);
    expect(await failures()).toBe(before + 2);
  });

  it('gauges the requests in flight', async () => {
    const repo = await createRepo();
    const inflight = async () => (await metrics()).value('service_http_inflight');
    // The scrape itself is one.
    expect(await inflight()).toBe(1);
    // A fetch whose request never ends: upload-pack waits for the rest of it.
    const { port } = new URL(service.url);
    const held = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: `/${repo}/git-upload-pack`,
      headers: { authorization, 'content-type': 'application/x-git-upload-pack-request', 'git-protocol': 'version=2' },
    });
    held.on('error', () => {});
    held.write(pktLine('command=ls-refs\n'));
    try {
      await vi.waitFor(async () => expect(await inflight()).toBe(2));
    } finally {
      held.destroy();
    }
    await vi.waitFor(async () => expect(await inflight()).toBe(1));
  });

  it('gauges the used fraction of the cache disk after an evictor pass', async () => {
    await vi.waitFor(async () => expect((await metrics()).value('service_cache_disk_used_fraction')).toBeGreaterThan(0));
    expect((await metrics()).value('service_cache_disk_used_fraction')).toBeLessThanOrEqual(1);
  });

  it('counts an event loop stall', async () => {
    const stalls = async () => (await metrics()).value('service_runtime_stall_total');
    const before = await stalls();
    expect(before).toBeTypeOf('number');
    blockEventLoop(2 * STALL_THRESHOLD_MS + 100);
    await vi.waitFor(async () => expect(await stalls()).toBeGreaterThan(before!));
  });
});
