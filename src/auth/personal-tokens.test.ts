import { beforeEach, describe, expect, it } from 'vitest';
import { authenticate, type Principal } from './authenticate.ts';
import { ForbiddenError } from './errors.ts';
import { issueToken } from './issue-token.ts';
import { MemoryTokenStore } from './memory-token-store.ts';
import { createPersonalToken, listPersonalTokens, MAX_INACTIVE_TOKENS_KEPT, revokePersonalToken } from './personal-tokens.ts';
import type { Scope } from './scopes.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.ts';

const NOW = new Date('2030-06-01T12:00:00Z');
const later = (ms: number): Date => new Date(NOW.getTime() + ms);

let store: MemoryTokenStore;
beforeEach(() => {
  store = new MemoryTokenStore({
    users: [
      { id: 'alice', admin: false },
      { id: 'bob', admin: false },
      { id: 'root', admin: true },
    ],
  });
});

const as = (userId: string, scopes: Scope[], admin = false): Principal => ({ userId, tokenId: 'tok-0000000000000000', scopes, admin });

describe('createPersonalToken', () => {
  it('creates a working token for the caller with the requested scopes', async () => {
    const { token, record } = await createPersonalToken(as('alice', ['tokens:write', 'apps:write']), { scopes: 'apps:read', description: 'ci' }, store, NOW);
    expect(record.userId).toBe('alice');
    await expect(authenticate(`Bearer ${token}`, store, NOW)).resolves.toMatchObject({ userId: 'alice', scopes: ['apps:read'] });
  });

  it.each([
    { name: 'unknown scopes', scopes: ['apps:read', 'nope'], error: BadRequestError },
    { name: 'no scopes', scopes: [], error: BadRequestError },
    { name: 'a scope the caller lacks', scopes: ['env:write'], error: ForbiddenError },
  ])('refuses $name', async ({ scopes, error }) => {
    await expect(createPersonalToken(as('alice', ['tokens:write', 'apps:read']), { scopes, description: 'x' }, store, NOW)).rejects.toThrow(error);
    expect(await store.listTokens('alice')).toEqual([]);
  });
});

describe('the number of tokens a user holds', () => {
  it('is capped at 100 active ones; revoked and expired ones do not count', async () => {
    const maker = as('alice', ['tokens:write', 'apps:read']);
    const made = [];
    for (let i = 0; i < 100; i++) made.push(await createPersonalToken(maker, { scopes: 'apps:read', description: `t${i}`, ...(i === 0 ? { expiresAt: later(60_000) } : {}) }, store, NOW));
    await expect(createPersonalToken(maker, { scopes: 'apps:read', description: 'one more' }, store, NOW)).rejects.toThrow(
      'You hold 100 active tokens, the most a user may; revoke some (DELETE /v1/tokens/{tokenId}) before creating another.',
    );
    // Once one has expired, or one is revoked, there is room again.
    await expect(createPersonalToken(maker, { scopes: 'apps:read', description: 'after expiry' }, store, later(60_000))).resolves.toBeDefined();
    await revokePersonalToken(maker, made[1]?.record.id ?? '', store);
    await expect(createPersonalToken(maker, { scopes: 'apps:read', description: 'after revoke' }, store, later(60_000))).resolves.toBeDefined();
    await expect(createPersonalToken(maker, { scopes: 'apps:read', description: 'full again' }, store, later(60_000))).rejects.toThrow(ConflictError);
  });

  it('makes the token even when deleting old ones fails: that is housekeeping, tried again next time', async () => {
    const maker = as('alice', ['tokens:write', 'apps:read']);
    for (let i = 0; i < MAX_INACTIVE_TOKENS_KEPT; i++) {
      const { record } = await createPersonalToken(maker, { scopes: 'apps:read', description: `t${i}` }, store, later(i));
      await revokePersonalToken(maker, record.id, store);
    }
    const failing = {
      getUser: store.getUser.bind(store),
      listTokens: store.listTokens.bind(store),
      createToken: store.createToken.bind(store),
      deleteToken: () => Promise.reject(new Error('apiserver unavailable')),
    };
    const made = await createPersonalToken(maker, { scopes: 'apps:read', description: 'still made' }, failing, later(1000));
    expect((await store.getToken(made.record.id))?.revoked).toBe(false);
  });

  it('keeps the 100 most recent revoked or expired ones, deleting older ones as tokens are made', async () => {
    const maker = as('alice', ['tokens:write', 'apps:read']);
    // Older than every token pruned below, and active: never pruned.
    const oldest = await createPersonalToken(maker, { scopes: 'apps:read', description: 'oldest' }, store, later(-1000));
    const made: string[] = [];
    // Made and revoked one after another, a second apart: 150 dead tokens, were nothing pruned.
    for (let i = 0; i < 150; i++) {
      const { record } = await createPersonalToken(maker, { scopes: 'apps:read', description: `t${i}` }, store, later(i * 1000));
      made.push(record.id);
      await revokePersonalToken(maker, record.id, store);
    }
    const kept = (await store.listTokens('alice')).map((token) => token.id).sort();
    expect(kept).toHaveLength(MAX_INACTIVE_TOKENS_KEPT + 1);
    expect(kept).toEqual([oldest.record.id, ...made.slice(-MAX_INACTIVE_TOKENS_KEPT)].sort());
    // Nor a token made after them, once they are the oldest.
    const live = await createPersonalToken(maker, { scopes: 'apps:read', description: 'live' }, store, later(150_000));
    for (let i = 0; i < 5; i++) {
      const { record } = await createPersonalToken(maker, { scopes: 'apps:read', description: `more${i}` }, store, later(151_000 + i));
      await revokePersonalToken(maker, record.id, store);
    }
    const after = await store.listTokens('alice');
    expect(after.map((token) => token.id)).toEqual(expect.arrayContaining([oldest.record.id, live.record.id]));
    expect(after.filter((token) => token.revoked)).toHaveLength(MAX_INACTIVE_TOKENS_KEPT);
  });
});

