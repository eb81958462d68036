import { inject } from 'vitest';
import { S3ObjectStore } from '../object-store/s3-object-store.ts';
import { RepoStore } from '../repo-store/index.ts';
import { BucketRepositoryDirectory } from './bucket-repository-directory.ts';
import { describeRepositoryDirectoryContract } from './testing/repository-directory-contract.ts';

const objects = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') });
describeRepositoryDirectoryContract('BucketRepositoryDirectory on MinIO', () => ({
  directory: new BucketRepositoryDirectory(new RepoStore({ store: new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket') }) })),
  repos: new RepoStore({ store: objects }),
  objects,
}));
