import { MemoryObjectStore } from '../../src/object-store/memory-object-store.ts';
import { RepoStore } from '../../src/repo-store/index.ts';
import { BucketRepositoryDirectory } from './bucket-repository-directory.ts';
import { describeRepositoryDirectoryContract } from './testing/repository-directory-contract.ts';

const objects = new MemoryObjectStore();
describeRepositoryDirectoryContract('BucketRepositoryDirectory on MemoryObjectStore', () => ({
  directory: new BucketRepositoryDirectory(new RepoStore({ store: objects })),
  repos: new RepoStore({ store: objects }),
  objects,
}));
