import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { S3ObjectStore } from '../object-store/s3-object-store.ts';
import { CountingObjectStore } from '../object-store/testing/counting-object-store.ts';
import { RepoStore, zeroOid, type ObjectFormat, type RefUpdate } from '../repo-store/index.ts';
import { PackUnavailableError, syncBareRepo } from './bare-repo.ts';
import { runGit } from './run-git.ts';
import { HERMETIC_GIT_ENV, ScratchRepo, type BuiltPack } from './testing/scratch-repo.ts';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

function connect(): { repos: RepoStore; counting: CountingObjectStore } {
  const s3 = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket'), registry: new Registry() });
  cleanups.push(async () => s3.destroy());
  const counting = new CountingObjectStore(s3);
  return { repos: new RepoStore({ store: counting }), counting };
}

async function scratch(format: ObjectFormat = 'sha1'): Promise<ScratchRepo> {
  const repo = await ScratchRepo.create(format);
  cleanups.push(() => repo.remove());
  return repo;
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cw-bare-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'repo.git');
}

const repoName = () => `bare${Math.random().toString(36).slice(2, 10)}/repo`;

async function push(repos: RepoStore, repo: string, updates: RefUpdate[], built?: BuiltPack | { pack: Buffer }): Promise<number> {
  const pack = built && { body: built.pack, ...('idx' in built ? { idx: built.idx } : {}) };
  const result = await repos.publish(repo, { kind: 'push', refUpdates: updates, pusher: 'alice', requestId: 'r', atomic: true, ...(pack ? { pack } : {}) });
  if (result.outcome !== 'published') throw new Error(`not published: ${JSON.stringify(result.refs)}`);
  return result.seq;
}

async function git(dir: string, ...args: string[]): Promise<string> {
  return (await runGit(['-C', dir, ...args], { env: HERMETIC_GIT_ENV })).stdout.toString().trim();
}

/** `refname oid` lines, as git itself sees the refs of `dir`. */
async function refsOf(dir: string): Promise<string[]> {
  const out = await git(dir, 'for-each-ref', '--format=%(refname) %(objectname)');
  return out === '' ? [] : out.split('\n');
}

async function sync(repos: RepoStore, repo: string, dir: string, seq?: number): Promise<void> {
  const head = await repos.readHead(repo);
  // An older state with only the packs published by then (stateAt answers the head's packs, which hold every
  // object of every state): what this test checks is that a sync drops packs its state no longer lists.
  const state = seq === undefined ? head : { ...(await repos.stateAt(repo, seq)), packs: head.packs.filter((p) => p.seq <= seq) };
  await syncBareRepo({ repos, repo, head, state, dir });
}

