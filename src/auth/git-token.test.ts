import { describe, expect, it } from 'vitest';
import { GIT_TOKEN_ID_PATTERN, generateGitToken, gitTokenSha256, isGitTokenLike, isWellFormedGitToken, newGitTokenId } from './git-token.ts';

describe('project git tokens', () => {
  it('are cwg_ and 43 base-62 characters, different every time, hashed to 64 hex digits', () => {
    const a = generateGitToken();
    const b = generateGitToken();
    expect(a).toMatch(/^cwg_[0-9A-Za-z]{43}$/);
    expect(a).not.toBe(b);
    expect(isWellFormedGitToken(a)).toBe(true);
    expect(isGitTokenLike(a)).toBe(true);
    expect(gitTokenSha256(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(gitTokenSha256(a)).not.toBe(gitTokenSha256(b));
  });

  it('tells other credentials apart', () => {
    for (const value of ['cwt_abc', 'eyJhbGciOiJIUzI1NiJ9.e30.x', '']) expect(isGitTokenLike(value)).toBe(false);
    for (const value of ['cwg_', `cwg_${'a'.repeat(42)}`, `cwg_${'a'.repeat(44)}`, `cwg_${'a'.repeat(42)}+`]) expect(isWellFormedGitToken(value)).toBe(false);
  });

  it('has ids of their own shape, unrelated to the token', () => {
    expect(newGitTokenId()).toMatch(new RegExp(GIT_TOKEN_ID_PATTERN));
    expect(newGitTokenId()).not.toBe(newGitTokenId());
  });
});
