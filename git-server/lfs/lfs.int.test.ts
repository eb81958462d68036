// LFS against the real object store (MinIO) and the stock git-lfs client: objects pushed and fetched through
// the batch API and basic transfer, with credentials from a git credential helper after a 401 challenge.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { lfsObjectKey, parseRepoPath } from '../../src/repo-store/index.ts';
import { createObjectStore } from '../config/object-store.ts';
import { parseConfig } from '../config/load-config.ts';
import { lfsTestServer, TEST_TOKEN_SECRET, type LfsTestServer } from './testing/lfs-test-server.ts';

const run = promisify(execFile);
const s3 = inject('s3');
const prefix = `lfs-it-${randomBytes(4).toString('hex')}`;
const REPO = parseRepoPath(`${prefix}/site`);
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

// The store is built from a configuration file's text, as `cw-git serve` builds it.
const config = parseConfig(
  [`store: { bucket: ${inject('bucket')}, s3: { endpoint: "${s3.endpoint}", region: ${s3.region}, force_path_style: ${s3.forcePathStyle} } }`, `auth: { token_secret: ${TEST_TOKEN_SECRET} }`].join(
    '\n',
  ),
  { AWS_ACCESS_KEY_ID: s3.credentials?.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.credentials?.secretAccessKey },
  { source: 'lfs.int.test', baseDir: tmpdir() },
);
const store = createObjectStore(config, { registry: new Registry() });
const work = mkdtempSync(join(tmpdir(), 'cw-git-lfs-'));
let server: LfsTestServer;
let base: string;

beforeAll(async () => {
  server = await lfsTestServer(store, [REPO.full], { spoolDir: work });
  base = await server.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await server?.app.close();
  store.destroy();
  rmSync(work, { recursive: true, force: true });
});

describe('LFS on MinIO', () => {
  it('stores an upload in the bucket at lfsObjectKey and streams it back', async () => {
    const bytes = randomBytes(2 * 1024 * 1024 + 17);
    const oid = sha256(bytes);
    const auth = { authorization: `Bearer ${server.writeToken}` };
    const put = await fetch(`${base}/${REPO.full}/info/lfs/objects/${oid}?size=${bytes.length}`, { method: 'PUT', headers: auth, body: bytes });
    expect(put.status).toBe(200);
    expect(await store.head(lfsObjectKey(REPO, oid))).toMatchObject({ size: bytes.length });
    const get = await fetch(`${base}/${REPO.full}/info/lfs/objects/${oid}`, { headers: auth });
    expect(get.status).toBe(200);
    expect(get.headers.get('content-length')).toBe(String(bytes.length));
    expect(Buffer.from(await get.arrayBuffer()).equals(bytes)).toBe(true);
    const wrong = await fetch(`${base}/${REPO.full}/info/lfs/objects/${sha256(randomBytes(8))}`, { method: 'PUT', headers: auth, body: bytes });
    expect(wrong.status).toBe(422);
  });

  it('serves the stock git-lfs client: push by object id, then a fresh clone pulls the file', async () => {
    const home = join(work, 'home');
    const env = { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', GIT_LFS_SKIP_SMUDGE: '0' };
    const git = (cwd: string, ...args: string[]) => run('git', args, { cwd, env }).then((r) => r.stdout.trim());
    const lfsUrl = `${base}/${REPO.full}.git/info/lfs`;
    // The token comes from a credential helper, asked after the server's 401 Basic challenge, as in real use.
    const helper = `!f() { test "$1" = get && printf 'username=git\\npassword=%s\\n' '${server.writeToken}'; }; f`;
    const configure = async (dir: string) => {
      await git(dir, 'config', 'lfs.url', lfsUrl);
      await git(dir, 'config', 'credential.helper', helper);
      await git(dir, 'config', `lfs.${lfsUrl}.locksverify`, 'false');
    };

    const source = join(work, 'source');
    await run('mkdir', ['-p', source, home]);
    await git(source, 'init', '-q', '-b', 'main');
    await git(source, 'lfs', 'install', '--local');
    await configure(source);
    await git(source, 'config', 'user.email', 'dev@example.com');
    await git(source, 'config', 'user.name', 'Dev');
    await git(source, 'lfs', 'track', '*.bin');
    const bytes = randomBytes(3 * 1024 * 1024);
    writeFileSync(join(source, 'model.bin'), bytes);
    await git(source, 'add', '.gitattributes', 'model.bin');
    await git(source, 'commit', '-q', '-m', 'add a model');
    const oid = sha256(bytes);
    expect(await git(source, 'lfs', 'ls-files', '--long')).toContain(oid);

    await git(source, 'remote', 'add', 'origin', `${base}/${REPO.full}.git`);
    server.exchanges.length = 0;
    await git(source, 'lfs', 'push', '--object-id', 'origin', oid);
    expect(await store.head(lfsObjectKey(REPO, oid))).toMatchObject({ size: bytes.length });
    const batchPath = `/${REPO.full}.git/info/lfs/objects/batch`;
    const objectPath = `/${REPO.full}/info/lfs/objects/${oid}`;
    // Challenged first, then the helper's credentials on the batch, the upload and the verify.
    expect(server.exchanges.map(({ method, path, status, authenticated }) => `${method} ${path} ${status} ${authenticated}`)).toEqual([
      `POST ${batchPath} 401 false`,
      `POST ${batchPath} 200 true`,
      `PUT ${objectPath} 200 true`,
      `POST /${REPO.full}/info/lfs/verify 200 true`,
    ]);

    const clone = join(work, 'clone');
    await run('git', ['clone', '-q', source, clone], { env: { ...env, GIT_LFS_SKIP_SMUDGE: '1' } });
    await git(clone, 'lfs', 'install', '--local');
    await configure(clone);
    expect(readFileSync(join(clone, 'model.bin'), 'utf8')).toContain(`oid sha256:${oid}`);
    await git(clone, 'lfs', 'pull');
    expect(readFileSync(join(clone, 'model.bin')).equals(bytes)).toBe(true);
  });

  it('makes git-lfs report a missing object as such', async () => {
    const dir = join(work, 'missing');
    const env = { ...process.env, HOME: join(work, 'home'), GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' };
    await run('mkdir', ['-p', dir]);
    await run('git', ['init', '-q'], { cwd: dir, env });
    await run('git', ['config', 'lfs.url', `${base}/${REPO.full}/info/lfs`], { cwd: dir, env });
    await run('git', ['config', 'http.extraHeader', `Authorization: Bearer ${server.readToken}`], { cwd: dir, env });
    const oid = sha256(randomBytes(16));
    const pointer = `version https://git-lfs.github.com/spec/v1\noid sha256:${oid}\nsize 16\n`;
    const smudge = run('sh', ['-c', `printf '%s' "$POINTER" | git lfs smudge missing.bin`], { cwd: dir, env: { ...env, POINTER: pointer } });
    await expect(smudge).rejects.toMatchObject({ stderr: expect.stringMatching(/Object does not exist|object does not exist|not found/i) });
  });
});
