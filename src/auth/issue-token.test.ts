import { describe, expect, it } from 'vitest';
import type { Principal } from './authenticate.ts';
import { ForbiddenError } from './errors.ts';
import { assertCanGrant, issueToken, mintToken } from './issue-token.ts';
import { MemoryTokenStore } from './memory-token-store.ts';
import type { Scope } from './scopes.ts';
import { hashToken, isTokenId, parseToken } from './token.ts';
import { BadRequestError } from '../errors.ts';

const NOW = new Date('2030-06-01T12:00:00Z');

describe('issueToken', () => {
  it('stores the hash, never the plaintext, and returns the plaintext once', async () => {
    const store = new MemoryTokenStore();
    const { token, record } = await issueToken('alice', { scopes: ['apps:read'], description: '  laptop  ' }, store, NOW);
    expect(parseToken(token).ok).toBe(true);
    expect(isTokenId(record.id)).toBe(true);
    expect(record).toEqual({
      id: record.id,
      userId: 'alice',
      tokenHash: hashToken(token),
      scopes: ['apps:read'],
      description: 'laptop',
      createdAt: NOW,
      expiresAt: undefined,
      revoked: false,
    });
    expect(await store.getToken(record.id)).toEqual(record);
    expect(JSON.stringify(await store.listTokens('alice'))).not.toContain(token.slice(4));
  });

  it.each([
    { name: 'an empty description', description: '   ', expiresAt: undefined, detail: /description/ },
    { name: 'a description of 257 characters', description: 'x'.repeat(257), expiresAt: undefined, detail: /description/ },
    { name: 'a control character', description: 'a\u0007b', expiresAt: undefined, detail: /description/ },
    { name: 'an expiry now', description: 'ok', expiresAt: NOW, detail: /expiry must lie in the future/ },
    { name: 'an expiry in the past', description: 'ok', expiresAt: new Date(NOW.getTime() - 1), detail: /future/ },
  ])('refuses $name', ({ description, expiresAt, detail }) => {
    expect(() => mintToken('alice', { scopes: ['apps:read'], description, expiresAt }, NOW)).toThrow(BadRequestError);
    expect(() => mintToken('alice', { scopes: ['apps:read'], description, expiresAt }, NOW)).toThrow(detail);
  });

  it('accepts a description of 256 characters and an expiry 1 ms ahead', () => {
    const expiresAt = new Date(NOW.getTime() + 1);
    expect(mintToken('alice', { scopes: ['apps:read'], description: 'x'.repeat(256), expiresAt }, NOW).record.expiresAt).toEqual(expiresAt);
  });
});

describe('assertCanGrant', () => {
  const principal = (scopes: Scope[], admin = false): Principal => ({ userId: 'alice', tokenId: 'tok-0000000000000000', scopes, admin });

  it.each<{ name: string; who: Principal; scopes: Scope[]; detail?: string }>([
    { name: 'a subset of its own scopes', who: principal(['tokens:write', 'apps:write']), scopes: ['apps:read', 'apps:write'] },
    { name: 'admin by an administrator', who: principal(['tokens:write', 'admin'], true), scopes: ['admin'] },
    { name: 'without tokens:write', who: principal(['apps:read']), scopes: ['apps:read'], detail: 'This token lacks the scope tokens:write.' },
    { name: 'a scope it lacks', who: principal(['tokens:write', 'apps:read']), scopes: ['apps:write'], detail: 'This token cannot grant the scope apps:write, which it does not hold itself.' },
    { name: 'admin by a member', who: principal(['tokens:write', 'admin']), scopes: ['admin'], detail: 'This token cannot grant the scope admin, which it does not hold itself.' },
  ])('$name', ({ who, scopes, detail }) => {
    if (detail === undefined) expect(() => assertCanGrant(who, scopes)).not.toThrow();
    else {
      expect(() => assertCanGrant(who, scopes)).toThrow(ForbiddenError);
      expect(() => assertCanGrant(who, scopes)).toThrow(detail);
    }
  });
});
