import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Registry } from 'prom-client';
import { beforeEach, describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../src/object-store/memory-object-store.ts';
import { StoreUnavailableError, type GetOptions } from '../src/object-store/object-store.ts';
import { ForwardingObjectStore } from '../src/object-store/testing/forwarding-object-store.ts';
import { RepoCache } from './plumbing/repo-cache.ts';
import { FLUSH, pktLine } from './plumbing/pkt-line.ts';
import { RepoStore } from '../src/repo-store/index.ts';
import { BucketRepositoryDirectory } from './repositories/bucket-repository-directory.ts';
import { buildGitServer } from './app.ts';
import { mintToken } from './auth/index.ts';
import { DrainState } from './drain.ts';
import { ServiceMetrics } from './metrics.ts';

const SECRET = 'app-test-secret-of-at-least-32-bytes!';
const write = { authorization: `Bearer ${mintToken({ sub: 'ada', scopes: ['read', 'write'] }, SECRET)}` };
const read = { authorization: `Bearer ${mintToken({ sub: 'rex', scopes: ['read'] }, SECRET)}` };

/** The bucket, switchable to "unreachable" the way S3ObjectStore reports a spent retry budget. */
class SwitchableStore extends ForwardingObjectStore {
  down = false;
  override get(key: string, options?: GetOptions) {
    if (this.down) return Promise.reject(new StoreUnavailableError('get', new Error('connect ECONNREFUSED')));
    return super.get(key, options);
  }
}

async function setup(options: { serve?: boolean } = {}) {
  const objects = new SwitchableStore(new MemoryObjectStore());
  const repos = new RepoStore({ store: objects });
  const cache = new RepoCache({ repos, dir: await mkdtemp(join(tmpdir(), 'cw-git-app-')) });
  const drain = new DrainState();
  const app = await buildGitServer({
    repos,
    objects,
    cache,
    directory: new BucketRepositoryDirectory(repos),
    auth: { tokenSecret: SECRET },
    metrics: new ServiceMetrics(new Registry()),
    drain,
    ...options,
  });
  return { app, objects, drain, repos };
}

let t: Awaited<ReturnType<typeof setup>>;
beforeEach(async () => {
  t = await setup();
});

describe('cw-git HTTP surface', () => {
  it('creates a repository once, and deletes it once', async () => {
    const created = await t.app.inject({ method: 'PUT', url: '/acme/site', headers: write });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ repository: { full_name: 'acme/site', default_branch: 'main', seq: '0', pristine: true } });
    const again = await t.app.inject({ method: 'PUT', url: '/acme/site', headers: write, payload: { default_branch: 'trunk' } });
    expect([again.statusCode, again.json().error]).toEqual([409, 'repository_exists']);
    expect((await t.app.inject({ method: 'DELETE', url: '/acme/site', headers: write })).statusCode).toBe(204);
    const gone = await t.app.inject({ method: 'DELETE', url: '/acme/site', headers: write });
    expect([gone.statusCode, gone.json().error]).toEqual([404, 'repository_not_found']);
  });

  it('answers a create while the name is still being deleted 409, retryable, with Retry-After', async () => {
    // The marker a deletion still sweeping leaves (repo-store scenarios cover the sweep itself).
    await t.objects.put('deleting/acme/busy.json', JSON.stringify({ at: new Date().toISOString() }));
    const busy = await t.app.inject({ method: 'PUT', url: '/acme/busy', headers: write });
    expect(busy.statusCode).toBe(409);
    expect(busy.headers['retry-after']).toBe('5');
    expect(busy.json()).toEqual({ error: 'repository_being_deleted', message: 'repository acme/busy is being deleted; create it again in a moment', retryable: true });
  });

  it('refuses bad names, bad bodies, missing tokens and missing scopes with a JSON error', async () => {
    const badName = await t.app.inject({ method: 'PUT', url: '/acme/site.git', headers: write });
    expect([badName.statusCode, badName.json().error]).toEqual([400, 'invalid_repository_name']);
    const badBody = await t.app.inject({ method: 'PUT', url: '/acme/x', headers: write, payload: { default_branch: '../x' } });
    expect(badBody.statusCode).toBe(400);
    const anonymous = await t.app.inject({ method: 'PUT', url: '/acme/x' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['www-authenticate']).toMatch(/^Basic realm="cw-git"/);
    const readOnly = await t.app.inject({ method: 'PUT', url: '/acme/x', headers: read });
    expect([readOnly.statusCode, readOnly.json().error]).toEqual([403, 'forbidden']);
    const pushAdvert = await t.app.inject({ method: 'GET', url: '/acme/x/info/refs?service=git-receive-pack', headers: read });
    expect(pushAdvert.statusCode).toBe(403);
  });

  it('answers a git request whose body is not what it says (corrupt gzip, not pkt-lines) 400, never 500', async () => {
    expect((await t.app.inject({ method: 'PUT', url: '/acme/site', headers: write })).statusCode).toBe(201);
    const truncated = gzipSync(Buffer.from('0000')).subarray(0, 8);
    for (const [service, type] of [
      ['git-receive-pack', 'application/x-git-receive-pack-request'],
      ['git-upload-pack', 'application/x-git-upload-pack-request'],
    ] as const) {
      for (const [body, encoding] of [
        [Buffer.from('not gzip at all'), 'gzip'],
        [truncated, 'gzip'],
        [Buffer.from('zzzz'), undefined],
      ] as const) {
        const headers = { ...write, 'content-type': type, ...(encoding ? { 'content-encoding': encoding } : {}) };
        const answer = await t.app.inject({ method: 'POST', url: `/acme/site/${service}`, headers, payload: body });
        // A push's body is never taken compressed (below): refused before it is read.
        const expected = service === 'git-receive-pack' && encoding ? [415, 'unsupported_media_type'] : [400, 'invalid_git_request'];
        expect([answer.statusCode, answer.json().error], `${service} ${encoding ?? 'plain'} ${body.length}`).toEqual(expected);
      }
    }
  });

  it('answers a method a path does not serve 405 with the Allow of the resource it names, in its JSON error body', async () => {
    // `/api/v1` also matches `/:owner/:repo`, but names the discovery document: GET and HEAD only. (Without
    // a token the answer is 401: cw-git authenticates whatever no public route serves.)
    expect((await t.app.inject({ method: 'OPTIONS', url: '/api/v1' })).statusCode).toBe(401);
    for (const method of ['OPTIONS', 'QUERY', 'POST'] as const) {
      const res = await t.app.inject({ method: method as 'GET', url: '/api/v1', headers: read });
      expect(res.statusCode, method).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD');
      expect(res.json()).toMatchObject({ error: 'method_not_allowed', retryable: false });
    }
    const repo = await t.app.inject({ method: 'PATCH', url: '/acme/site', headers: write });
    expect(repo.statusCode).toBe(405);
    expect(repo.headers.allow).toBe('DELETE, PUT');
    expect((await t.app.inject({ method: 'GET', url: '/a/b/c/d/e', headers: read })).json()).toMatchObject({ error: 'not_found' });
  });

  it('answers store_unavailable (503, retryable) while the bucket is unreachable; health and readiness stay up', async () => {
    await t.app.inject({ method: 'PUT', url: '/acme/site', headers: write });
    t.objects.down = true;
    const refs = await t.app.inject({ method: 'GET', url: '/acme/site/info/refs?service=git-upload-pack', headers: read });
    expect(refs.statusCode).toBe(503);
    expect(refs.json()).toMatchObject({ error: 'store_unavailable', retryable: true });
    expect(refs.headers['retry-after']).toBe('5');
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });

  it('takes git bodies only: a push or fetch a browser could send cross-site without asking (text/plain, a form) is refused', async () => {
    await t.app.inject({ method: 'PUT', url: '/acme/site', headers: write });
    for (const [route, type] of [
      ['git-receive-pack', 'text/plain'],
      ['git-receive-pack', 'application/x-www-form-urlencoded'],
      ['git-upload-pack', 'text/plain;charset=utf-8'],
      ['git-upload-pack', 'application/x-git-receive-pack-request'],
    ]) {
      const refused = await t.app.inject({ method: 'POST', url: `/acme/site/${route}`, headers: { ...write, 'content-type': type }, payload: '0000' });
      expect([refused.statusCode, refused.json().error], `${route} with ${type}`).toEqual([415, 'unsupported_media_type']);
    }
  });

  it('takes a push body as git sends it, not compressed: it would be inflated at no cost to the sender (review-177 F7)', async () => {
    await t.app.inject({ method: 'PUT', url: '/acme/site', headers: write });
    const compressed = gzipSync(Buffer.concat([pktLine(`${'0'.repeat(40)} ${'0'.repeat(40)} refs/heads/x\0report-status\n`), FLUSH, Buffer.alloc(1 << 20)]));
    const refused = await t.app.inject({
      method: 'POST',
      url: '/acme/site/git-receive-pack',
      headers: { ...write, 'content-type': 'application/x-git-receive-pack-request', 'content-encoding': 'gzip' },
      payload: compressed,
    });
    expect([refused.statusCode, refused.json().error]).toEqual([415, 'unsupported_media_type']);
    expect(refused.json().message).toContain('not compressed');
  });

  it('serves only smart HTTP, with a .git suffix accepted, and 404 for an unknown repository', async () => {
    await t.app.inject({ method: 'PUT', url: '/acme/site', headers: write });
    const advert = await t.app.inject({ method: 'GET', url: '/acme/site.git/info/refs?service=git-receive-pack', headers: write });
    expect(advert.statusCode).toBe(200);
    expect(advert.headers['content-type']).toBe('application/x-git-receive-pack-advertisement');
    expect(advert.body).toContain('# service=git-receive-pack');
    expect(advert.body).toContain('capabilities^{}\0report-status report-status-v2');
    const dumb = await t.app.inject({ method: 'GET', url: '/acme/site/info/refs', headers: read });
    expect([dumb.statusCode, dumb.json().error]).toEqual([403, 'smart_http_required']);
    const unknown = await t.app.inject({ method: 'GET', url: '/acme/nope/info/refs?service=git-upload-pack', headers: read });
    expect([unknown.statusCode, unknown.json().error]).toEqual([404, 'repository_not_found']);
  });

  it('drains: readiness and new git work answer 503 with Retry-After 15, liveness stays 200', async () => {
    await t.app.inject({ method: 'PUT', url: '/acme/site', headers: write });
    t.drain.start();
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect([ready.statusCode, ready.headers['retry-after']]).toEqual([503, '15']);
    const fetch = await t.app.inject({ method: 'GET', url: '/acme/site/info/refs?service=git-upload-pack', headers: read });
    expect([fetch.statusCode, fetch.headers['retry-after'], fetch.json().error]).toEqual([503, '15', 'draining']);
    const lfs = await t.app.inject({
      method: 'POST',
      url: '/acme/site/info/lfs/objects/batch',
      headers: { ...read, 'content-type': 'application/vnd.git-lfs+json' },
      payload: { operation: 'download', objects: [] },
    });
    expect(lfs.statusCode).toBe(503);
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('exposes metrics to a token holder only', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics', headers: read });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toContain('service_http_inflight');
    expect(metrics.body).toContain('service_push_refused_total');
  });
});

describe('an instance without the serve role', () => {
  it('answers 404 to git, LFS and the repository API, and still serves operations, the overview, health and metrics', async () => {
    const t = await setup({ serve: false });
    await t.repos.createRepo('acme/site');
    const status = async (method: 'GET' | 'PUT' | 'POST', url: string) => (await t.app.inject({ method, url, headers: write })).statusCode;
    expect(await status('GET', '/acme/site/info/refs?service=git-upload-pack')).toBe(404);
    expect(await status('POST', '/acme/site/info/lfs/objects/batch')).toBe(404);
    expect(await status('GET', '/acme/site/api')).toBe(404);
    expect(await status('PUT', '/acme/other')).toBe(404);
    expect(await status('GET', '/acme/site/api/ops')).toBe(200);
    expect(await status('GET', '/acme/site/api/overview')).toBe(200);
    expect(await status('GET', '/readyz')).toBe(200);
    expect(await status('GET', '/metrics')).toBe(200);
  });
});

describe('the LFS routes', () => {
  it('reach the bucket through a client of their own, so their lookups never queue manifest and log requests behind them (review-177 F5)', async () => {
    class CountingStore extends ForwardingObjectStore {
      lfsHeads = 0;
      override head(key: string) {
        if (key.includes('/lfs/')) this.lfsHeads++;
        return super.head(key);
      }
    }
    const bucket = new MemoryObjectStore();
    const objects = new CountingStore(bucket);
    const lfsObjects = new CountingStore(bucket);
    const repos = new RepoStore({ store: objects });
    await repos.createRepo('acme/site');
    const app = await buildGitServer({
      repos,
      objects,
      lfsObjects,
      cache: new RepoCache({ repos, dir: await mkdtemp(join(tmpdir(), 'cw-git-app-')) }),
      directory: new BucketRepositoryDirectory(repos),
      auth: { tokenSecret: SECRET },
      metrics: new ServiceMetrics(new Registry()),
      drain: new DrainState(),
    });
    const objectsOf = ['a', 'b', 'c'].map((c) => ({ oid: c.repeat(64), size: 1 }));
    const batch = await app.inject({
      method: 'POST',
      url: '/acme/site/info/lfs/objects/batch',
      headers: { ...read, 'content-type': 'application/vnd.git-lfs+json' },
      payload: JSON.stringify({ operation: 'download', objects: objectsOf }),
    });
    expect(batch.statusCode, batch.body).toBe(200);
    expect([lfsObjects.lfsHeads, objects.lfsHeads]).toEqual([3, 0]);
  });
});