describe('a token made by an expiring token', () => {
  it("never outlives it: no expiry or a later one becomes the maker's, an earlier one stays", async () => {
    const maker: Principal = { ...as('alice', ['tokens:write', 'apps:read']), expiresAt: later(3_600_000) };
    const open = await createPersonalToken(maker, { scopes: 'apps:read', description: 'open' }, store, NOW);
    const longer = await createPersonalToken(maker, { scopes: 'apps:read', description: 'longer', expiresAt: later(7_200_000) }, store, NOW);
    const shorter = await createPersonalToken(maker, { scopes: 'apps:read', description: 'shorter', expiresAt: later(60_000) }, store, NOW);
    expect([open, longer, shorter].map(({ record }) => record.expiresAt)).toEqual([later(3_600_000), later(3_600_000), later(60_000)]);
    await expect(authenticate(`Bearer ${open.token}`, store, later(3_599_999))).resolves.toMatchObject({ userId: 'alice' });
    await expect(authenticate(`Bearer ${open.token}`, store, later(3_600_000))).rejects.toThrow('The access token has expired.');
  });

  it('is made by a token that does not expire with exactly the expiry asked for, or none', async () => {
    const maker = as('alice', ['tokens:write', 'apps:read']);
    expect((await createPersonalToken(maker, { scopes: 'apps:read', description: 'open' }, store, NOW)).record.expiresAt).toBeUndefined();
    expect((await createPersonalToken(maker, { scopes: 'apps:read', description: 'dated', expiresAt: later(7_200_000) }, store, NOW)).record.expiresAt).toEqual(later(7_200_000));
  });
});

describe('listPersonalTokens', () => {
  it('lists the caller’s tokens newest first with their state, without hashes', async () => {
    const old = await issueToken('alice', { scopes: ['apps:read'], description: 'old' }, store, NOW);
    const expiring = await issueToken('alice', { scopes: ['apps:read'], description: 'expiring', expiresAt: later(2_000) }, store, later(1_000));
    const revoked = await issueToken('alice', { scopes: ['env:read', 'legacy:x'] as Scope[], description: 'revoked' }, store, later(1_500));
    await issueToken('bob', { scopes: ['apps:read'], description: 'not mine' }, store, NOW);
    await store.revokeToken(revoked.record.id);

    const listed = await listPersonalTokens(as('alice', ['tokens:read']), store, later(2_000));
    expect(listed.map(({ description, state }) => [description, state])).toEqual([
      ['revoked', 'revoked'],
      ['expiring', 'expired'],
      ['old', 'active'],
    ]);
    expect(listed[0]?.scopes).toEqual(['env:read']);
    expect(JSON.stringify(listed)).not.toContain(old.record.tokenHash);
    expect(listed[1]?.id).toBe(expiring.record.id);
  });

  it('needs tokens:read (tokens:write implies it)', async () => {
    await expect(listPersonalTokens(as('alice', ['apps:read']), store, NOW)).rejects.toThrow('This token lacks the scope tokens:read.');
    await expect(listPersonalTokens(as('alice', ['tokens:write']), store, NOW)).resolves.toEqual([]);
  });
});

describe('revokePersonalToken', () => {
  it('revokes the caller’s token, idempotently, and the token stops working', async () => {
    const { token, record } = await issueToken('alice', { scopes: ['apps:read'], description: 'x' }, store, NOW);
    await revokePersonalToken(as('alice', ['tokens:write']), record.id, store);
    await revokePersonalToken(as('alice', ['tokens:write']), record.id, store);
    await expect(authenticate(`Bearer ${token}`, store, NOW)).rejects.toThrow('The access token has been revoked.');
  });

  it('answers 404 for another user’s token and for a missing one alike', async () => {
    const { record } = await issueToken('bob', { scopes: ['apps:read'], description: 'x' }, store, NOW);
    const foreign = await revokePersonalToken(as('alice', ['tokens:write']), record.id, store).catch((e: unknown) => e);
    const missing = await revokePersonalToken(as('alice', ['tokens:write']), 'tok-ffffffffffffffff', store).catch((e: unknown) => e);
    expect(foreign).toBeInstanceOf(NotFoundError);
    expect(foreign).toEqual(missing);
    expect((await store.getToken(record.id))?.revoked).toBe(false);
  });

  it('lets an administrator revoke anyone’s token', async () => {
    const { record } = await issueToken('bob', { scopes: ['apps:read'], description: 'x' }, store, NOW);
    await revokePersonalToken(as('root', ['tokens:write', 'admin'], true), record.id, store);
    expect((await store.getToken(record.id))?.revoked).toBe(true);
  });

  it('needs tokens:write', async () => {
    await expect(revokePersonalToken(as('alice', ['tokens:read']), 'tok-ffffffffffffffff', store)).rejects.toThrow(ForbiddenError);
  });
});
