// `POST /api/import/resolve` and `/api/import` from an https:// URL: a real git repository served over HTTPS smart
// HTTP by the test itself (git http-backend behind Node's TLS, a certificate made by openssl), imported into a
// pristine repository whose mirror then equals the source; and each bound and refusal: internal addresses under the
// default policy (nothing is even sent to them), a source over the size bound, one that stalls past the time bound,
// missing or wrong credentials (a clear error, nothing left behind: the target pristine, no fetched objects on disk).
import { randomBytes } from 'node:crypto';
import { runGit } from '../src/git/run-git.ts';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mintToken } from '../git-server/auth/index.ts';
import { parseConfig } from '../git-server/config/index.ts';
import { startService as startGitServer, type RunningService } from '../git-server/serve.ts';
import { GitClient } from './harness/git-client.ts';
import { gitServiceConfig, newTokenSecret, type GitServiceSetup } from './harness/git-service.ts';
import { startGitHttpsSource, type GitHttpsSource } from './harness/git-https-source.ts';

const PASSWORD = `pw-${randomBytes(12).toString('hex')}`;
const TOKEN = `tok-${randomBytes(12).toString('hex')}`;
const root = mkdtempSync(join(tmpdir(), 'import-url-sources-'));
const certDir = mkdtempSync(join(tmpdir(), 'import-url-cert-'));
mkdirSync(join(root, 'public'));
mkdirSync(join(root, 'private'));

const base: GitServiceSetup = { s3: inject('s3'), bucket: inject('bucket'), tokenSecret: newTokenSecret() };
// The escape hatch the test server needs (it listens on loopback), and small bounds to provoke.
const importer: GitServiceSetup = {
  ...base,
  importSources: ['https://127.0.0.1:*/public/*', 'https://127.0.0.1:*/private/*', 'https://127.0.0.1:*/stall/*'],
  urlImports: { allowPrivateTargets: true, caFile: join(certDir, 'cert.pem'), timeout: '3s', maxSize: '256KiB' },
};
// The default policy: every URL admitted by the allow-list, internal addresses refused.
const guarded: GitServiceSetup = { ...base, importSources: ['https://*'], urlImports: { caFile: join(certDir, 'cert.pem') } };
// An owner's share of the spool below the big source, which the import bound lets through.
// It also refuses one private range by events.denied_target_ranges, which binds imports too.
const tight: GitServiceSetup = {
  ...importer,
  importSources: [...(importer.importSources ?? []), 'https://10.1.2.3/acme/*'],
  urlImports: { ...importer.urlImports, maxSize: '4MiB' },
  spoolPerOwner: '512KiB',
  deniedTargetRanges: ['10.1.0.0/16'],
};
const token = mintToken({ sub: 'ada', scopes: ['read', 'write'] }, base.tokenSecret);

interface Instance {
  readonly service: RunningService;
  readonly cacheDir: string;
}
async function startInstance(setup: GitServiceSetup): Promise<Instance> {
  const { text, env, dir } = await gitServiceConfig(setup);
  const config = parseConfig(text, env, { source: 'test config', baseDir: dir });
  return { service: await startGitServer(config, { logLevel: 'warn' }), cacheDir: config.cache.dir };
}

let a: Instance;
let guard: Instance;
let narrow: Instance;
let source: GitHttpsSource;
let git: GitClient;
let work = '';

type Answer = { status: number; body: Record<string, unknown>; text: string };
async function call(instance: Instance, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${instance.service.url}/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as Record<string, unknown>, text };
}