describe('syncBareRepo', () => {
  it('mirrors published pushes into a bare repository, incrementally, and back to an older seq', async () => {
    const { repos, counting } = connect();
    const repo = repoName();
    await repos.createRepo(repo);
    const work = await scratch();
    const Z = zeroOid('sha1');

    const a = await work.commit('main', { 'README.md': '# hello\n', 'src/a.ts': 'export const a = 1;\n' });
    const v1 = await work.tag('v1', a);
    await push(
      repos,
      repo,
      [
        { ref: 'refs/heads/main', old: Z, new: a },
        { ref: 'refs/tags/v1', old: Z, new: v1 },
      ],
      await work.pack([a, v1]),
    );
    const b = await work.commit('main', { 'src/a.ts': 'export const a = 2;\n' });
    const c = await work.commit('feature', { 'src/b.ts': 'export const b = 1;\n' }, { from: a });
    // Published without an index: the sync builds one with index-pack.
    const { pack: packWithoutIdx } = await work.pack([b, c], [a, v1]);
    await push(
      repos,
      repo,
      [
        { ref: 'refs/heads/main', old: a, new: b },
        { ref: 'refs/heads/feature', old: Z, new: c },
      ],
      { pack: packWithoutIdx },
    );

    const dir = await tempDir();
    await sync(repos, repo, dir);
    await git(dir, 'fsck', '--full', '--strict');
    expect(await refsOf(dir)).toEqual([`refs/heads/feature ${c}`, `refs/heads/main ${b}`, `refs/tags/v1 ${v1}`]);
    expect(await git(dir, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    expect(await git(dir, 'rev-list', '--count', '--all')).toBe('3');
    expect((await readdir(join(dir, 'objects', 'pack'))).filter((f) => f.endsWith('.pack'))).toHaveLength(2);
    // git's own name for each pack: verify-pack reads it by that name and agrees with the checksum.
    for (const f of (await readdir(join(dir, 'objects', 'pack'))).filter((f) => f.endsWith('.idx'))) {
      await git(dir, 'verify-pack', join('objects', 'pack', f));
    }

    // Nothing changed: no pack is fetched again.
    counting.reset();
    await sync(repos, repo, dir);
    expect(counting.calls.filter((call) => call.key.includes('/packs/'))).toEqual([]);

    // A later state: only the new pack is fetched; the deleted branch is gone.
    const d = await work.commit('main', { 'src/c.ts': 'export const c = 3;\n' });
    await push(
      repos,
      repo,
      [
        { ref: 'refs/heads/main', old: b, new: d },
        { ref: 'refs/heads/feature', old: c, new: Z },
      ],
      await work.pack([d], [b, c, v1]),
    );
    counting.reset();
    await sync(repos, repo, dir);
    expect(counting.calls.filter((call) => call.key.endsWith('.pack')).length).toBe(1);
    await git(dir, 'fsck', '--full', '--strict');
    expect(await refsOf(dir)).toEqual([`refs/heads/main ${d}`, `refs/tags/v1 ${v1}`]);

    // Back to seq 1 in the same directory: the refs as they were, the later packs removed.
    await sync(repos, repo, dir, 1);
    expect(await refsOf(dir)).toEqual([`refs/heads/main ${a}`, `refs/tags/v1 ${v1}`]);
    expect((await readdir(join(dir, 'objects', 'pack'))).filter((f) => f.endsWith('.pack'))).toHaveLength(1);
    await git(dir, 'fsck', '--full', '--strict');
    expect(await git(dir, 'count-objects', '-v')).toMatch(/^in-pack: 6$/m); // 2 blobs, 2 trees, a commit and a tag
  });

  it('replaces the ref set at once: a concurrent reader sees the old or the new refs, never a mix', async () => {
    const { repos } = connect();
    const repo = repoName();
    await repos.createRepo(repo);
    const work = await scratch();
    const Z = zeroOid('sha1');
    const refs = Array.from({ length: 40 }, (_, i) => `refs/heads/b${String(i).padStart(2, '0')}`);
    const first = await work.commit('main', { f: '1' });
    const second = await work.commit('main', { f: '2' });
    await push(
      repos,
      repo,
      refs.map((ref) => ({ ref, old: Z, new: first })),
      await work.pack([second]),
    );
    await push(
      repos,
      repo,
      refs.map((ref) => ({ ref, old: first, new: second })),
    );
    const dir = await tempDir();
    await sync(repos, repo, dir, 1);

    const seen = new Set<string>();
    let syncing = true;
    const reader = (async () => {
      while (syncing) {
        const oids = new Set((await refsOf(dir)).map((line) => line.split(' ')[1]));
        seen.add([...oids].sort().join(','));
      }
    })();
    for (let i = 0; i < 20; i++) await sync(repos, repo, dir, i % 2 === 0 ? 2 : 1);
    syncing = false;
    await reader;
    // Every observation is one whole ref set: all 40 branches at one commit.
    expect([...seen].every((s) => s === first || s === second)).toBe(true);
    expect(seen.size).toBeGreaterThan(0);
  });

  it('recognises a live pack already moved into objects/pack (by a push) instead of fetching it', async () => {
    const { repos, counting } = connect();
    const repo = repoName();
    await repos.createRepo(repo);
    const work = await scratch();
    const a = await work.commit('main', { f: 'one\n' });
    await push(repos, repo, [{ ref: 'refs/heads/main', old: zeroOid('sha1'), new: a }], await work.pack([a]));
    const dir = await tempDir();
    await sync(repos, repo, dir);

    // What receive-pack does after publishing: the pack and its index renamed in under git's name.
    const b = await work.commit('main', { f: 'two\n' });
    const built = await work.pack([b], [a]);
    await push(repos, repo, [{ ref: 'refs/heads/main', old: a, new: b }], built);
    const name = `pack-${built.pack.subarray(-20).toString('hex')}`;
    await writeFile(join(dir, 'objects', 'pack', `${name}.pack`), built.pack);
    await writeFile(join(dir, 'objects', 'pack', `${name}.idx`), built.idx);
    counting.reset();
    await sync(repos, repo, dir);
    expect(counting.calls.filter((call) => call.key.includes('/packs/'))).toEqual([]);
    expect(await refsOf(dir)).toEqual([`refs/heads/main ${b}`]);
    await git(dir, 'fsck', '--full', '--strict');
    // Recognised packs are tracked like fetched ones: going back to seq 1 removes it.
    await sync(repos, repo, dir, 1);
    expect((await readdir(join(dir, 'objects', 'pack'))).some((f) => f.startsWith(name))).toBe(false);
  });

  it('materialises a sha256 repository, and a pristine one', async () => {
    const { repos } = connect();
    const repo = repoName();
    await repos.createRepo(repo, { objectFormat: 'sha256', headRef: 'refs/heads/trunk' });
    const pristine = await tempDir();
    await sync(repos, repo, pristine);
    expect(await refsOf(pristine)).toEqual([]);
    expect(await git(pristine, 'rev-parse', '--show-object-format')).toBe('sha256');
    expect(await git(pristine, 'symbolic-ref', 'HEAD')).toBe('refs/heads/trunk');

    const work = await scratch('sha256');
    const a = await work.commit('trunk', { 'x.txt': 'x\n' });
    expect(a).toHaveLength(64);
    await push(repos, repo, [{ ref: 'refs/heads/trunk', old: zeroOid('sha256'), new: a }], await work.pack([a]));
    await sync(repos, repo, pristine);
    await git(pristine, 'fsck', '--full', '--strict');
    expect(await refsOf(pristine)).toEqual([`refs/heads/trunk ${a}`]);
  });

  it('refuses a directory of the other object format, and a pack the bucket does not have', async () => {
    const { repos } = connect();
    const repo = repoName();
    await repos.createRepo(repo, { objectFormat: 'sha256' });
    const dir = await tempDir();
    await runGit(['init', '--quiet', '--bare', '--object-format=sha1', dir]);
    await expect(sync(repos, repo, dir)).rejects.toThrow(`${dir} is a sha1 repository; the repository is sha256`);

    const other = repoName();
    await repos.createRepo(other);
    const work = await scratch();
    const a = await work.commit('main', { f: 'f' });
    await push(repos, other, [{ ref: 'refs/heads/main', old: zeroOid('sha1'), new: a }], await work.pack([a]));
    const head = await repos.readHead(other);
    const lying = { ...head, packs: [{ ...head.packs[0]!, sha256: 'f'.repeat(64) }] };
    await expect(syncBareRepo({ repos, repo: other, head, state: lying, dir: await tempDir() })).rejects.toBeInstanceOf(PackUnavailableError);
  });
});
