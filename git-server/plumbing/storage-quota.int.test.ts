// A repository's storage quota on MinIO with stock git: a push, a JSON API write and an LFS upload that would
// pass it are refused before anything reaches the bucket, deletions still go through, and the overview shows
// what the quota counts.
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { S3ObjectStore } from '../../src/object-store/s3-object-store.ts';
import { lfsObjectKey, parseRepoPath, repoPrefix } from '../../src/repo-store/index.ts';
import { GitClient } from '../../e2e/harness/git-client.ts';
import { mintToken } from '../auth/index.ts';
import { bucketGitServer, listenForGit, pushBed } from '../testing/bucket-git-server.ts';

const SECRET = 'storage-quota-test-secret-of-32-bytes';
const token = mintToken({ sub: 'ada', scopes: ['read', 'write'] }, SECRET);
const auth = { authorization: `Bearer ${token}` };
const QUOTA = 256 * 1024;
const REPO = `quota-${randomBytes(4).toString('hex')}/site`;
const LFS = 'application/vnd.git-lfs+json';
/** Text git cannot compress much: base64 of random bytes (about 75% of its length once packed). */
const noise = (bytes: number) => randomBytes(Math.ceil((bytes * 3) / 4)).toString('base64');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

const objects = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
let app: FastifyInstance;
let remote: string;
let git: GitClient;
let work: string;

/** A cw-git on the bucket with `limits`, listening; answers it and its base URL for stock git (the token in it). */
async function gitServer(limits: { maxRepositoryBytes: number; maxOwnerBytes?: number }): Promise<{ server: FastifyInstance; base: string }> {
  const server = await bucketGitServer(objects, SECRET, limits);
  return { server, base: await listenForGit(server, token) };
}

beforeAll(async () => {
  ({ app, remote, git, work } = await pushBed(objects, SECRET, token, REPO, { maxRepositoryBytes: QUOTA }));
});
afterAll(async () => {
  await app?.close();
  objects.destroy();
});

const overview = async () => (await app.inject({ method: 'GET', url: `/${REPO}/api/overview`, headers: auth })).json<{ storage: { bytes: number; lfs_bytes: number; quota_bytes: number } }>();
const headOf = async (ref: string) => (await git.out(['ls-remote', remote, ref])).split('\t')[0] || undefined;
const lfsPut = (bytes: Buffer, headers: Record<string, string> = {}) =>
  app.inject({ method: 'PUT', url: `/${REPO}/info/lfs/objects/${sha256(bytes)}`, headers: { ...auth, 'content-type': 'application/octet-stream', ...headers }, payload: bytes });

