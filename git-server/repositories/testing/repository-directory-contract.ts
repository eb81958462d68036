// The RepositoryDirectory contract, run against every implementation: the bucket one (MemoryObjectStore in
// unit tests, MinIO in integration tests) and the Kubernetes one (real apiserver, the Repository controller
// and MinIO, in e2e/repository-directory.test.ts). Each case observes the bucket through its own RepoStore.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ObjectStore } from '../../../src/object-store/object-store.ts';
import { listAll } from '../../../src/object-store/list-all.ts';
import { RepoExistsError, RepoNotFoundError, parseRepoPath, repoPrefix, type RepoPath, type RepoStore } from '../../../src/repo-store/index.ts';
import { Z, oid, smallPack, update } from '../../../src/repo-store/testing/repo-store-scenarios.ts';
import { InvalidBranchNameError, type RepositoryDirectory } from '../repository-directory.ts';

export interface DirectorySubject {
  directory: RepositoryDirectory;
  /** Reads the bucket the directory writes to (a client of its own, revalidating every read). */
  repos: RepoStore;
  objects: ObjectStore;
}

function newRepo(name = 'repo'): RepoPath {
  return parseRepoPath(`c${randomBytes(5).toString('hex')}/${name}`);
}

/** The keys of every object under the repository's prefix. */
export async function objectKeys(objects: ObjectStore, repo: RepoPath | string): Promise<string[]> {
  const keys: string[] = [];
  for await (const item of listAll(objects, repoPrefix(typeof repo === 'string' ? parseRepoPath(repo) : repo))) keys.push(item.key);
  return keys;
}

/** Pushes something (a pack and a branch), so a delete has more than the manifest to remove. */
async function push(repos: RepoStore, repo: RepoPath): Promise<void> {
  const result = await repos.publish(repo.full, update([{ ref: 'refs/heads/main', old: Z, new: oid(repo.full) }], { kind: 'push', pack: smallPack() }));
  expect(result.outcome).toBe('published');
}

export function describeRepositoryDirectoryContract(name: string, subject: () => DirectorySubject, timeout = 30_000): void {
  describe(`RepositoryDirectory contract: ${name}`, { timeout }, () => {
    it('creates a pristine repository with HEAD on main, resolving once it is in the bucket', async () => {
      const { directory, repos } = subject();
      const repo = newRepo();
      await directory.create(repo);
      const head = await repos.readHead(repo.full);
      expect(head).toMatchObject({ repo: repo.full, seq: 0, headRef: 'refs/heads/main' });
      expect(head.refs.size).toBe(0);
    });

    it('points HEAD at the default branch asked for', async () => {
      const { directory, repos } = subject();
      const repo = newRepo();
      await directory.create(repo, { defaultBranch: 'release/1.x' });
      expect((await repos.readHead(repo.full)).headRef).toBe('refs/heads/release/1.x');
    });

    it('refuses an invalid default branch with a 400 and creates nothing', async () => {
      const { directory, repos } = subject();
      const repo = newRepo();
      for (const branch of ['a..b', 'x.lock', '/lead', 'sp ace', '']) {
        const error = await directory.create(repo, { defaultBranch: branch }).catch((e: unknown) => e);
        expect(error, branch).toBeInstanceOf(InvalidBranchNameError);
        expect((error as InvalidBranchNameError).status).toBe(400);
      }
      await expect(repos.readHead(repo.full)).rejects.toBeInstanceOf(RepoNotFoundError);
    });

    it('answers RepoExistsError for a taken name and leaves the repository as it was', async () => {
      const { directory, repos } = subject();
      const repo = newRepo();
      await directory.create(repo);
      await push(repos, repo);
      const before = await repos.readHead(repo.full);
      await expect(directory.create(repo, { defaultBranch: 'other' })).rejects.toBeInstanceOf(RepoExistsError);
      const after = await repos.readHead(repo.full);
      expect({ repoId: after.repoId, seq: after.seq, headRef: after.headRef }).toEqual({ repoId: before.repoId, seq: 1, headRef: 'refs/heads/main' });
    });

    it('lets exactly one of concurrent creates of one name win', async () => {
      const { directory, repos } = subject();
      const repo = newRepo();
      const results = await Promise.allSettled(Array.from({ length: 4 }, () => directory.create(repo)));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(RepoExistsError);
      expect((await repos.readHead(repo.full)).seq).toBe(0);
    });

    it('keeps names apart that differ only in case', async () => {
      const { directory, repos } = subject();
      const lower = newRepo('app');
      const upper = parseRepoPath(`${lower.owner.toUpperCase()}/App`);
      await directory.create(lower);
      await directory.create(upper);
      const [a, b] = await Promise.all([repos.readHead(lower.full), repos.readHead(upper.full)]);
      expect(a.repoId).not.toBe(b.repoId);
      await directory.delete(upper);
      expect((await repos.readHead(lower.full)).repoId).toBe(a.repoId);
    });

    it('deletes the repository and every object under its prefix, resolving once they are gone', async () => {
      const { directory, repos, objects } = subject();
      const repo = newRepo();
      await directory.create(repo);
      await push(repos, repo);
      expect((await objectKeys(objects, repo)).length).toBeGreaterThan(2);
      await directory.delete(repo);
      await expect(repos.readHead(repo.full)).rejects.toBeInstanceOf(RepoNotFoundError);
      expect(await objectKeys(objects, repo)).toEqual([]);
    });

    it('answers RepoNotFoundError when deleting a repository that does not exist', async () => {
      const { directory } = subject();
      const error = await directory.delete(newRepo()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RepoNotFoundError);
      expect((error as RepoNotFoundError).status).toBe(404);
    });

    it('creates a new, pristine incarnation after a delete', async () => {
      const { directory, repos } = subject();
      const repo = newRepo();
      await directory.create(repo);
      await push(repos, repo);
      const first = (await repos.readHead(repo.full)).repoId;
      await directory.delete(repo);
      await directory.create(repo);
      const again = await repos.readHead(repo.full);
      expect(again.repoId).not.toBe(first);
      expect({ seq: again.seq, refs: again.refs.size }).toEqual({ seq: 0, refs: 0 });
    });
  });
}
