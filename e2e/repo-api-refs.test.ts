// The JSON API's refs, resolve, tree and blob routes through two cw-git instances on one bucket: the stock git
// client pushes through one, the API is read through the other.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useGitTestbed } from './harness/git-testbed.ts';

const bed = useGitTestbed();

async function api(path: string, headers: Record<string, string> = {}, service: { url: string } = bed.b): Promise<Response> {
  return fetch(`${service.url}/${repo}/api${path}`, { headers: { authorization: `Bearer ${bed.token}`, ...headers } });
}

async function json(path: string, status = 200): Promise<unknown> {
  const response = await api(path);
  const body: unknown = await response.json();
  expect({ path, status: response.status }).toEqual({ path, status });
  return body;
}

const README = '# Demo\n\nA test repository.\n';
const APP_MAIN = 'console.log("main");\n';
const APP_LOGIN = 'console.log("login");\n';
const BINARY = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0xff, 0xfe]);
const BIG = 'x'
  .repeat(99)
  .concat('\n')
  .repeat(25 * 1024 + 1); // 2.5 MiB + 100 bytes of text
const LFS_OID = 'd'.repeat(64);
const LFS_POINTER = `version https://git-lfs.github.com/spec/v1\noid sha256:${LFS_OID}\nsize 12345\n`;

let repo = '';
let work = '';
const sha: Record<string, string> = {};
const rev = (spec: string) => bed.git.out(['rev-parse', spec], work);

beforeAll(async () => {
  repo = await bed.createRepo();
  work = await bed.git.workdir('refs-api');
  await bed.git.run(['init', '-q', '-b', 'main'], { cwd: work });
  await writeFile(join(work, 'logo.png'), BINARY);
  sha.main = await bed.git.commit(work, 'first', { 'README.md': README, 'src/app.js': APP_MAIN, 'docs/guide.md': 'guide\n', 'big.txt': BIG, 'model.bin': LFS_POINTER });
  await bed.git.run(['tag', 'v1'], { cwd: work });
  await bed.git.run(['tag', '-a', '-m', 'release two', 'v2'], { cwd: work });
  await bed.git.run(['branch', 'features'], { cwd: work });
  await bed.git.run(['checkout', '-q', '-b', 'feature/login'], { cwd: work });
  sha.login = await bed.git.commit(work, 'login', { 'src/app.js': APP_LOGIN });
  // A tag with a branch's name: the branch wins when resolving.
  await bed.git.run(['tag', 'features'], { cwd: work });
  await bed.git.run(['checkout', '-q', 'main'], { cwd: work });
  await bed.git.run(['push', '-q', bed.remote(bed.a, repo), 'refs/heads/main', 'refs/heads/features', 'refs/heads/feature/login', 'refs/tags/v1', 'refs/tags/v2', 'refs/tags/features'], { cwd: work });
  for (const [key, spec] of Object.entries({
    v2: 'v2',
    tree: 'main^{tree}',
    src: 'main:src',
    docs: 'main:docs',
    readme: 'main:README.md',
    app: 'main:src/app.js',
    appLogin: 'feature/login:src/app.js',
    logo: 'main:logo.png',
    big: 'main:big.txt',
    model: 'main:model.bin',
  })) {
    sha[key] = await rev(spec);
  }
}, 60_000);

