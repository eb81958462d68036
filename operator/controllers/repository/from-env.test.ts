import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RepoStore } from '../../../src/repo-store/index.ts';
import { repositoryStoreFromEnv } from './from-env.ts';

describe('repositoryStoreFromEnv', () => {
  it('is disabled, saying why, without CW_GIT_BUCKET', () => {
    const result = repositoryStoreFromEnv({ CW_S3_ENDPOINT: 'http://127.0.0.1:9000' }, new Registry());
    expect(result).toEqual({ disabled: expect.stringContaining('CW_GIT_BUCKET is not set') });
  });

  it('makes a store for the bucket', () => {
    const result = repositoryStoreFromEnv({ CW_GIT_BUCKET: 'git', CW_S3_ENDPOINT: 'http://127.0.0.1:9000', CW_S3_ACCESS_KEY_ID: 'id', CW_S3_SECRET_ACCESS_KEY: 'secret' }, new Registry());
    expect(result).toMatchObject({ bucket: 'git' });
    expect('store' in result && result.store).toBeInstanceOf(RepoStore);
  });

  it('refuses half a key pair or a bad path-style flag in one line that shows no secret', () => {
    const secret = 'do-not-print-me';
    expect(() => repositoryStoreFromEnv({ CW_GIT_BUCKET: 'git', CW_S3_SECRET_ACCESS_KEY: secret }, new Registry())).toThrow(/^CW_S3_ACCESS_KEY_ID and CW_S3_SECRET_ACCESS_KEY go together/);
    try {
      repositoryStoreFromEnv({ CW_GIT_BUCKET: 'git', CW_S3_SECRET_ACCESS_KEY: secret }, new Registry());
    } catch (err) {
      expect(String(err)).not.toContain(secret);
    }
    expect(() => repositoryStoreFromEnv({ CW_GIT_BUCKET: 'git', CW_S3_FORCE_PATH_STYLE: 'yes' }, new Registry())).toThrow('CW_S3_FORCE_PATH_STYLE must be true or false, not "yes"');
  });
});
