// cw-git's /openapi.json against what real clients meet, beyond schemathesis' reach (its run reads the JSON API
// only): stock git and git-lfs push and clone through a recording proxy, plain HTTP creates and deletes a
// repository, uploads and downloads LFS objects, provokes each refusal a route has, and reads /readyz while an
// instance drains. Every (method, path, status, content type) seen must be an answer the served document lists for
// that operation, with that media type (or no body where it lists none).
import { randomBytes, createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mintToken } from '../git-server/auth/index.ts';
import type { RunningService } from '../git-server/serve.ts';
import { scrape } from '../git-server/testing/scrape.ts';
import { GitClient } from './harness/git-client.ts';
import { newTokenSecret, startGitService, type GitServiceSetup } from './harness/git-service.ts';

interface Observation {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** The media type, without parameters; undefined when the answer had none. */
  readonly type: string | undefined;
  /** Whether the answer had a body (HEAD answers never do). */
  readonly body: boolean;
}

interface Operation {
  responses: Record<string, { content?: Record<string, unknown> }>;
}
type OpenApi = { paths: Record<string, Record<string, Operation>> };

/**
 * What `observed` shows that `doc` does not list: an operation it lacks, a status it does not list for it, a media
 * type none of its answers for that status has, or a body where it lists none. Paths no operation matches are
 * left out: they are no route, and answer 401 or 404 like any unknown path (git-lfs asks for `locks/verify`).
 */