describe('GET /refs', () => {
  it('answers the default ref', async () => {
    expect(await json('/refs')).toEqual({ head: { name: 'refs/heads/main', sha: sha.main } });
  });

  it('lists branches in byte order, a plain string prefix (whole segments with a trailing slash), a substring any case', async () => {
    expect(await json('/refs/branches')).toEqual({
      refs: [
        { name: 'feature/login', sha: sha.login },
        { name: 'features', sha: sha.main },
        { name: 'main', sha: sha.main },
      ],
      more: false,
    });
    const both = {
      refs: [
        { name: 'feature/login', sha: sha.login },
        { name: 'features', sha: sha.main },
      ],
      more: false,
    };
    expect(await json('/refs/branches?prefix=feat')).toEqual(both);
    expect(await json('/refs/branches?prefix=feature')).toEqual(both);
    expect(await json('/refs/branches?prefix=feature%2F')).toEqual({ refs: [{ name: 'feature/login', sha: sha.login }], more: false });
    expect(await json('/refs/branches?prefix=features')).toEqual({ refs: [{ name: 'features', sha: sha.main }], more: false });
    expect(await json('/refs/branches?prefix=mainline')).toEqual({ refs: [], more: false });
    expect(await json('/refs/branches?q=LOG')).toEqual({ refs: [{ name: 'feature/login', sha: sha.login }], more: false });
  });

  it('pages with after and n', async () => {
    expect(await json('/refs/branches?n=1')).toEqual({ refs: [{ name: 'feature/login', sha: sha.login }], more: true });
    expect(await json('/refs/branches?n=1&after=feature%2Flogin')).toEqual({ refs: [{ name: 'features', sha: sha.main }], more: true });
    expect(await json('/refs/branches?n=1&after=features')).toEqual({ refs: [{ name: 'main', sha: sha.main }], more: false });
  });

  it('lists tags, an annotated one with its tag object and the commit it peels to', async () => {
    expect(await json('/refs/tags')).toEqual({
      refs: [
        { name: 'features', sha: sha.login },
        { name: 'v1', sha: sha.main },
        { name: 'v2', sha: sha.v2, peeled: sha.main },
      ],
      more: false,
    });
  });

  it('refuses an unknown kind and a page size out of range', async () => {
    for (const path of ['/refs/notes', '/refs/branches?n=0', '/refs/branches?n=1001', '/refs/branches?n=ten']) {
      expect(await json(path, 400)).toMatchObject({ error: 'invalid_request', retryable: false });
    }
  });
});

