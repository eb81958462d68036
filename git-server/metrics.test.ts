import { describe, expect, it } from 'vitest';
import { isPushRequest } from './metrics.ts';

describe('isPushRequest', () => {
  it('is the push and its ref advertisement, nothing else', () => {
    expect(isPushRequest('/acme/site/git-receive-pack')).toBe(true);
    expect(isPushRequest('/acme/site.git/info/refs?service=git-receive-pack')).toBe(true);
    expect(isPushRequest('/acme/site/info/refs?service=git-upload-pack')).toBe(false);
    expect(isPushRequest('/acme/site/git-upload-pack')).toBe(false);
    expect(isPushRequest('/acme/site/info/lfs/objects/batch')).toBe(false);
  });
});
