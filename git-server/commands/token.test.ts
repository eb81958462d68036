import { describe, expect, it } from 'vitest';
import { mintToken } from '../auth/index.ts';
import { UsageError } from './args.ts';
import { expiryOf, parseRepos, parseScopes, parseTtl } from './token.ts';

describe('token arguments', () => {
  it('parses lifetimes, never, and refuses the rest', () => {
    expect(parseTtl('30d')).toBe(30 * 86_400);
    expect(parseTtl('12h')).toBe(43_200);
    expect(parseTtl('90s')).toBe(90);
    expect(parseTtl('never')).toBeUndefined();
    for (const bad of ['0d', '30', 'd', '1.5h', '-1d', '30 d', '1w']) expect(() => parseTtl(bad)).toThrow(UsageError);
    expect(() => parseTtl('4000d')).toThrow('longer than ten years');
  });

  it('parses scopes once each', () => {
    expect(parseScopes('read')).toEqual(['read']);
    expect(parseScopes('read,write')).toEqual(['read', 'write']);
    expect(() => parseScopes('read,admin')).toThrow('unknown scope "admin" (scopes: read, write)');
    expect(() => parseScopes('read,read')).toThrow('names a scope twice');
    expect(() => parseScopes('')).toThrow('unknown scope ""');
  });

  it('parses repository patterns, refusing what is no pattern', () => {
    expect(parseRepos('acme, team-*,docs/site')).toEqual(['acme', 'team-*', 'docs/site']);
    expect(() => parseRepos('acme,a/b/c')).toThrow(/--repos: "a\/b\/c" is not a repository pattern/);
    expect(() => parseRepos('')).toThrow(UsageError);
  });

  it('reads the expiry back from a token', () => {
    const secret = 'x'.repeat(32);
    expect(expiryOf(mintToken({ sub: 'a', scopes: ['read'], ttlSeconds: 60 }, secret, Date.parse('2030-01-01T00:00:00Z')))).toBe('2030-01-01T00:01:00.000Z');
    expect(expiryOf(mintToken({ sub: 'a', scopes: ['read'] }, secret))).toBeNull();
    expect(expiryOf('garbage')).toBeNull();
  });
});