describe('GET /resolve', () => {
  it('resolves the default ref, and the longest ref prefix of a revision-and-path', async () => {
    expect(await json('/resolve')).toEqual({ ref: 'refs/heads/main', sha: sha.main, path: '', kind: 'tree', object_sha: sha.tree });
    expect(await json('/resolve/feature/login/src/app.js')).toEqual({ ref: 'refs/heads/feature/login', sha: sha.login, path: 'src/app.js', kind: 'blob', object_sha: sha.appLogin });
    expect(await json('/resolve/main/src/app.js')).toEqual({ ref: 'refs/heads/main', sha: sha.main, path: 'src/app.js', kind: 'blob', object_sha: sha.app });
    expect(await json('/resolve/main/src/')).toEqual({ ref: 'refs/heads/main', sha: sha.main, path: 'src', kind: 'tree', object_sha: sha.src });
    expect(await json('/resolve/features')).toEqual({ ref: 'refs/heads/features', sha: sha.main, path: '', kind: 'tree', object_sha: sha.tree });
    expect(await json('/resolve/v2/docs')).toEqual({ ref: 'refs/tags/v2', sha: sha.main, path: 'docs', kind: 'tree', object_sha: sha.docs });
  });

  it('resolves an abbreviated object id (revalidated) and a full one (immutable)', async () => {
    const short = (sha.login ?? '').slice(0, 8);
    const abbreviated = await api(`/resolve/${short}/src/app.js`);
    expect(await abbreviated.json()).toEqual({ ref: null, sha: sha.login, path: 'src/app.js', kind: 'blob', object_sha: sha.appLogin });
    expect(abbreviated.headers.get('cache-control')).toBe('no-cache');
    const full = await api(`/resolve/${sha.main}/README.md`);
    expect(await full.json()).toEqual({ ref: null, sha: sha.main, path: 'README.md', kind: 'blob', object_sha: sha.readme });
    expect(full.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    expect(full.headers.get('etag')).toBeNull();
  });

  it('says which was not found: the revision or the path', async () => {
    expect(await json('/resolve/nope/src/app.js', 404)).toEqual({ error: 'revision_not_found', message: 'Revision "nope" names no commit in this repository.', retryable: false });
    expect(await json(`/resolve/${'0'.repeat(40)}`, 404)).toMatchObject({ error: 'revision_not_found' });
    expect(await json('/resolve/feature/login/src/missing.js', 404)).toEqual({ error: 'path_not_found', message: 'Path "src/missing.js" does not exist at feature/login.', retryable: false });
    expect(await json('/resolve/main/src//app.js', 400)).toMatchObject({ error: 'invalid_request' });
  });
});

describe('GET /tree', () => {
  it('lists a directory, directories first then by name, with sizes and its README', async () => {
    expect(await json('/tree/main')).toEqual({
      ref: 'refs/heads/main',
      sha: sha.main,
      path: '',
      tree_sha: sha.tree,
      entries: [
        { name: 'docs', type: 'tree', mode: '040000', size: null, sha: sha.docs },
        { name: 'src', type: 'tree', mode: '040000', size: null, sha: sha.src },
        { name: 'README.md', type: 'blob', mode: '100644', size: README.length, sha: sha.readme },
        { name: 'big.txt', type: 'blob', mode: '100644', size: BIG.length, sha: sha.big },
        { name: 'logo.png', type: 'blob', mode: '100644', size: BINARY.length, sha: sha.logo },
        { name: 'model.bin', type: 'blob', mode: '100644', size: LFS_POINTER.length, sha: sha.model },
      ],
      readme: { name: 'README.md', path: 'README.md', size: README.length, contents: README },
    });
    expect(await json('/tree')).toMatchObject({ ref: 'refs/heads/main', path: '', tree_sha: sha.tree });
    expect(await json('/tree/feature/login/src')).toEqual({
      ref: 'refs/heads/feature/login',
      sha: sha.login,
      path: 'src',
      tree_sha: await rev('feature/login:src'),
      entries: [{ name: 'app.js', type: 'blob', mode: '100644', size: APP_LOGIN.length, sha: sha.appLogin }],
    });
  });

  it('answers 404 for a file, pointing at /blob', async () => {
    expect(await json('/tree/main/README.md', 404)).toEqual({ error: 'not_a_tree', message: 'Path "README.md" at main is a file: read it with /blob/.', retryable: false });
    expect(await json('/tree/main/nope', 404)).toMatchObject({ error: 'path_not_found' });
  });
});

describe('GET /blob', () => {
  it('inlines text', async () => {
    expect(await json('/blob/main/README.md')).toEqual({
      ref: 'refs/heads/main',
      sha: sha.main,
      path: 'README.md',
      name: 'README.md',
      blob_sha: sha.readme,
      mode: '100644',
      size: README.length,
      encoding: 'utf-8',
      contents: README,
    });
  });

  it('marks binary without contents, unless asked for base64', async () => {
    const common = { ref: 'refs/heads/main', sha: sha.main, path: 'logo.png', name: 'logo.png', blob_sha: sha.logo, mode: '100644', size: BINARY.length, binary: true };
    expect(await json('/blob/main/logo.png')).toEqual({ ...common, encoding: 'utf-8' });
    expect(await json('/blob/main/logo.png?encoding=base64')).toEqual({ ...common, encoding: 'base64', contents: BINARY.toString('base64') });
  });

  it('answers too_large above 2 MiB, and the raw bytes of it streamed, byte-equal to git cat-file', async () => {
    expect(await json('/blob/main/big.txt')).toEqual({
      ref: 'refs/heads/main',
      sha: sha.main,
      path: 'big.txt',
      name: 'big.txt',
      blob_sha: sha.big,
      mode: '100644',
      size: BIG.length,
      encoding: 'utf-8',
      too_large: true,
    });
    const raw = await api('/blob/main/big.txt?raw=1');
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(raw.headers.get('content-length')).toBe(String(BIG.length));
    const expected = (await bed.git.run(['cat-file', 'blob', sha.big ?? ''], { cwd: work })).stdout;
    expect(Buffer.from(await raw.arrayBuffer()).equals(expected)).toBe(true);
    const binary = await api(`/blob/${sha.main}/logo.png?raw=1`);
    expect(Buffer.from(await binary.arrayBuffer()).equals(BINARY)).toBe(true);
    expect(binary.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    expect(binary.headers.get('content-type')).toBe('application/octet-stream');
    // The same bytes asked for by Accept, streamed.
    const negotiated = await api('/blob/main/big.txt', { accept: 'text/plain' });
    expect([negotiated.status, negotiated.headers.get('content-type'), negotiated.headers.get('content-length')]).toEqual([200, 'text/plain; charset=utf-8', String(BIG.length)]);
    expect(Buffer.from(await negotiated.arrayBuffer()).equals(expected)).toBe(true);
  });

  it('recognises an LFS pointer committed as text', async () => {
    expect(await json('/blob/main/model.bin')).toEqual({
      ref: 'refs/heads/main',
      sha: sha.main,
      path: 'model.bin',
      name: 'model.bin',
      blob_sha: sha.model,
      mode: '100644',
      size: LFS_POINTER.length,
      encoding: 'utf-8',
      contents: LFS_POINTER,
      lfs: { oid: LFS_OID, size: 12345, href: `${bed.b.url}/${repo}/info/lfs/objects/${LFS_OID}` },
    });
  });

  it('answers 404 for a directory, pointing at /tree', async () => {
    expect(await json('/blob/main/src', 404)).toEqual({ error: 'not_a_blob', message: 'Path "src" at main is a directory: list it with /tree/.', retryable: false });
  });
});

describe('GET /blob by content negotiation', () => {
  const HTML = '<!doctype html><script>fetch("/acme/site/api/refs", {credentials: "include"})</script>\n';
  const SVG = '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>\n';
  const LATIN1 = Buffer.from('caf\xe9\n', 'latin1');
  let files = '';
  beforeAll(async () => {
    files = await bed.createRepo();
    const dir = await bed.git.workdir('raw-negotiation');
    await bed.git.run(['init', '-q', '-b', 'main'], { cwd: dir });
    await writeFile(join(dir, 'logo.png'), BINARY);
    await writeFile(join(dir, 'latin1.txt'), LATIN1);
    await bed.git.commit(dir, 'files', { 'page.html': HTML, 'icon.svg': SVG, 'empty.txt': '', 'naïve notes.md': 'héllo\n', 'model.bin': LFS_POINTER });
    await bed.git.run(['push', '-q', bed.remote(bed.a, files), 'main'], { cwd: dir });
  });
  const get = (path: string, accept?: string) =>
    fetch(`${bed.b.url}/${files}/api/blob/main/${path}`, { headers: { authorization: `Bearer ${bed.token}`, ...(accept === undefined ? {} : { accept }) } });
  const raw = async (path: string, accept?: string) => {
    const response = await get(path, accept);
    const h = (name: string) => response.headers.get(name);
    return {
      status: response.status,
      type: h('content-type'),
      nosniff: h('x-content-type-options'),
      csp: h('content-security-policy'),
      disposition: h('content-disposition'),
      length: h('content-length'),
      vary: h('vary'),
      bytes: Buffer.from(await response.arrayBuffer()),
    };
  };
  const isJson = async (path: string, accept?: string) => {
    const response = await get(path, accept);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('vary')).toBe('Accept');
    return (await response.json()) as { path: string };
  };

  it('keeps JSON without Accept, for application/json, for */* (curl and fetch) and for a browser navigation', async () => {
    for (const accept of [undefined, 'application/json', '*/*', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'text/plain, application/json']) {
      expect((await isJson('page.html', accept)).path).toBe('page.html');
    }
    // A text file preferred as text, but the binary one cannot be: JSON, the next best.
    expect((await isJson('logo.png', 'text/plain, application/json;q=0.5')).path).toBe('logo.png');
  });

  it('answers the bytes of text as text/plain, sandboxed, when Accept prefers them', async () => {
    const common = { status: 200, type: 'text/plain; charset=utf-8', nosniff: 'nosniff', csp: "default-src 'none'; sandbox", vary: 'Accept' };
    for (const accept of ['text/plain', 'text/*', 'application/json;q=0.5, */*', 'application/json;q=0, */*']) {
      expect(await raw('page.html', accept)).toEqual({ ...common, disposition: 'inline; filename="page.html"; filename*=UTF-8\'\'page.html', length: String(HTML.length), bytes: Buffer.from(HTML) });
    }
    // Never as the HTML or SVG it is: a browser must not render a tenant's file as a page of this origin.
    expect(await raw('icon.svg', 'image/svg+xml, text/plain;q=0.1')).toMatchObject({ ...common, bytes: Buffer.from(SVG) });
    expect(await raw(`${encodeURIComponent('naïve notes.md')}`, 'text/plain')).toMatchObject({ ...common, disposition: `inline; filename="na_ve notes.md"; filename*=UTF-8''na%C3%AFve%20notes.md` });
    expect(await raw('empty.txt', 'text/plain')).toMatchObject({ ...common, length: '0', bytes: Buffer.alloc(0) });
    // An LFS pointer stays the pointer.
    expect(await raw('model.bin', 'text/plain')).toMatchObject({ ...common, bytes: Buffer.from(LFS_POINTER) });
    // ?raw=1 is kept, whatever Accept says.
    expect(await raw('page.html?raw=1', 'application/json')).toMatchObject({ ...common, bytes: Buffer.from(HTML) });
  });

  it('answers binary bytes (a NUL, or not UTF-8) as application/octet-stream, an attachment', async () => {
    const common = { status: 200, type: 'application/octet-stream', nosniff: 'nosniff', csp: "default-src 'none'; sandbox", vary: 'Accept' };
    expect(await raw('logo.png', 'application/octet-stream')).toEqual({
      ...common,
      disposition: 'attachment; filename="logo.png"; filename*=UTF-8\'\'logo.png',
      length: String(BINARY.length),
      bytes: BINARY,
    });
    expect(await raw('latin1.txt', 'application/json;q=0.1, */*')).toMatchObject({ ...common, bytes: LATIN1 });
    expect(await raw('logo.png?raw=1')).toMatchObject({ ...common, bytes: BINARY });
    // Text asked for as bytes.
    expect(await raw('page.html', 'application/octet-stream')).toMatchObject({ ...common, disposition: 'attachment; filename="page.html"; filename*=UTF-8\'\'page.html', bytes: Buffer.from(HTML) });
  });

  it('answers 406 when Accept allows neither JSON nor the file’s type, with what it could have', async () => {
    for (const [path, accept, types] of [
      ['logo.png', 'text/plain', 'application/json, application/octet-stream'],
      ['page.html', 'text/html', 'application/json, text/plain, application/octet-stream'],
    ] as const) {
      const response = await get(path, accept);
      expect(response.status).toBe(406);
      expect(await response.json()).toEqual({ error: 'not_acceptable', message: `Accept "${accept}" allows none of the types this file can be answered as: ${types}.`, retryable: false });
    }
  });

  it('gives JSON and the raw bytes different ETags, so a cache never answers one for the other', async () => {
    const asJson = await get('page.html');
    const etag = asJson.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[0-9a-f]{40}-[0-9a-f]{16}"$/);
    const again = await fetch(`${bed.b.url}/${files}/api/blob/main/page.html`, { headers: { authorization: `Bearer ${bed.token}`, 'if-none-match': etag } });
    expect(again.status).toBe(304);
    const rawAnswer = await fetch(`${bed.b.url}/${files}/api/blob/main/page.html`, { headers: { authorization: `Bearer ${bed.token}`, 'if-none-match': etag, accept: 'text/plain' } });
    expect(rawAnswer.status).toBe(200);
    expect(rawAnswer.headers.get('etag')).not.toBe(etag);
    expect(await rawAnswer.text()).toBe(HTML);
  });
});

describe('caching and freshness across instances', () => {
  it('answers 304 to the ETag of a ref-addressed read until a push through the other instance moves the ref', async () => {
    const first = await api('/blob/main/src/app.js');
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[0-9a-f]{40}-[0-9a-f]{16}"$/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    expect((await api('/blob/main/src/app.js', { 'if-none-match': etag })).status).toBe(304);
    // Another query is another answer.
    expect((await api('/blob/main/src/app.js?encoding=base64', { 'if-none-match': etag })).status).toBe(200);

    const next = await bed.git.commit(work, 'second', { 'src/app.js': 'console.log("next");\n' });
    await bed.git.run(['push', '-q', bed.remote(bed.a, repo), 'refs/heads/main'], { cwd: work });
    const after = await api('/blob/main/src/app.js', { 'if-none-match': etag });
    expect(after.status).toBe(200);
    expect(await after.json()).toMatchObject({ sha: next, contents: 'console.log("next");\n' });
    expect(await json('/refs')).toEqual({ head: { name: 'refs/heads/main', sha: next } });
  });
});