export function undocumented(doc: OpenApi, observed: readonly Observation[]): string[] {
  const templates = Object.keys(doc.paths).map((path) => ({
    path,
    pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    params: (path.match(/\{/g) ?? []).length,
  }));
  const problems = new Set<string>();
  for (const o of observed) {
    const matching = templates.filter((t) => t.pattern.test(o.path)).sort((a, b) => a.params - b.params);
    const template = matching.find((t) => doc.paths[t.path]![o.method.toLowerCase()]);
    const name = `${o.method} ${matching[0]?.path ?? o.path}`;
    if (!template) {
      // A path the document knows, with a method it does not list, answers 405 with `Allow`.
      if (matching.length > 0 && o.status !== 405) problems.add(`${name}: no such operation, yet answered ${o.status}`);
      continue;
    }
    const answer = doc.paths[template.path]![o.method.toLowerCase()]!.responses[String(o.status)];
    if (!answer) {
      problems.add(`${o.method} ${template.path}: ${o.status} is not documented`);
      continue;
    }
    const types = Object.keys(answer.content ?? {});
    if (types.length === 0 ? o.body : o.type !== undefined && !types.includes(o.type)) {
      problems.add(`${o.method} ${template.path} ${o.status}: ${o.type ?? 'no content type'} (${o.body ? 'a body' : 'no body'}) is not among [${types.join(', ')}]`);
    }
  }
  return [...problems];
}

function observation(method: string, path: string, status: number, headers: IncomingHttpHeaders | Headers): Observation {
  const get = (name: string) => (headers instanceof Headers ? (headers.get(name) ?? undefined) : (headers[name] as string | undefined));
  const type = get('content-type')?.split(';')[0]?.trim().toLowerCase() || undefined;
  const length = get('content-length');
  const body = method !== 'HEAD' && status !== 204 && status !== 304 && (length === undefined ? get('transfer-encoding') !== undefined : Number(length) > 0);
  return { method, path, status, type, body };
}

/** A proxy in front of `target` that records every answer; the Host header passes unchanged, so LFS links point back here. */
async function recordingProxy(target: string, seen: Observation[]): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      seen.push(observation(req.method ?? 'GET', (req.url ?? '/').split('?')[0]!, answer.statusCode ?? 0, answer.headers));
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.once('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const setup: GitServiceSetup = { s3: inject('s3'), bucket: inject('bucket'), tokenSecret: newTokenSecret(), drainTimeout: '30s' };
const writeToken = mintToken({ sub: 'ada', scopes: ['read', 'write'] }, setup.tokenSecret);
const readToken = mintToken({ sub: 'reader', scopes: ['read'] }, setup.tokenSecret);
const seen: Observation[] = [];
let service: RunningService;
let proxy: Awaited<ReturnType<typeof recordingProxy>>;
let git: GitClient;
let doc: OpenApi;

beforeAll(async () => {
  [service, git] = await Promise.all([startGitService(setup), GitClient.create()]);
  proxy = await recordingProxy(service.url, seen);
  doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as OpenApi;
});
afterAll(async () => {
  await proxy?.close();
  await service?.stop();
});

/** A request straight to `url`, recorded; `token` null sends none. */
async function call(url: string, path: string, init: RequestInit & { token?: string | null } = {}): Promise<Response> {
  const { token = writeToken, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (token !== null) headers.set('authorization', `Bearer ${token}`);
  const response = await fetch(`${url}${path}`, { ...rest, headers });
  await response.arrayBuffer();
  seen.push(observation(rest.method ?? 'GET', path.split('?')[0]!, response.status, response.headers));
  return response;
}

const lfsJson = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/vnd.git-lfs+json', accept: 'application/vnd.git-lfs+json' }, body: JSON.stringify(body) });

describe('the served OpenAPI document lists every answer real clients meet', () => {
  it('the checker finds an undocumented status, media type and body', () => {
    const problems = undocumented(doc, [
      { method: 'GET', path: '/healthz', status: 418, type: 'application/json', body: true },
      { method: 'GET', path: '/metrics', status: 200, type: 'text/html', body: true },
      { method: 'DELETE', path: '/o/r', status: 204, type: undefined, body: true },
      { method: 'PATCH', path: '/o/r', status: 200, type: 'application/json', body: true },
      { method: 'GET', path: '/o/r/info/refs', status: 200, type: 'application/x-git-upload-pack-advertisement', body: true },
      { method: 'POST', path: '/o/r/info/lfs/locks/verify', status: 404, type: 'application/json', body: true },
    ]);
    expect(problems).toEqual([
      'GET /healthz: 418 is not documented',
      'GET /metrics 200: text/html (a body) is not among [text/plain]',
      'DELETE /{owner}/{repo} 204: no content type (a body) is not among []',
      'PATCH /{owner}/{repo}: no such operation, yet answered 200',
    ]);
  });

  it('git and git-lfs push and clone, repositories are created and deleted, and each refusal is documented', { timeout: 120_000 }, async () => {
    const repo = `e2e/oa-${randomBytes(4).toString('hex')}`;
    const url = proxy.url;
    expect((await call(url, `/${repo}`, { method: 'PUT' })).status).toBe(201);
    expect((await call(url, `/${repo}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: 'null' })).status).toBe(409);
    expect((await call(url, '/e2e/bad..name', { method: 'PUT' })).status).toBe(400);
    expect((await call(url, `/${repo}-x`, { method: 'PUT', headers: { 'content-type': 'application/xml' }, body: '<x/>' })).status).toBe(415);
    // Straight to the service: it answers an over-long body before reading it, which the proxy would turn into a reset.
    expect((await call(service.url, `/${repo}-x`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ default_branch: 'x'.repeat(70_000) }) })).status).toBe(413);
    expect((await call(url, `/${repo}-x`, { method: 'PUT', token: readToken })).status).toBe(403);

    // Stock git and git-lfs, through the proxy: the 401 challenge, both advertisements, upload and receive-pack, LFS.
    const remote = `${url.replace('http://', `http://git:${writeToken}@`)}/${repo}`;
    const work = await git.workdir(`oa-${randomBytes(3).toString('hex')}`);
    await git.run(['init', '-q'], { cwd: work });
    await git.run(['lfs', 'track', '*.bin'], { cwd: work });
    const large = randomBytes(256 * 1024);
    await writeFile(join(work, 'model.bin'), large);
    await git.commit(work, 'first', { 'README.md': 'hello\n' });
    await git.run(['push', '-q', remote, 'main'], { cwd: work });
    await git.run(['clone', '-q', remote, join(git.home, `clone-${randomBytes(3).toString('hex')}`)]);
    await git.run(['-c', 'protocol.version=0', 'ls-remote', remote]);

    // LFS by hand: the object routes' answers and the batch API's refusals.
    const oid = createHash('sha256').update(large).digest('hex');
    const lfs = `/${repo}/info/lfs`;
    expect((await call(url, `${lfs}/objects/${oid}`, { method: 'HEAD' })).status).toBe(200);
    expect((await call(url, `${lfs}/objects/${oid}`)).status).toBe(200);
    expect((await call(url, `${lfs}/objects/${'0'.repeat(64)}`)).status).toBe(404);
    expect((await call(url, `${lfs}/objects/${'0'.repeat(64)}`, { method: 'HEAD' })).status).toBe(404);
    expect((await call(url, `${lfs}/objects/not-an-oid`)).status).toBe(422);
    const small = Buffer.from('small object\n');
    const smallOid = createHash('sha256').update(small).digest('hex');
    expect((await call(url, `${lfs}/objects/${smallOid}?size=${small.length}`, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: small })).status).toBe(200);
    expect((await call(url, `${lfs}/objects/${smallOid}?size=1`, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: small })).status).toBe(422);
    expect((await call(url, `${lfs}/objects/${'1'.repeat(64)}`, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: small })).status).toBe(422);
    expect((await call(url, `${lfs}/verify`, lfsJson({ oid: smallOid, size: small.length }))).status).toBe(200);
    expect((await call(url, `${lfs}/verify`, lfsJson({ oid: smallOid, size: 1 }))).status).toBe(422);
    expect((await call(url, `${lfs}/verify`, lfsJson({ oid: '2'.repeat(64), size: 1 }))).status).toBe(404);
    expect((await call(url, `${lfs}/objects/batch`, lfsJson({ operation: 'download', objects: [{ oid, size: large.length }] }))).status).toBe(200);
    expect((await call(url, `${lfs}/objects/batch`, { ...lfsJson({ operation: 'upload', objects: [] }), token: readToken })).status).toBe(403);
    expect((await call(url, `${lfs}/objects/batch`, lfsJson({ operation: 'download', objects: [], hash_algo: 'sha1' }))).status).toBe(409);
    expect((await call(url, `${lfs}/objects/batch`, lfsJson({ operation: 'download', objects: [], transfers: ['tus'] }))).status).toBe(422);
    expect((await call(url, `${lfs}/objects/batch`, lfsJson({ operation: 'sideways' }))).status).toBe(422);
    expect((await call(url, `${lfs}/objects/batch`, { ...lfsJson({}), body: '{' })).status).toBe(400);
    expect((await call(url, `${lfs}/objects/batch`, { ...lfsJson({}), headers: { 'content-type': 'application/xml' }, body: '<x/>' })).status).toBe(415);
    expect((await call(service.url, `${lfs}/objects/batch`, lfsJson({ operation: 'download', objects: [], ref: { name: 'x'.repeat(2 << 20) } }))).status).toBe(413);

    // Git smart HTTP by hand: the dumb protocol, the wrong body type, a malformed push, the missing repository.
    expect((await call(url, `/${repo}/info/refs`)).status).toBe(403);
    expect((await call(url, `/${repo}/info/refs?service=git-receive-pack`, { token: readToken })).status).toBe(403);
    expect((await call(url, `/${repo}/info/refs?service=git-upload-pack`, { token: null })).status).toBe(401);
    expect((await call(url, `/${repo}/git-upload-pack`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '0000' })).status).toBe(415);
    expect((await call(url, `/${repo}/git-receive-pack`, { method: 'POST', headers: { 'content-type': 'application/x-git-receive-pack-request' }, body: '0010not a command0000' })).status).toBe(400);
    expect((await call(url, `/e2e/missing-${randomBytes(3).toString('hex')}/info/refs?service=git-upload-pack`)).status).toBe(404);

    // The service routes.
    expect((await call(url, '/healthz', { token: null })).status).toBe(200);
    expect((await call(url, '/readyz', { token: null })).status).toBe(200);
    expect((await call(url, '/metrics')).status).toBe(200);
    expect((await call(url, '/metrics', { token: mintToken({ sub: 'one', scopes: ['read'], repos: [repo] }, setup.tokenSecret) })).status).toBe(403);

    expect((await call(url, `/${repo}`, { method: 'DELETE' })).status).toBe(204);
    expect((await call(url, `/${repo}`, { method: 'DELETE' })).status).toBe(404);
    expect((await call(url, `${lfs}/objects/batch`, lfsJson({ operation: 'download', objects: [] }))).status).toBe(404);

    const statuses = new Set(seen.map((o) => `${o.method} ${o.status}`));
    // The clients' own traffic was recorded: the challenge, the push and the clone.
    expect([...statuses]).toEqual(expect.arrayContaining(['GET 401', 'POST 200', 'PUT 200']));
    expect(seen.some((o) => o.path.endsWith('/git-receive-pack') && o.status === 200)).toBe(true);
    expect(seen.some((o) => o.path.endsWith('/git-upload-pack') && o.status === 200)).toBe(true);
    expect(undocumented(doc, seen)).toEqual([]);
  });

  it('a draining instance answers /readyz and new git work with the documented 503', { timeout: 60_000 }, async () => {
    const draining = await startGitService(setup);
    const repo = `e2e/oa-${randomBytes(4).toString('hex')}`;
    const observed: Observation[] = [];
    const record = async (path: string, init: RequestInit & { token?: string | null } = {}) => {
      const before = seen.length;
      const response = await call(draining.url, path, init);
      observed.push(...seen.splice(before));
      return response;
    };
    let stopped: Promise<void> | undefined;
    try {
      expect((await record(`/${repo}`, { method: 'PUT' })).status).toBe(201);
      // A fetch whose request never ends keeps the drain waiting (for `drain_timeout`, 30 s here) while we look.
      const held = httpRequest(`${draining.url}/${repo}/git-upload-pack`, {
        method: 'POST',
        headers: { authorization: `Bearer ${writeToken}`, 'content-type': 'application/x-git-upload-pack-request', 'git-protocol': 'version=2' },
      });
      held.once('error', () => {});
      held.write('0014command=ls-refs\n');
      await waitFor(async () => ((await scrape(draining.url, writeToken)).value('service_http_inflight') ?? 0) >= 2);
      stopped = draining.stop();
      await waitFor(async () => (await fetch(`${draining.url}/readyz`)).status === 503);
      expect((await record('/readyz', { token: null })).status).toBe(503);
      expect((await record(`/${repo}/info/refs?service=git-upload-pack`)).status).toBe(503);
      expect((await record(`/${repo}/info/lfs/objects/batch`, lfsJson({ operation: 'download', objects: [] }))).status).toBe(503);
      held.destroy();
    } finally {
      await (stopped ?? draining.stop());
    }
    expect(observed.map((o) => o.status)).toEqual([201, 503, 503, 503]);
    expect(undocumented(doc, observed)).toEqual([]);
  });
});

/** Polls `probe` (a state change the test cannot be told of) until it holds; fails after 20 s. */
async function waitFor(probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error('condition not met within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
