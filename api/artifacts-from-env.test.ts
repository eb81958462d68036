import { describe, expect, it } from 'vitest';
import { artifactsFromEnv } from './artifacts-from-env.ts';

describe('artifactsFromEnv', () => {
  it('is absent without a bucket, and a store with one', () => {
    expect(artifactsFromEnv({})).toBeUndefined();
    expect(artifactsFromEnv({ CW_S3_BUCKET: 'builds', CW_S3_ENDPOINT: 'http://127.0.0.1:9000' })).toBeDefined();
  });

  it('refuses half a key pair and a bad path-style flag in one line, never showing the secret', () => {
    expect(() => artifactsFromEnv({ CW_S3_BUCKET: 'builds', CW_S3_SECRET_ACCESS_KEY: 'hunter2-secret' })).toThrow(
      /^CW_S3_ACCESS_KEY_ID and CW_S3_SECRET_ACCESS_KEY go together/,
    );
    expect(() => artifactsFromEnv({ CW_S3_BUCKET: 'builds', CW_S3_SECRET_ACCESS_KEY: 'hunter2-secret' })).not.toThrow(/hunter2/);
    expect(() => artifactsFromEnv({ CW_S3_BUCKET: 'builds', CW_S3_FORCE_PATH_STYLE: 'yes' })).toThrow('CW_S3_FORCE_PATH_STYLE must be true or false, not "yes"');
  });
});