async function createRepo(): Promise<string> {
  const repo = `e2e/url-${randomBytes(4).toString('hex')}`;
  const response = await fetch(`${a.service.url}/${repo}`, { method: 'PUT', headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(201);
  return repo;
}

/** `<oid> <ref>` lines of the branches and tags of a bare repository on disk, or of a cw-git repository (mirrored). */
async function refsOf(dir: string): Promise<string> {
  return git.out(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads', 'refs/tags'], dir);
}
async function mirrored(repo: string): Promise<string> {
  const dir = join(git.home, `mirror-${randomBytes(3).toString('hex')}`);
  await git.run(['clone', '-q', '--mirror', `${a.service.url.replace('http://', `http://git:${token}@`)}/${repo}`, dir]);
  await git.run(['fsck', '--strict', '--no-dangling'], { cwd: dir });
  return refsOf(dir);
}

/** A bare repository `<root>/<path>` holding `work`'s branches and tags. */
async function publish(path: string): Promise<string> {
  const dir = join(root, path);
  await git.run(['init', '-q', '--bare', dir]);
  await git.run(['push', '-q', dir, '--all'], { cwd: work });
  await git.run(['push', '-q', dir, '--tags'], { cwd: work });
  return dir;
}

/** Nothing of a failed import stays: the target has no refs, the instance's fetch directories are gone. */
async function nothingLeft(repo: string, instance = a): Promise<void> {
  const summary = await call(instance, `${repo}/api`);
  expect(summary.body).toMatchObject({ head: null, branches: 0, tags: 0 });
  expect(await readdir(join(instance.cacheDir, 'tmp', 'imports')).catch(() => [])).toEqual([]);
}

beforeAll(async () => {
  git = await GitClient.create();
  work = await git.workdir('url-source');
  await git.run(['init', '-q', '-b', 'main'], { cwd: work });
  await git.commit(work, 'one', { 'a.txt': 'a\n' });
  await git.run(['tag', 'v1'], { cwd: work });
  await git.run(['checkout', '-q', '-b', 'feature/x'], { cwd: work });
  await git.commit(work, 'two', { 'b.txt': 'b\n' });
  await git.run(['tag', '-a', '-m', 'release two', 'v2'], { cwd: work });
  await git.run(['checkout', '-q', 'main'], { cwd: work });
  await git.commit(work, 'three', { 'c.txt': 'c\n' });
  await publish('public/site.git');
  await publish('private/site.git');
  // Over the 256 KiB bound: 1 MiB that does not compress.
  await writeFile(join(work, 'noise.bin'), randomBytes(1 << 20));
  await git.commit(work, 'noise', {});
  await publish('public/big.git');
  await git.run(['reset', '-q', '--hard', 'HEAD~1'], { cwd: work });
  // More branches and tags than an import takes.
  const many = await publish('public/many.git');
  const head = (await git.out(['rev-parse', 'HEAD'], work)).trim();
  await runGit(['-C', many, 'update-ref', '--stdin'], { stdin: Array.from({ length: 10_001 }, (_, i) => `create refs/tags/t${i} ${head}\n`).join('') });

  source = await startGitHttpsSource({ root, password: PASSWORD, token: TOKEN, certDir });
  [a, guard, narrow] = await Promise.all([startInstance(importer), startInstance(guarded), startInstance(tight)]);
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.service.stop(), guard?.service.stop(), narrow?.service.stop(), source?.close()]);
});

const url = (path: string) => `${source.url}/${path}`;
const resolve = async (path: string, credentials?: unknown, instance = a) => call(instance, `e2e/any/api/import/resolve`, { source: { url: url(path) }, ...(credentials ? { credentials } : {}) });

describe('import from an https URL', () => {
  it('pins the source and imports every branch and tag; the mirror equals the source; a retry replays', async () => {
    const resolved = await resolve('public/site.git');
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ source: { url: url('public/site.git') }, object_format: 'sha1', head: 'refs/heads/main', snapshot_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(Object.keys(resolved.body.refs as object)).toEqual(['refs/heads/feature/x', 'refs/heads/main', 'refs/tags/v1', 'refs/tags/v2']);

    const repo = await createRepo();
    const first = await call(a, `${repo}/api/import`, { operation_key: 'url-1', snapshot: resolved.body });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ operation_key: 'url-1', request_hash: resolved.body.snapshot_hash, snapshot: resolved.body, replayed: false });
    expect(await mirrored(repo)).toBe(await refsOf(join(root, 'public/site.git')));
    const retry = await call(a, `${repo}/api/import`, { operation_key: 'url-1', snapshot: resolved.body });
    expect(retry).toMatchObject({ status: 200, body: { ...first.body, replayed: true } });
    expect(await readdir(join(a.cacheDir, 'tmp', 'imports'))).toEqual([]);
  });

  it('sends credentials to the source: none or wrong ones are a clear 422 and leave nothing behind; Basic and Bearer work', async () => {
    const none = await resolve('private/site.git');
    expect(none.status).toBe(422);
    expect(none.body).toEqual({ error: 'source_authentication_failed', message: expect.stringContaining('needs credentials'), retryable: false });
    const wrong = await resolve('private/site.git', { username: 'git', password: 'not-it' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.message).toContain(`${url('private/site.git')} refused the credentials given`);

    const basic = await resolve('private/site.git', { username: 'git', password: PASSWORD });
    expect(basic.status).toBe(200);
    const repo = await createRepo();
    const refused = await call(a, `${repo}/api/import`, { operation_key: 'k', snapshot: basic.body, credentials: { password: 'not-it' } });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toBe('source_authentication_failed');
    await nothingLeft(repo);

    const bearer = await call(a, `${repo}/api/import`, { operation_key: 'k', snapshot: basic.body, credentials: { token: TOKEN } });
    expect(bearer.status).toBe(201);
    expect(await mirrored(repo)).toBe(await refsOf(join(root, 'private/site.git')));
    // The credentials are in no answer: not the receipt, not the snapshot.
    for (const answer of [basic, bearer, await call(a, `${repo}/api/import/receipt?operation_key=k`)]) {
      expect(answer.text).not.toContain(PASSWORD);
      expect(answer.text).not.toContain(TOKEN);
    }
  });

  it('refuses to resolve a source with more branches and tags than an import takes (422), reading no more of it', async () => {
    const many = await resolve('public/many.git', undefined, narrow);
    expect([many.status, many.body.error, many.body.message]).toEqual([
      422,
      'source_too_large',
      `${url('public/many.git')} has more than 10000 branches and tags, the most an import takes; nothing was imported.`,
    ]);
  });

  it('refuses a source over api.import_max_size (422) and one that stalls past api.import_timeout (504), leaving nothing', async () => {
    const big = await resolve('public/big.git');
    expect(big.status).toBe(200);
    const repo = await createRepo();
    const tooLarge = await call(a, `${repo}/api/import`, { operation_key: 'big', snapshot: big.body });
    expect(tooLarge.status).toBe(422);
    expect(tooLarge.body).toEqual({
      error: 'source_too_large',
      message: `${url('public/big.git')} sent more than 262144 bytes, the most an import may fetch (api.import_max_size); nothing was imported.`,
      retryable: false,
    });
    await nothingLeft(repo);

    const started = Date.now();
    const stalled = await resolve('stall/site.git');
    expect(stalled.status).toBe(504);
    expect(stalled.body).toEqual({ error: 'source_timeout', message: `${url('stall/site.git')} did not finish within 3 s (api.import_timeout); nothing was imported.`, retryable: false });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("counts what an import fetches against its owner's share of the spool, as a push: past it 413, nothing left, the share given back", async () => {
    const big = await resolve('public/big.git', undefined, narrow);
    expect(big.status).toBe(200);
    const repo = await createRepo();
    const refused = await call(narrow, `${repo}/api/import`, { operation_key: 'big', snapshot: big.body });
    expect([refused.status, refused.body.error]).toEqual([413, 'spool_too_large']);
    await nothingLeft(repo, narrow);
    // Given back: a small import by the same owner goes through.
    const small = await resolve('public/site.git', undefined, narrow);
    expect((await call(narrow, `${repo}/api/import`, { operation_key: 'small', snapshot: small.body })).status).toBe(201);
  });

  it('refuses what the allow-list does not admit, what is not an https URL, credentials in a URL, a missing repository, a stale snapshot', async () => {
    const other = await call(a, 'e2e/any/api/import/resolve', { source: { url: url('other/site.git') } });
    expect([other.status, other.body.error]).toEqual([403, 'source_not_allowed']);
    const plain = await call(a, 'e2e/any/api/import/resolve', { source: { url: url('public/site.git').replace('https:', 'http:') } });
    expect(plain.body).toEqual({ error: 'invalid_source_url', message: 'source.url must be an https:// URL, not http://.', retryable: false });
    const inline = await call(a, 'e2e/any/api/import/resolve', { source: { url: url('public/site.git').replace('https://', `https://git:${PASSWORD}@`) } });
    expect(inline.status).toBe(400);
    expect(inline.text).not.toContain(PASSWORD);
    const bucketWithCredentials = await call(a, 'e2e/any/api/import/resolve', { source: { owner: 'e2e', repo: 'x' }, credentials: { token: TOKEN } });
    expect([bucketWithCredentials.status, bucketWithCredentials.body.error]).toEqual([400, 'invalid_request']);
    const missing = await resolve('public/nope.git');
    expect([missing.status, missing.body.error]).toEqual([422, 'source_not_found']);
    const injected = await resolve('private/site.git', { token: 'a\r\nX-Injected: 1' });
    expect(injected.status).toBe(400);

    const snapshot = (await resolve('public/site.git')).body;
    await git.commit(work, 'four', { 'd.txt': 'd\n' });
    await git.run(['push', '-q', join(root, 'public/site.git'), 'main'], { cwd: work });
    const repo = await createRepo();
    const stale = await call(a, `${repo}/api/import`, { operation_key: 'k', snapshot });
    expect([stale.status, stale.body.error]).toEqual([409, 'snapshot_stale']);
    await nothingLeft(repo);
  });
});

describe('the target policy of imports (default: internal addresses refused)', () => {
  it('refuses loopback, a name resolving to it, link-local metadata, private and IPv4-mapped addresses, before connecting', async () => {
    const port = new URL(source.url).port;
    const served = source.requests.length;
    for (const [target, range] of [
      [`https://127.0.0.1:${port}/public/site.git`, '127.0.0.0/8 (loopback)'],
      [`https://localhost:${port}/public/site.git`, '(loopback)'],
      ['https://169.254.169.254/latest/meta-data', '169.254.0.0/16 (link-local (cloud metadata))'],
      ['https://10.1.2.3/acme/site.git', '10.0.0.0/8 (private)'],
      [`https://[::ffff:127.0.0.1]:${port}/public/site.git`, '127.0.0.0/8 (loopback)'],
    ]) {
      const answer = await call(guard, 'e2e/any/api/import/resolve', { source: { url: target } });
      expect({ target, status: answer.status, error: answer.body.error }).toEqual({ target, status: 403, error: 'source_refused' });
      expect(answer.body.message).toContain(range);
      expect(answer.body.message).toContain('set api.import_allow_private_targets: true to import from internal addresses');
    }
    expect(source.requests.length).toBe(served);
  });

  it('refuses events.denied_target_ranges though internal addresses are allowed', async () => {
    const answer = await call(narrow, 'e2e/any/api/import/resolve', { source: { url: 'https://10.1.2.3/acme/site.git' } });
    expect([answer.status, answer.body.error]).toEqual([403, 'source_refused']);
    expect(answer.body.message).toContain('10.1.0.0/16 (in events.denied_target_ranges)');
  });
});
