import { describe, expect, it } from 'vitest';
import { tokenSha256, TokenIndex } from './token-index.ts';

const grant = (token: string, extra: { readOnly?: boolean; expiresAt?: number } = {}) => ({
  sha256: tokenSha256(token),
  readOnly: extra.readOnly ?? false,
  ...(extra.expiresAt === undefined ? {} : { expiresAt: extra.expiresAt }),
});

describe('tokenSha256', () => {
  it('is the lowercase hex SHA-256 of the token', () => {
    expect(tokenSha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('TokenIndex', () => {
  it('finds a token by its hash, with its tenant and rights', () => {
    const index = new TokenIndex();
    index.set({ tenant: 'db-a', tokens: [grant('writer'), grant('reader', { readOnly: true })] });
    expect(index.find('writer', 0)).toEqual({ tenant: 'db-a', readOnly: false });
    expect(index.find('reader', 0)).toEqual({ tenant: 'db-a', readOnly: true });
    expect(index.find('nobody', 0)).toBeUndefined();
    // The hash itself is not a token.
    expect(index.find(tokenSha256('writer'), 0)).toBeUndefined();
  });

  it('refuses a token from its expiry time on', () => {
    const index = new TokenIndex();
    index.set({ tenant: 'db-a', tokens: [grant('t', { expiresAt: 1000 })] });
    expect(index.find('t', 999)).toEqual({ tenant: 'db-a', readOnly: false, expiresAt: 1000 });
    expect(index.find('t', 1000)).toBeUndefined();
    expect(index.find('t', 5000)).toBeUndefined();
  });

  it("drops a tenant's earlier tokens at once when its grants are replaced (rotation)", () => {
    const index = new TokenIndex();
    index.set({ tenant: 'db-a', tokens: [grant('old-1'), grant('old-2')] });
    index.set({ tenant: 'db-a', tokens: [grant('new', { readOnly: true })] });
    expect(index.find('old-1', 0)).toBeUndefined();
    expect(index.find('old-2', 0)).toBeUndefined();
    expect(index.find('new', 0)).toEqual({ tenant: 'db-a', readOnly: true });
    // A rotation is not a deletion: the old tokens are simply unknown.
    expect(index.deletedTenant('old-1')).toBeUndefined();
  });

  it("leaves another tenant's tokens alone on set and remove", () => {
    const index = new TokenIndex();
    index.set({ tenant: 'db-a', tokens: [grant('a')] });
    index.set({ tenant: 'db-b', tokens: [grant('b')] });
    index.set({ tenant: 'db-a', tokens: [] });
    expect(index.find('b', 0)).toEqual({ tenant: 'db-b', readOnly: false });
    index.set({ tenant: 'db-a', tokens: [grant('a')] });
    index.remove('db-a', { deleted: true });
    expect(index.find('a', 0)).toBeUndefined();
    expect(index.find('b', 0)).toEqual({ tenant: 'db-b', readOnly: false });
    expect(index.deletedTenant('b')).toBeUndefined();
  });

  it("remembers a deleted tenant's tokens only when removed as deleted", () => {
    const index = new TokenIndex();
    index.set({ tenant: 'db-a', tokens: [grant('a1'), grant('a2')] });
    index.set({ tenant: 'db-b', tokens: [grant('b')] });
    index.remove('db-a', { deleted: true });
    index.remove('db-b');
    expect(index.find('a1', 0)).toBeUndefined();
    expect(index.deletedTenant('a1')).toBe('db-a');
    expect(index.deletedTenant('a2')).toBe('db-a');
    expect(index.find('b', 0)).toBeUndefined();
    expect(index.deletedTenant('b')).toBeUndefined();
    expect(index.deletedTenant('never')).toBeUndefined();
  });

  it('keeps at most 10 000 deleted tokens, forgetting the oldest first', () => {
    const index = new TokenIndex();
    const tokens = Array.from({ length: 10_001 }, (_, i) => `t${i}`);
    index.set({ tenant: 'db-old', tokens: tokens.slice(0, 1).map((t) => grant(t)) });
    index.remove('db-old', { deleted: true });
    index.set({ tenant: 'db-many', tokens: tokens.slice(1).map((t) => grant(t)) });
    index.remove('db-many', { deleted: true });
    expect(index.deletedTenant('t0')).toBeUndefined();
    expect(index.deletedTenant('t1')).toBe('db-many');
    expect(index.deletedTenant('t10000')).toBe('db-many');
  });

  it('gives a hash two tenants name to the one created first, whatever order they were set in, and to the other once the first lets it go', () => {
    for (const order of [
      ['victim', 'copycat'],
      ['copycat', 'victim'],
    ]) {
      const index = new TokenIndex();
      const created = { victim: 1000, copycat: 2000 } as const;
      for (const tenant of order as (keyof typeof created)[]) index.set({ tenant, tokens: [grant('shared')], createdAt: created[tenant] });
      expect(index.find('shared', 0)?.tenant, order.join(' then ')).toBe('victim');
      index.set({ tenant: 'victim', tokens: [grant('rotated')], createdAt: 1000 });
      expect(index.find('shared', 0)?.tenant).toBe('copycat');
    }
  });
});
