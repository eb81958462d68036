import { randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import type { TokenStoreSeed } from './memory-token-store.ts';
import type { TokenRecord, TokenStore } from './ports.ts';
import { generateToken, hashToken, newTokenId } from './token.ts';

/** Builds a store holding `seed`'s users and memberships (a real one creates User and Project objects). */
export type TokenStoreFactory = (seed: TokenStoreSeed) => TokenStore | Promise<TokenStore>;

// Unique names let every test share one backend (one cluster) without cleaning up between tests.
const unique = (prefix: string): string => `${prefix}-${randomBytes(4).toString('hex')}`;
// Whole seconds: Kubernetes timestamps (metav1.Time) keep no more.
const at = (iso: string): Date => new Date(iso);

function tokenFor(userId: string, overrides: Partial<TokenRecord> = {}): TokenRecord {
  return {
    id: newTokenId(),
    userId,
    tokenHash: hashToken(generateToken()),
    scopes: ['apps:read', 'domain:write'],
    description: 'contract test',
    createdAt: at('2030-01-02T03:04:05Z'),
    revoked: false,
    ...overrides,
  };
}

/**
 * The behaviour every {@link TokenStore} must show. Call it from a test file with a factory for the
 * implementation under test; `memory-token-store.test.ts` is the model.
 */
export function describeTokenStoreContract(name: string, makeStore: TokenStoreFactory): void {
  describe(`TokenStore contract: ${name}`, () => {
    it('finds a created token by id and by hash, with every field', async () => {
      const userId = unique('user');
      const store = await makeStore({ users: [{ id: userId, admin: false }] });
      const token = tokenFor(userId, { expiresAt: at('2030-02-01T00:00:00Z') });
      await store.createToken(token);
      expect(await store.getToken(token.id)).toEqual(token);
      expect(await store.findTokenByHash(token.tokenHash)).toEqual(token);
    });

    it('keeps a token without expiry without one', async () => {
      const userId = unique('user');
      const store = await makeStore({ users: [{ id: userId, admin: false }] });
      const token = tokenFor(userId);
      await store.createToken(token);
      expect((await store.getToken(token.id))?.expiresAt).toBeUndefined();
    });

    it('answers undefined for unknown ids and hashes', async () => {
      const store = await makeStore({});
      expect(await store.getToken(newTokenId())).toBeUndefined();
      expect(await store.findTokenByHash(hashToken(generateToken()))).toBeUndefined();
    });

    it('matches hashes exactly: no prefix, no other case', async () => {
      const userId = unique('user');
      const store = await makeStore({ users: [{ id: userId, admin: false }] });
      const token = tokenFor(userId);
      await store.createToken(token);
      expect(await store.findTokenByHash(token.tokenHash.slice(0, 16))).toBeUndefined();
      expect(await store.findTokenByHash(token.tokenHash.toUpperCase())).toBeUndefined();
    });

    it('refuses a second token with the same id or the same hash', async () => {
      const userId = unique('user');
      const store = await makeStore({ users: [{ id: userId, admin: false }] });
      const token = tokenFor(userId);
      await store.createToken(token);
      await expect(store.createToken({ ...tokenFor(userId), id: token.id })).rejects.toThrow();
      await expect(store.createToken({ ...tokenFor(userId), tokenHash: token.tokenHash })).rejects.toThrow();
    });

    it("lists a user's tokens, revoked ones included, and nobody else's", async () => {
      const [alice, bob] = [unique('alice'), unique('bob')];
      const store = await makeStore({
        users: [
          { id: alice, admin: false },
          { id: bob, admin: false },
        ],
      });
      const [first, second, other] = [tokenFor(alice), tokenFor(alice), tokenFor(bob)];
      for (const token of [first, second, other]) await store.createToken(token);
      await store.revokeToken(second.id);
      const listed = await store.listTokens(alice);
      expect(listed.map((token) => token.id).sort()).toEqual([first.id, second.id].sort());
      expect(listed.find((token) => token.id === second.id)?.revoked).toBe(true);
      expect(await store.listTokens(unique('nobody'))).toEqual([]);
    });

    it('revokes at once for readers by hash, idempotently, and reports unknown ids', async () => {
      const userId = unique('user');
      const store = await makeStore({ users: [{ id: userId, admin: false }] });
      const token = tokenFor(userId);
      await store.createToken(token);
      expect(await store.revokeToken(token.id)).toBe(true);
      expect((await store.findTokenByHash(token.tokenHash))?.revoked).toBe(true);
      expect(await store.revokeToken(token.id)).toBe(true);
      expect((await store.getToken(token.id))?.revoked).toBe(true);
      expect(await store.revokeToken(newTokenId())).toBe(false);
    });

    it('deletes a token for good and reports unknown ids', async () => {
      const userId = unique('user');
      const store = await makeStore({ users: [{ id: userId, admin: false }] });
      const [kept, deleted] = [tokenFor(userId), tokenFor(userId)];
      for (const token of [kept, deleted]) await store.createToken(token);
      await store.revokeToken(deleted.id);
      expect(await store.deleteToken(deleted.id)).toBe(true);
      // A store reading from a cache may show the deleted token a moment longer, revoked as it was.
      await vi.waitFor(async () => expect(await store.getToken(deleted.id)).toBeUndefined(), { timeout: 10_000 });
      expect((await store.listTokens(userId)).map((token) => token.id)).toEqual([kept.id]);
      expect(await store.findTokenByHash(deleted.tokenHash)).toBeUndefined();
      expect(await store.deleteToken(deleted.id)).toBe(false);
      expect(await store.deleteToken(newTokenId())).toBe(false);
    });

    it('keeps the uid of the user a token is bound to, and reads users with theirs where it has uids', async () => {
      const userId = unique('user');
      const store = await makeStore({ users: [{ id: userId, admin: false }] });
      const uid = (await store.getUser(userId))?.uid;
      const bound = { ...tokenFor(userId), userUid: uid ?? 'uid-of-a-store-without-uids' };
      await store.createToken(bound);
      expect((await store.getToken(bound.id))?.userUid).toBe(bound.userUid);
      expect((await store.findTokenByHash(bound.tokenHash))?.userUid).toBe(bound.userUid);
    });

    it('moves its revision with every token created or revoked', async () => {
      const userId = unique('user');
      const store = await makeStore({ users: [{ id: userId, admin: false }] });
      const token = tokenFor(userId);
      const before = store.revision;
      await store.createToken(token);
      const created = store.revision;
      expect(created).not.toBe(before);
      await store.revokeToken(token.id);
      expect(store.revision).not.toBe(created);
    });

    it('hands out copies: changing a returned record changes nothing stored', async () => {
      const userId = unique('user');
      const store = await makeStore({ users: [{ id: userId, admin: false }] });
      const token = tokenFor(userId);
      await store.createToken(token);
      const read = await store.getToken(token.id);
      (read?.scopes as string[] | undefined)?.push('admin');
      expect((await store.getToken(token.id))?.scopes).toEqual(token.scopes);
    });

    it('reads users with their administrator flag', async () => {
      const [admin, member] = [unique('admin'), unique('member')];
      const store = await makeStore({
        users: [
          { id: admin, admin: true },
          { id: member, admin: false },
        ],
      });
      expect(await store.getUser(admin)).toMatchObject({ id: admin, admin: true });
      expect(await store.getUser(member)).toMatchObject({ id: member, admin: false });
      expect(await store.getUser(unique('ghost'))).toBeUndefined();
    });

    it('reads roles; a foreign project and a missing one both answer undefined', async () => {
      const [owner, member, outsider] = [unique('owner'), unique('member'), unique('outsider')];
      const [project, other] = [unique('proj'), unique('proj')];
      const store = await makeStore({
        users: [owner, member, outsider].map((id) => ({ id, admin: false })),
        memberships: { [project]: { [owner]: 'owner', [member]: 'member' }, [other]: { [outsider]: 'member' } },
      });
      expect(await store.getMembership(project, owner)).toBe('owner');
      expect(await store.getMembership(project, member)).toBe('member');
      expect(await store.getMembership(project, outsider)).toBeUndefined();
      expect(await store.getMembership(unique('missing'), owner)).toBeUndefined();
      expect(await store.hasProject(project)).toBe(true);
      expect(await store.hasProject(unique('missing'))).toBe(false);
    });
  });
}
