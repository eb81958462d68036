import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../src/object-store/memory-object-store.ts';
import { parseRepoPath, RepoExistsError, RepoStore } from '../../src/repo-store/index.ts';
import { BucketRepositoryDirectory } from './bucket-repository-directory.ts';
import { describeRepositoryDirectoryContract } from './testing/repository-directory-contract.ts';

const objects = new MemoryObjectStore();
describeRepositoryDirectoryContract('BucketRepositoryDirectory on MemoryObjectStore', () => ({
  directory: new BucketRepositoryDirectory(new RepoStore({ store: objects })),
  repos: new RepoStore({ store: objects }),
  objects,
}));

describe('BucketRepositoryDirectory with a bound on repositories per owner', () => {
  it("refuses an owner's repository past the bound (409 repository_limit_reached), counts no other owner's, and takes one again once another is deleted", async () => {
    const store = new MemoryObjectStore();
    const repos = new RepoStore({ store });
    const directory = new BucketRepositoryDirectory(repos, { objects: store, maxPerOwner: 2 });
    for (const name of ['acme/one', 'acme/two', 'other/one']) await directory.create(parseRepoPath(name));
    await expect(directory.create(parseRepoPath('acme/three'))).rejects.toMatchObject({ status: 409, code: 'repository_limit_reached', message: expect.stringContaining('acme has 2 repositories') });
    // A name taken already is refused as taken, not as one too many.
    await expect(directory.create(parseRepoPath('acme/two'))).rejects.toBeInstanceOf(RepoExistsError);
    await directory.delete(parseRepoPath('acme/one'));
    await directory.create(parseRepoPath('acme/three'));
    await expect(repos.readHead('acme/three')).resolves.toMatchObject({ seq: 0 });
  });
});
