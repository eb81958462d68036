import { beforeEach, describe, expect, it } from 'vitest';
import { UnauthorizedError } from './errors.ts';
import { issueToken } from './issue-token.ts';
import { MemoryTokenStore } from './memory-token-store.ts';
import { PrincipalCache } from './principal-cache.ts';
import type { TokenRecord } from './ports.ts';
import type { Scope } from './scopes.ts';

const NOW = new Date('2030-06-01T12:00:00Z');
const later = (ms: number): Date => new Date(NOW.getTime() + ms);

/** A store that counts lookups, so a test can tell a cached answer from a resolved one. */
class CountingStore extends MemoryTokenStore {
  lookups = 0;
  /** Runs inside the next lookup, as a concurrent change would. */
  duringLookup: (() => void) | undefined;

  override async findTokenByHash(tokenHash: string): Promise<TokenRecord | undefined> {
    this.lookups++;
    this.duringLookup?.();
    this.duringLookup = undefined;
    return super.findTokenByHash(tokenHash);
  }
}

let store: CountingStore;
let cache: PrincipalCache;
beforeEach(() => {
  store = new CountingStore({
    users: [
      { id: 'alice', admin: false },
      { id: 'root', admin: true },
    ],
  });
  cache = new PrincipalCache(store);
});

async function bearer(userId: string, scopes: Scope[], expiresAt?: Date): Promise<{ header: string; tokenId: string }> {
  const { token, record } = await issueToken(userId, { scopes, description: 'test', expiresAt }, store, later(-60_000));
  return { header: `Bearer ${token}`, tokenId: record.id };
}

async function rejection(header: string, at = NOW): Promise<string> {
  const error = await cache.authenticate(header, at).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(UnauthorizedError);
  return (error as UnauthorizedError).message;
}

describe('PrincipalCache', () => {
  it('answers a repeat caller from memory with the principal a full authentication gave', async () => {
    const { header, tokenId } = await bearer('alice', ['apps:read', 'admin']);
    expect(cache.cached(header, NOW.getTime())).toBeUndefined();
    const principal = await cache.authenticate(header, NOW);
    expect(principal).toEqual({ userId: 'alice', tokenId, scopes: ['apps:read'], admin: false });
    const lookups = store.lookups;
    expect(cache.cached(header, NOW.getTime())).toEqual(principal);
    expect(store.lookups).toBe(lookups);
  });

  it('forgets everything once a token is revoked or a user changes, so the next request sees it', async () => {
    const alice = await bearer('alice', ['apps:read']);
    const other = await bearer('alice', ['apps:read']);
    await cache.authenticate(alice.header, NOW);
    await cache.authenticate(other.header, NOW);
    await store.revokeToken(alice.tokenId);
    expect(cache.cached(alice.header, NOW.getTime())).toBeUndefined();
    expect(await rejection(alice.header)).toBe('The access token has been revoked.');
    // Any change retires every entry: the other token is resolved afresh, and cached again after.
    expect(cache.cached(other.header, NOW.getTime())).toBeUndefined();
    await cache.authenticate(other.header, NOW);
    expect(cache.cached(other.header, NOW.getTime())).toBeDefined();

    const root = await bearer('root', ['admin']);
    expect((await cache.authenticate(root.header, NOW)).admin).toBe(true);
    store.putUser({ id: 'root', admin: false });
    expect(cache.cached(root.header, NOW.getTime())).toBeUndefined();
    expect((await cache.authenticate(root.header, NOW)).admin).toBe(false);
    store.deleteUser('root');
    expect(await rejection(root.header)).toBe("The access token's user no longer exists.");
  });

  it('stops answering at the instant the token expires', async () => {
    const { header } = await bearer('alice', ['apps:read'], later(1_000));
    await cache.authenticate(header, NOW);
    expect(cache.cached(header, later(999).getTime())).toBeDefined();
    expect(cache.cached(header, later(1_000).getTime())).toBeUndefined();
    expect(await rejection(header, later(1_000))).toBe('The access token has expired.');
  });

  it('keeps an answer out of memory when the store changed while it was being looked up', async () => {
    const { header } = await bearer('alice', ['apps:read']);
    store.duringLookup = () => store.putUser({ id: 'alice', admin: false });
    await cache.authenticate(header, NOW);
    expect(cache.cached(header, NOW.getTime())).toBeUndefined();
  });

  it('remembers no failure, and answers other spellings of the header only in full', async () => {
    const { header } = await bearer('alice', ['apps:read']);
    const unknown = `Bearer cwt_${'A'.repeat(40)}`;
    expect(await rejection(unknown)).toMatch(/checksum|not recognised/);
    expect(cache.cached(unknown, NOW.getTime())).toBeUndefined();
    const odd = header.replace('Bearer ', 'bearer   ');
    await expect(cache.authenticate(odd, NOW)).resolves.toMatchObject({ userId: 'alice' });
    expect(cache.cached(odd, NOW.getTime())).toBeUndefined();
    // The token itself was resolved, so the usual spelling is now answered from memory.
    expect(cache.cached(header, NOW.getTime())).toMatchObject({ userId: 'alice' });
    for (const bad of [undefined, '', 'Bearer', `Basic ${header.slice(7)}`]) expect(cache.cached(bad, NOW.getTime())).toBeUndefined();
  });

  it('holds at most its capacity of principals', async () => {
    const small = new PrincipalCache(store, 4);
    const headers = await Promise.all(Array.from({ length: 6 }, () => bearer('alice', ['apps:read'])));
    for (const { header } of headers) await small.authenticate(header, NOW);
    const remembered = headers.filter(({ header }) => small.cached(header, NOW.getTime()) !== undefined);
    expect(remembered.length).toBeLessThanOrEqual(4);
    expect(remembered.map(({ header }) => header)).toContain(headers[5]?.header);
  });
});
