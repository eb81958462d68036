import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { S3ObjectStore } from '../../../src/object-store/s3-object-store.ts';
import { RepoStore } from '../../../src/repo-store/index.ts';
import { repositoryStore } from './bucket.ts';

describe('repositoryStore', () => {
  it('is disabled, saying why, without CW_GIT_BUCKET', () => {
    expect(repositoryStore(undefined, new Registry())).toEqual({ disabled: expect.stringContaining('CW_GIT_BUCKET is not set') });
  });

  it('makes a store for the bucket, and hands its objects to the overview', () => {
    const s3 = { endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'id', secretAccessKey: 'secret' } };
    const result = repositoryStore({ bucket: 'git', s3 }, new Registry());
    expect(result).toMatchObject({ bucket: 'git' });
    expect('store' in result && result.store.repos).toBeInstanceOf(RepoStore);
    expect('store' in result && result.store.objects).toBeInstanceOf(S3ObjectStore);
  });
});
