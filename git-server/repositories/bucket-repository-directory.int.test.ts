import { inject } from 'vitest';
import { S3ObjectStore } from '../../src/object-store/s3-object-store.ts';
import { RepoStore } from '../../src/repo-store/index.ts';
import { BucketRepositoryDirectory } from './bucket-repository-directory.ts';
import { describeRepositoryDirectoryContract } from './testing/repository-directory-contract.ts';

const objects = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
describeRepositoryDirectoryContract('BucketRepositoryDirectory on MinIO', () => ({
  directory: new BucketRepositoryDirectory(new RepoStore({ store: new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') }) })),
  repos: new RepoStore({ store: objects }),
  objects,
}));
