import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitCommandError } from '../../../src/git/run-git.ts';
import { ScratchRepo } from '../../../src/git/testing/scratch-repo.ts';
import { MemoryObjectStore } from '../../../src/object-store/memory-object-store.ts';
import { RepoStore, zeroOid } from '../../../src/repo-store/index.ts';
import { ArchiveTooLargeError, gitArchiveToFile } from './archive-file.ts';
import { sourceError, SourceExporter, SourceUnavailableError, type SourceCopyLimits } from './source-export.ts';

describe('sourceError', () => {
  it('fails the build with SourceUnavailable for an archive over the cap, rather than retrying it', () => {
    const err = sourceError(new ArchiveTooLargeError('the source archive is larger than 536870912 bytes'), 'missing');
    expect(err).toBeInstanceOf(SourceUnavailableError);
    expect((err as Error).message).toMatch(/larger than 536870912 bytes \(512 MiB at most\)/);
  });

  it('says what is missing when git cannot find the commit or the directory', () => {
    const err = sourceError(new GitCommandError('git archive', 128, 'exited with code 128', 'fatal: not a tree object: abc:nope'), 'nope is not a directory');
    expect(err).toEqual(new SourceUnavailableError('nope is not a directory'));
  });

  it('fails the build with SourceUnavailable for a file git cannot hold to archive it (an export-subst expansion), rather than retrying it for a day', async () => {
    const work = await ScratchRepo.create('sha1');
    try {
      // 1.2 MB expanding to 960 MB: git gives up at its allocation limit (GIT_ALLOC_LIMIT, which runGit sets).
      const commit = await work.commit('main', { '.gitattributes': '* export-subst\n', 'version.txt': '$Format:%>(16000)%H$'.repeat(60_000) });
      const failure = await gitArchiveToFile(work.dir, commit, 'tar', join(work.dir, 'out.tar'), 1 << 30).catch((err: unknown) => err);
      expect(sourceError(failure, 'missing')).toEqual(new SourceUnavailableError("a file of the commit is larger than git may hold in memory to archive it (git's allocation limit, 256m)"));
    } finally {
      await work.remove();
    }
  });

  it('leaves any other failure as it is (retried)', () => {
    const other = new GitCommandError('git archive', null, 'could not run: ENOENT');
    expect(sourceError(other, 'missing')).toBe(other);
  });
});

/** The file a finished sync leaves in a copy (source-export.ts). */
const SYNCED_MARKER = 'cloudwright-repo-id';

