import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { UnauthenticatedError } from './errors.ts';
import { mintToken, verifyToken } from './token.ts';

const SECRET = 'k'.repeat(32);
const NOW = Date.UTC(2030, 0, 1);

const segment = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A token with any header and payload, signed correctly with `secret` (HS256). */
function forge(header: unknown, payload: unknown, secret = SECRET): string {
  const input = `${segment(header)}.${segment(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

const claims = { sub: 'alice', aud: 'cw-git', scope: 'read', iat: NOW / 1000 };

function refusal(token: string, now = NOW): string {
  try {
    verifyToken(token, SECRET, now);
  } catch (err) {
    expect(err).toBeInstanceOf(UnauthenticatedError);
    expect((err as UnauthenticatedError).status).toBe(401);
    return (err as Error).message;
  }
  throw new Error('expected the token to be refused');
}

describe('cw-git tokens', () => {
  it('mints a JWT that verifies, with the documented claims', () => {
    const token = mintToken({ sub: 'ci-bot', scopes: ['read', 'write'], ttlSeconds: 3600 }, SECRET, NOW);
    const [header, payload] = token
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()) as unknown);
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(payload).toEqual({ sub: 'ci-bot', aud: 'cw-git', scope: 'read write', iat: NOW / 1000, exp: NOW / 1000 + 3600 });
    const verified = verifyToken(token, SECRET, NOW + 1000);
    expect({ ...verified, scopes: [...verified.scopes] }).toEqual({ sub: 'ci-bot', scopes: ['read', 'write'], iat: NOW / 1000, exp: NOW / 1000 + 3600, reach: { all: true } });
  });

  it('carries the repositories a token reaches in repos; without it, every repository', () => {
    const token = mintToken({ sub: 'ci-bot', scopes: ['read'], repos: ['acme', 'team-*/site'] }, SECRET, NOW);
    expect(JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString())).toMatchObject({ repos: ['acme', 'team-*/site'] });
    const { reach } = verifyToken(token, SECRET, NOW);
    expect(reach.all === false && reach.patterns).toEqual(['acme/*', 'team-*/site']);
    expect(verifyToken(mintToken({ sub: 'ops', scopes: ['read'] }, SECRET, NOW), SECRET, NOW).reach.all).toBe(true);
    expect(() => mintToken({ sub: 'ci-bot', scopes: ['read'], repos: ['a/b/c'] }, SECRET)).toThrow(/not a repository pattern/);
    expect(() => mintToken({ sub: 'ci-bot', scopes: ['read'], repos: [] }, SECRET)).toThrow(/at least one/);
  });

  it.each([
    ['an empty list', []],
    ['a string', 'acme'],
    ['a number in the list', ['acme', 1]],
    ['an invalid pattern', ['acme/**']],
    ['null', null],
  ])('refuses a well-signed repos claim that is %s, rather than widening the token', (_what, repos) => {
    expect(refusal(forge({ alg: 'HS256' }, { ...claims, repos }))).toMatch(/malformed/);
  });

  it('lets write imply read, ignores unknown scopes, and never expires without exp', () => {
    const writeOnly = verifyToken(forge({ alg: 'HS256' }, { ...claims, scope: 'write admin' }), SECRET, NOW + 10 * 365 * 86_400_000);
    expect([...writeOnly.scopes].sort()).toEqual(['read', 'write']);
    expect(verifyToken(forge({ alg: 'HS256', typ: 'JWT' }, { ...claims, scope: 'admin' }), SECRET, NOW).scopes.size).toBe(0);
    expect(verifyToken(forge({ alg: 'HS256' }, { ...claims, aud: ['other', 'cw-git'] }), SECRET, NOW).sub).toBe('alice');
  });

  it('refuses an expired token from its exp on, and one used before nbf', () => {
    const token = mintToken({ sub: 'alice', scopes: ['read'], ttlSeconds: 60 }, SECRET, NOW);
    expect(verifyToken(token, SECRET, NOW + 59_999).sub).toBe('alice');
    expect(refusal(token, NOW + 60_000)).toBe('The access token expired at 2030-01-01T00:01:00.000Z.');
    expect(refusal(forge({ alg: 'HS256' }, { ...claims, nbf: NOW / 1000 + 5 }))).toBe('The access token is not valid yet.');
  });

  it('refuses algorithms other than HS256, none included', () => {
    const payload = segment(claims);
    expect(refusal(`${segment({ alg: 'none' })}.${payload}.x`)).toBe('The access token is not signed with HS256.');
    expect(refusal(`${segment({ alg: 'none' })}.${payload}.`)).toMatch(/malformed/);
    expect(refusal(forge({ alg: 'HS512' }, claims))).toBe('The access token is not signed with HS256.');
    expect(refusal(forge({ alg: 'RS256' }, claims))).toBe('The access token is not signed with HS256.');
    expect(refusal(forge({ alg: 'HS256', crit: ['b64'], b64: false }, claims))).toMatch(/extensions/);
  });

  it('refuses a token signed with another secret, or changed after signing', () => {
    expect(refusal(forge({ alg: 'HS256' }, claims, 'x'.repeat(32)))).toMatch(/signature is invalid/);
    const [header, , signature] = mintToken({ sub: 'alice', scopes: ['read'] }, SECRET, NOW).split('.');
    expect(refusal(`${header}.${segment({ ...claims, scope: 'read write' })}.${signature}`)).toMatch(/signature is invalid/);
    expect(refusal(`${header}.${segment(claims)}.${signature?.slice(0, -2)}`)).toMatch(/signature is invalid/);
  });

  it('refuses a token for another audience', () => {
    expect(refusal(forge({ alg: 'HS256' }, { ...claims, aud: 'cloudwright' }))).toMatch(/not meant for cw-git/);
    expect(refusal(forge({ alg: 'HS256' }, { sub: 'alice', scope: 'read', iat: 1 }))).toMatch(/not meant for cw-git/);
  });

  it.each([
    ['not a JWT', 'cwt_abcdef'],
    ['two parts', 'a.b'],
    ['four parts', 'a.b.c.d'],
    ['bad characters', 'a+b.c.d'],
    ['too long', `${'a'.repeat(5000)}.b.c`],
    ['a header that is not JSON', `${Buffer.from('nope').toString('base64url')}.${segment(claims)}.c`],
  ])('refuses a malformed token: %s', (_what, token) => {
    expect(refusal(token)).toMatch(/malformed/);
  });

  it.each([
    ['no subject', { ...claims, sub: '' }],
    ['a subject with spaces', { ...claims, sub: 'a b' }],
    ['a numeric scope', { ...claims, scope: 1 }],
    ['a string iat', { ...claims, iat: 'now' }],
    ['a string exp', { ...claims, exp: 'never' }],
  ])('refuses well-signed claims of the wrong shape: %s', (_what, payload) => {
    expect(refusal(forge({ alg: 'HS256' }, payload))).toMatch(/malformed/);
  });

  it('refuses to mint what it would not accept', () => {
    expect(() => mintToken({ sub: '', scopes: ['read'] }, SECRET)).toThrow(/subject/);
    expect(() => mintToken({ sub: 'alice', scopes: [] }, SECRET)).toThrow(/scopes/);
    expect(() => mintToken({ sub: 'alice', scopes: ['admin' as 'read'] }, SECRET)).toThrow(/scopes/);
    expect(() => mintToken({ sub: 'alice', scopes: ['read'], ttlSeconds: 0 }, SECRET)).toThrow(/lifetime/);
    expect(() => mintToken({ sub: 'alice', scopes: ['read'], ttlSeconds: 1.5 }, SECRET)).toThrow(/lifetime/);
    expect(() => mintToken({ sub: 'alice', scopes: ['read'] }, 'short')).toThrow(/at least 32 bytes/);
  });
});
