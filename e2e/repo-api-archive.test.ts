// Archives through the repository JSON API, byte for byte what `git archive` makes on a clone; the browser lane's
// CORS; discovery; and the service's OpenAPI document and reference. Two cw-git instances on one bucket: pushed
// through one, read through the other.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useGitTestbed } from './harness/git-testbed.ts';

const ALLOWED = 'https://console.example.com';
const bed = useGitTestbed({ corsOrigins: [ALLOWED] });

async function api(path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${bed.token}`, ...init.headers };
  return fetch(`${bed.b.url}${path}`, { ...init, headers });
}

/** The `error` code of a JSON error body. */
async function errorOf(response: Response): Promise<string> {
  return ((await response.json()) as { error: string }).error;
}

async function bytes(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer());
}

let repo: string;
let name: string;
let sha: string;
let clone: string;

/** `git archive` on the test's own clone, exactly as a user would run it. */
async function gitArchive(format: string, prefix: string, revision = sha): Promise<Buffer> {
  return (await bed.git.run(['archive', `--format=${format}`, `--prefix=${prefix}`, revision], { cwd: clone })).stdout;
}

beforeAll(async () => {
  repo = await bed.createRepo();
  name = repo.split('/')[1] ?? '';
  const work = await bed.git.workdir('archive');
  await bed.git.run(['init', '-q', '-b', 'main'], { cwd: work });
  await bed.git.commit(work, 'first', { 'README.md': '# hello\n' });
  // Enough incompressible bytes that ranges fall well inside the archive.
  sha = await bed.git.commit(work, 'second', { 'src/app.ts': 'export const x = 1;\n', 'data/blob.txt': randomBytes(96 * 1024).toString('base64') });
  await bed.git.run(['tag', 'v1'], { cwd: work });
  await bed.git.run(['push', '-q', bed.remote(bed.a, repo), 'main', 'v1'], { cwd: work });
  clone = join(bed.git.home, 'archive-clone');
  await bed.git.run(['clone', '-q', '--bare', bed.remote(bed.b, repo), clone]);
}, 60_000);

describe('GET|HEAD /api/archive/{archive_ref}', () => {
  it('answers a branch tar.gz byte for byte as git archive, under <repo>-<short sha>/, revalidated by its ETag', async () => {
    const response = await api(`/${repo}/api/archive/main.tar.gz`);
    expect(response.status).toBe(200);
    expect(Object.fromEntries(['content-type', 'content-disposition', 'accept-ranges', 'cache-control'].map((h) => [h, response.headers.get(h)]))).toEqual({
      'content-type': 'application/gzip',
      'content-disposition': `attachment; filename="${name}-${sha.slice(0, 7)}.tar.gz"`,
      'accept-ranges': 'bytes',
      'cache-control': 'no-cache',
    });
    const body = await bytes(response);
    expect(body.equals(await gitArchive('tar.gz', `${name}-${sha.slice(0, 7)}/`))).toBe(true);
    const etag = response.headers.get('etag') ?? '';
    expect(etag).toMatch(new RegExp(`^"${sha}-tar\\.gz-[0-9a-f]{16}"$`));
    const again = await api(`/${repo}/api/archive/main.tar.gz`, { headers: { 'if-none-match': etag } });
    expect([again.status, (await bytes(again)).length]).toEqual([304, 0]);
  });

  it('answers a full commit id zip with a prefix, immutable, and ?format= on a tag', async () => {
    const response = await api(`/${repo}/api/archive/${sha}.zip?prefix=site/`);
    expect([response.status, response.headers.get('content-type'), response.headers.get('cache-control')]).toEqual([200, 'application/zip', 'private, max-age=31536000, immutable']);
    expect((await bytes(response)).equals(await gitArchive('zip', 'site/'))).toBe(true);
    const byQuery = await api(`/${repo}/api/archive/v1?format=zip&prefix=`);
    expect((await bytes(byQuery)).equals(await gitArchive('zip', ''))).toBe(true);
  });

  it('answers HEAD with the size and no body, and ranges from the spooled archive', async () => {
    const whole = await gitArchive('tar.gz', `${name}-${sha.slice(0, 7)}/`);
    const head = await api(`/${repo}/api/archive/main.tar.gz`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), (await bytes(head)).length]).toEqual([200, String(whole.length), 0]);

    const part = await api(`/${repo}/api/archive/main.tar.gz`, { headers: { range: 'bytes=1000-4999' } });
    expect([part.status, part.headers.get('content-range'), part.headers.get('content-length')]).toEqual([206, `bytes 1000-4999/${whole.length}`, '4000']);
    expect((await bytes(part)).equals(whole.subarray(1000, 5000))).toBe(true);
    const tail = await api(`/${repo}/api/archive/main.tar.gz`, { headers: { range: 'bytes=-100' } });
    expect([tail.status, (await bytes(tail)).equals(whole.subarray(whole.length - 100))]).toEqual([206, true]);
    const stale = await api(`/${repo}/api/archive/main.tar.gz`, { headers: { range: 'bytes=0-9', 'if-range': '"something-else"' } });
    expect([stale.status, (await bytes(stale)).equals(whole)]).toEqual([200, true]);
    const past = await api(`/${repo}/api/archive/main.tar.gz`, { headers: { range: `bytes=${whole.length}-` } });
    expect([past.status, past.headers.get('content-range')]).toEqual([416, `bytes */${whole.length}`]);
  });

  it("makes an archive with export-subst placeholders from its own repository's refs, never another's, and anew after they change", async () => {
    // One commit in two repositories; its VERSION expands the refs that point at it (`$Format:%D$`).
    const [mine, theirs] = [await bed.createRepo(), await bed.createRepo()];
    const work = await bed.git.workdir('archive-subst');
    await bed.git.run(['init', '-q', '-b', 'main'], { cwd: work });
    const commit = await bed.git.commit(work, 'versioned', { '.gitattributes': 'VERSION export-subst\n', VERSION: 'refs: $Format:%D$\n' });
    for (const target of [mine, theirs]) await bed.git.run(['push', '-q', bed.remote(bed.a, target), 'main'], { cwd: work });
    await bed.git.run(['tag', 'acquisition-2027'], { cwd: work });
    await bed.git.run(['push', '-q', bed.remote(bed.a, mine), 'acquisition-2027'], { cwd: work });
    const archiveOf = async (target: string) => {
      const copy = join(bed.git.home, `subst-${target.replace('/', '-')}-${Date.now()}`);
      await bed.git.run(['clone', '-q', '--bare', bed.remote(bed.b, target), copy]);
      return (await bed.git.run(['archive', '--format=tar.gz', '--prefix=x/', commit], { cwd: copy })).stdout;
    };
    const path = (target: string) => `/${target}/api/archive/${commit}.tar.gz?prefix=x/`;
    expect((await api(path(mine), { method: 'HEAD' })).status).toBe(200); // spooled
    const first = await api(path(mine));
    expect(first.headers.get('cache-control')).toBe('no-cache'); // a full commit id, yet its bytes follow the refs
    expect((await bytes(first)).equals(await archiveOf(mine))).toBe(true);
    const other = await bytes(await api(path(theirs)));
    expect(other.equals(await archiveOf(theirs))).toBe(true); // not the archive spooled for `mine`, with its tag
    expect(other.equals(await archiveOf(mine))).toBe(false);
    // A new tag: another ETag, and the archive made again.
    await bed.git.run(['tag', 'v2'], { cwd: work });
    await bed.git.run(['push', '-q', bed.remote(bed.a, mine), 'v2'], { cwd: work });
    const after = await api(path(mine), { headers: { 'if-none-match': first.headers.get('etag') ?? '' } });
    expect(after.status).toBe(200);
    expect((await bytes(after)).equals(await archiveOf(mine))).toBe(true);
  });

  it('refuses what names no archive or no commit', async () => {
    const unnamed = await api(`/${repo}/api/archive/main`);
    expect([unnamed.status, await errorOf(unnamed)]).toEqual([400, 'invalid_request']);
    const missing = await api(`/${repo}/api/archive/no-such-branch.zip`);
    expect([missing.status, await errorOf(missing)]).toEqual([404, 'revision_not_found']);
    const escaping = await api(`/${repo}/api/archive/main.zip?prefix=../up/`);
    expect(escaping.status).toBe(400);
    expect((await api(`/${repo}/api/archive/main.zip`, { headers: { authorization: '' } })).status).toBe(401);
  });
});

describe('the /api-browser lane', () => {
  const path = () => `/${repo}/api-browser/archive/main.zip`;

  it('answers a listed origin with CORS headers, and its preflight', async () => {
    const response = await api(path(), { headers: { origin: ALLOWED, range: 'bytes=0-99' } });
    expect(response.status).toBe(206);
    expect(Object.fromEntries(['access-control-allow-origin', 'access-control-allow-credentials', 'access-control-expose-headers', 'vary'].map((h) => [h, response.headers.get(h)]))).toEqual({
      'access-control-allow-origin': ALLOWED,
      'access-control-allow-credentials': 'true',
      'access-control-expose-headers': 'ETag, Content-Range, Content-Length, Content-Disposition, Retry-After',
      vary: 'Origin',
    });
    expect((await bytes(response)).equals((await gitArchive('zip', `${name}-${sha.slice(0, 7)}/`)).subarray(0, 100))).toBe(true);
    // An error is readable by the page too.
    const unauthenticated = await fetch(`${bed.b.url}${path()}`, { headers: { origin: ALLOWED } });
    expect([unauthenticated.status, unauthenticated.headers.get('access-control-allow-origin')]).toEqual([401, ALLOWED]);

    const preflight = await fetch(`${bed.b.url}${path()}`, {
      method: 'OPTIONS',
      headers: { origin: ALLOWED, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization, range' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('GET');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('Authorization, If-None-Match, If-Range, Range, Content-Type');
    expect(preflight.headers.get('access-control-max-age')).toBe('600');
  });

  it('gives another origin no CORS headers, and refuses it anything but reads', async () => {
    const other = 'https://evil.example.com';
    const read = await api(path(), { headers: { origin: other } });
    expect([read.status, read.headers.get('access-control-allow-origin')]).toEqual([200, null]);
    await read.arrayBuffer();
    const post = await api(`/${repo}/api-browser/commits`, { method: 'POST', headers: { origin: other, 'content-type': 'application/json' }, body: '{}' });
    expect([post.status, await errorOf(post), post.headers.get('access-control-allow-origin')]).toEqual([403, 'origin_not_allowed', null]);
    const preflight = await fetch(`${bed.b.url}${path()}`, { method: 'OPTIONS', headers: { origin: other, 'access-control-request-method': 'GET' } });
    expect([preflight.status, preflight.headers.get('access-control-allow-origin')]).toEqual([403, null]);
    // Without Origin: as on /api.
    const plain = await api(`/${repo}/api-browser`);
    expect([plain.status, plain.headers.get('access-control-allow-origin'), ((await plain.json()) as { full_name: string }).full_name]).toEqual([200, null, repo]);
  });
});

describe('service-level routes', () => {
  it('GET /api/v1 describes the API to an authenticated caller', async () => {
    expect((await fetch(`${bed.b.url}/api/v1`)).status).toBe(401);
    const response = await api('/api/v1');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { endpoints: unknown[] };
    expect(body).toMatchObject({ name: 'cw-git', version: 1, base: '/{owner}/{repo}/api', browser_base: '/{owner}/{repo}/api-browser', auth: { scheme: 'bearer', scopes: ['read', 'write'] } });
    expect(body.endpoints).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ method: 'GET', path: '/', scope: 'read' }),
        expect.objectContaining({ method: 'GET', path: '/archive/{archive_ref}', scope: 'read' }),
        expect.objectContaining({ method: 'HEAD', path: '/archive/{archive_ref}', scope: 'read' }),
      ]),
    );
    expect(body.endpoints).not.toContainEqual(expect.objectContaining({ method: 'HEAD', path: '/' })); // Fastify's implicit HEAD twin
  });

  it('serves /openapi.json (the committed document) and /docs without a token', async () => {
    const response = await fetch(`${bed.b.url}/openapi.json`);
    expect(response.status).toBe(200);
    const served = (await response.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(served.openapi).toBe('3.1.0');
    expect(Object.keys(served.paths)).toEqual(expect.arrayContaining(['/{owner}/{repo}/api', '/{owner}/{repo}/api/archive/{archive_ref}', '/api/v1', '/{owner}/{repo}/git-upload-pack']));
    expect(served).toEqual(JSON.parse(await readFile(join(import.meta.dirname, '..', 'docs', 'cw-git-openapi.json'), 'utf8')));
    const docs = await fetch(`${bed.b.url}/docs`);
    expect([docs.status, docs.headers.get('content-type')]).toEqual([200, expect.stringContaining('text/html')]);
    expect(await docs.text()).toContain('swagger');
  });
});