describe('SourceExporter', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  /** `repo` made in `repos` with one commit on main (its files `files`); its incarnation and the commit. */
  async function pushed(repos: RepoStore, repo: string, files: Record<string, string>, message?: string): Promise<{ repoId: string; commit: string }> {
    await repos.createRepo(repo);
    const work = await ScratchRepo.create('sha1');
    cleanups.push(() => work.remove());
    const commit = await work.commit('main', files, message === undefined ? {} : { message });
    const { pack, idx } = await work.pack([commit]);
    const published = await repos.publish(repo, {
      kind: 'push',
      refUpdates: [{ ref: 'refs/heads/main', old: zeroOid('sha1'), new: commit }],
      pusher: 'alice',
      requestId: 'r',
      atomic: true,
      pack: { body: pack, idx },
    });
    expect(published.outcome).toBe('published');
    return { repoId: (await repos.readHead(repo)).repoId, commit };
  }

  /** A repository in a bucket with one commit on main, and an exporter working in a directory of its own. */
  async function setUp(message?: string, limits?: SourceCopyLimits) {
    const repos = new RepoStore({ store: new MemoryObjectStore() });
    const repo = 'acme/site';
    const { repoId, commit } = await pushed(repos, repo, { 'index.html': '<h1>hi</h1>\n' }, message);
    const workDir = await mkdtemp(join(tmpdir(), 'cw-export-'));
    cleanups.push(() => rm(workDir, { recursive: true, force: true }));
    const artifacts = new MemoryObjectStore();
    const exporter = new SourceExporter({ repos, artifacts, workDir, ...(limits ? { limits } : {}) });
    return { exporter, repos, artifacts, repo, repoId, commit, workDir, copy: join(workDir, 'repos', 'acme', 'site.git') };
  }

  it('gives the commit’s subject without control characters, which the build’s status refuses (its start was retried for a day)', async () => {
    const { exporter, repo, repoId, commit } = await setUp('fix:\tthe \u001b[31mred\u001b[0m page');
    const exported = await exporter.export(repo, repoId, commit, undefined, { key: 'source.tar', format: 'tar' });
    expect(exported.commitMessage).toBe('fix: the  [31mred [0m page');
  });

  it('makes again a copy whose first sync a kill cut short (git init left HEAD without objects, or a lock), rather than failing every build', async () => {
    for (const leftover of [{ HEAD: 'ref: refs/heads/main\n' }, { HEAD: 'ref: refs/heads/main\n', 'HEAD.lock': '', 'config.lock': '' }]) {
      const { exporter, artifacts, repo, repoId, commit, copy } = await setUp();
      // After the process's first export, which clears what an earlier process left: a sync cut short in this one.
      await exporter.export(repo, repoId, commit, undefined, { key: 'first.tar', format: 'tar' });
      await rm(copy, { recursive: true, force: true });
      await mkdir(copy, { recursive: true });
      for (const [name, content] of Object.entries(leftover)) await writeFile(join(copy, name), content);
      const exported = await exporter.export(repo, repoId, commit, undefined, { key: 'source.tar', format: 'tar' });
      expect(exported.key).toBe('source.tar');
      expect((await artifacts.get('source.tar'))?.kind).toBe('object');
      // Synced once: the next build uses the copy as it is.
      await exporter.export(repo, repoId, commit, undefined, { key: 'again.tar', format: 'tar' });
      expect((await artifacts.get('again.tar'))?.kind).toBe('object');
    }
  });
  it('refuses a repository larger than the copies may be, before fetching any of it (review-162 F2)', async () => {
    const { exporter, repo, repoId, commit, copy } = await setUp(undefined, { maxRepositoryBytes: 100, cacheBytes: 1024 ** 3 });
    const refused = await exporter.export(repo, repoId, commit, undefined, { key: 'source.tar', format: 'tar' }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(SourceUnavailableError);
    expect((refused as Error).message).toMatch(/^the repository is \d+ bytes; push to deploy builds repositories of at most 100 bytes$/);
    expect(existsSync(copy)).toBe(false);
  });

  it('keeps the copies within their bytes, the least recently built removed first, and clears what an earlier process left (review-162 F2)', async () => {
    const { exporter, repos, repo, repoId, commit, workDir, copy } = await setUp(undefined, { maxRepositoryBytes: 1024 ** 3, cacheBytes: 1 });
    const other = await pushed(repos, 'acme/docs', { 'readme.md': 'docs\n' });
    await mkdir(join(workDir, 'archive-left'), { recursive: true });
    await writeFile(join(workDir, 'archive-left', 'source.tar'), 'an archive an OOM kill cut short');
    await exporter.export(repo, repoId, commit, undefined, { key: 'a.tar', format: 'tar' });
    expect(existsSync(join(workDir, 'archive-left'))).toBe(false);
    // One byte of cache: a copy is removed once its export is done, unless another export of it waits.
    expect(existsSync(copy)).toBe(false);
    const [first, second] = await Promise.all([
      exporter.export(repo, repoId, commit, undefined, { key: 'b.tar', format: 'tar' }),
      exporter.export('acme/docs', other.repoId, other.commit, undefined, { key: 'c.tar', format: 'tar' }),
    ]);
    expect([first.key, second.key]).toEqual(['b.tar', 'c.tar']);
    expect([existsSync(copy), existsSync(join(workDir, 'repos', 'acme', 'docs.git'))]).toEqual([false, false]);
  });

  it('keeps a copy that fits, so the next build fetches only what was pushed since', async () => {
    const { exporter, repo, repoId, commit, copy } = await setUp(undefined, { maxRepositoryBytes: 1024 ** 3, cacheBytes: 1024 ** 2 });
    await exporter.export(repo, repoId, commit, undefined, { key: 'a.tar', format: 'tar' });
    expect(existsSync(join(copy, SYNCED_MARKER))).toBe(true);
  });
});