describe('a repository storage quota', () => {
  it('takes a push that fits, refuses one that would pass it with git showing why, and still takes deletions', async () => {
    const first = await git.commit(work, 'first', { 'a.txt': noise(120 * 1024) });
    await git.run(['push', '-q', remote, 'main', 'main:side'], { cwd: work });
    const stored = (await overview()).storage;
    expect(stored.quota_bytes).toBe(QUOTA);
    expect(stored.bytes).toBeGreaterThan(80 * 1024);
    expect(stored.bytes).toBeLessThan(QUOTA);

    await git.commit(work, 'second', { 'b.txt': noise(240 * 1024) });
    const refused = await git.run(['push', remote, 'main'], { cwd: work, okCodes: [1] });
    const stderr = refused.stderr.toString();
    expect(stderr).toMatch(/\[remote rejected\]\s+main -> main \(over the storage quota\)/);
    expect(stderr).toContain(`remote: ${REPO} would pass its storage quota of 256.0 KiB`);
    expect(await headOf('refs/heads/main')).toBe(first);
    expect((await overview()).storage.bytes).toBe(stored.bytes);

    // A deletion stores nothing: it goes through, in the same push as a refused update too.
    const mixed = await git.run(['push', remote, 'main', ':side'], { cwd: work, okCodes: [1] });
    expect(mixed.stderr.toString()).toMatch(/- \[deleted\]\s+side/);
    expect(await headOf('refs/heads/side')).toBeUndefined();
  });

  it('stores no pack for a push whose every update is refused: such packs would be in no head, counted by no quota', async () => {
    const packs = async () => (await objects.list(`${repoPrefix(parseRepoPath(REPO))}packs/`)).items.length;
    const before = await packs();
    await git.run(['reset', '-q', '--hard', (await headOf('refs/heads/main'))!], { cwd: work }); // a push within the quota
    await git.commit(work, 'conflicting', { 'c.txt': noise(8 * 1024) });
    // refs/heads/main/x cannot exist beside refs/heads/main: refused by the log whatever the quota says.
    const refused = await git.run(['push', remote, 'HEAD:refs/heads/main/x'], { cwd: work, okCodes: [1] });
    expect(refused.stderr.toString()).toMatch(/\[remote rejected\].*conflicts with/);
    expect(await packs()).toBe(before);
  });

  it('answers a JSON API write past the quota 507 storage_quota_exceeded, and stores nothing', async () => {
    const before = await headOf('refs/heads/main');
    const write = await app.inject({
      method: 'POST',
      url: `/${REPO}/api/commits`,
      headers: auth,
      payload: {
        branch: 'main',
        message: 'too big',
        committer: { name: 'Ada', email: 'ada@example.com' },
        changes: [{ op: 'upsert', path: 'big.txt', mode: '100644', content: Buffer.from(noise(240 * 1024)).toString('base64') }],
      },
    });
    expect(write.statusCode).toBe(507);
    expect(write.json()).toMatchObject({ error: 'storage_quota_exceeded', retryable: false, message: expect.stringContaining('would pass its storage quota') });
    expect(await headOf('refs/heads/main')).toBe(before);
  });

  it('counts LFS objects: an upload that fits is stored, one past the quota is refused by the batch and by the PUT', async () => {
    const { bytes: packs } = (await overview()).storage;
    const room = QUOTA - packs;
    const fits = randomBytes(Math.floor(room / 2));
    expect((await lfsPut(fits)).statusCode).toBe(200);
    expect((await overview()).storage).toMatchObject({ lfs_bytes: fits.length, bytes: packs + fits.length });

    const over = randomBytes(Math.floor(room / 2) + 1024);
    const batch = await app.inject({
      method: 'POST',
      url: `/${REPO}/info/lfs/objects/batch`,
      headers: { ...auth, 'content-type': LFS, accept: LFS },
      payload: { operation: 'upload', transfers: ['basic'], objects: [{ oid: sha256(over), size: over.length }] },
    });
    expect(batch.statusCode).toBe(507);
    expect(batch.json()).toMatchObject({ error: 'storage_quota_exceeded' });
    // Asking again for what is stored already costs nothing: no upload, no refusal.
    const again = await app.inject({
      method: 'POST',
      url: `/${REPO}/info/lfs/objects/batch`,
      headers: { ...auth, 'content-type': LFS, accept: LFS },
      payload: { operation: 'upload', objects: [{ oid: sha256(fits), size: fits.length }] },
    });
    expect(again.statusCode).toBe(200);

    expect((await lfsPut(over)).statusCode).toBe(507);
    // Without a length up front the body is counted once received, before it is stored.
    const chunked = await app.inject({
      method: 'PUT',
      url: `/${REPO}/info/lfs/objects/${sha256(over)}`,
      headers: { ...auth, 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
      payload: Readable.from([over.subarray(0, 1000), over.subarray(1000)]),
    });
    expect(chunked.statusCode).toBe(507);
    expect(await objects.head(lfsObjectKey(parseRepoPath(REPO), sha256(over)))).toBeUndefined();
    expect((await overview()).storage.lfs_bytes).toBe(fits.length);
  });
});

describe("an owner's storage quota", () => {
  const OWNER = `owner-${randomBytes(4).toString('hex')}`;
  const OWNER_QUOTA = 150 * 1024;
  let owned: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    const started = await gitServer({ maxRepositoryBytes: 10 * 1024 ** 2, maxOwnerBytes: OWNER_QUOTA });
    owned = started.server;
    base = `${started.base}/${OWNER}`;
    for (const name of ['a', 'b']) expect((await owned.inject({ method: 'PUT', url: `/${OWNER}/${name}`, headers: auth })).statusCode).toBe(201);
  });
  afterAll(async () => {
    await owned?.close();
  });

  it("refuses a push to one repository that would take the owner's repositories past their quota together, and takes it once another is deleted", async () => {
    const first = await git.workdir('owner-a');
    await git.run(['init', '-q'], { cwd: first });
    await git.commit(first, 'a', { 'a.txt': noise(120 * 1024) });
    await git.run(['push', '-q', `${base}/a`, 'main'], { cwd: first });

    const second = await git.workdir('owner-b');
    await git.run(['init', '-q'], { cwd: second });
    const pushed = await git.commit(second, 'b', { 'b.txt': noise(120 * 1024) });
    const refused = await git.run(['push', `${base}/b`, 'main'], { cwd: second, okCodes: [1] });
    const stderr = refused.stderr.toString();
    expect(stderr).toMatch(/\[remote rejected\]\s+main -> main \(over the storage quota\)/);
    expect(stderr).toContain(`remote: The repositories of ${OWNER} would pass their storage quota of 150.0 KiB together`);
    // Repository b alone is far from its own quota: the owner's is what refused it, and the overview says so.
    const storage = (await owned.inject({ method: 'GET', url: `/${OWNER}/b/api/overview`, headers: auth })).json<{ storage: Record<string, number> }>().storage;
    expect(storage).toMatchObject({ bytes: 0, quota_bytes: 10 * 1024 ** 2, owner_quota_bytes: OWNER_QUOTA });
    expect(storage.owner_bytes).toBeGreaterThan(80 * 1024);
    // An LFS upload to b is refused the same way.
    const blob = randomBytes(100 * 1024);
    const put = await owned.inject({ method: 'PUT', url: `/${OWNER}/b/info/lfs/objects/${sha256(blob)}`, headers: { ...auth, 'content-type': 'application/octet-stream' }, payload: blob });
    expect(put.statusCode).toBe(507);
    expect(put.json()).toMatchObject({ error: 'storage_quota_exceeded', message: expect.stringContaining(`The repositories of ${OWNER}`) });
    // Another owner's repository is not held back by this one's.
    const elsewhere = `other-${randomBytes(4).toString('hex')}/c`;
    expect((await owned.inject({ method: 'PUT', url: `/${elsewhere}`, headers: auth })).statusCode).toBe(201);
    expect(
      (await owned.inject({ method: 'PUT', url: `/${elsewhere}/info/lfs/objects/${sha256(blob)}`, headers: { ...auth, 'content-type': 'application/octet-stream' }, payload: blob })).statusCode,
    ).toBe(200);

    expect((await owned.inject({ method: 'DELETE', url: `/${OWNER}/a`, headers: auth })).statusCode).toBe(204);
    await git.run(['push', '-q', `${base}/b`, 'main'], { cwd: second });
    expect((await git.out(['ls-remote', `${base}/b`, 'refs/heads/main'])).split('\t')[0]).toBe(pushed);
  });
});
