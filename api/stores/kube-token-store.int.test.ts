import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TokenRecord } from '../../src/auth/ports.ts';
import { describeTokenStoreContract } from '../../src/auth/token-store-contract.ts';
import { generateToken, hashToken, newTokenId } from '../../src/auth/token.ts';
import { createInformerFactory, type KubeConnection } from '../../src/kube/index.ts';
import { startFaultProxy, type FaultProxy } from '../../src/kube/testing/fault-proxy.ts';
import { testConnection } from '../../src/kube/testing/test-kube.ts';
import { KubeTokenStore } from './kube-token-store.ts';
import { clusterSeeder } from './testing/cluster-seed.ts';

let conn: KubeConnection;
let cluster: ReturnType<typeof clusterSeeder>;
let store: KubeTokenStore;
const stops: (() => void)[] = [];

async function startedStore(...args: ConstructorParameters<typeof KubeTokenStore>): Promise<KubeTokenStore> {
  const started = new KubeTokenStore(...args);
  stops.push(() => started.stop());
  await started.start();
  return started;
}

beforeAll(async () => {
  conn = testConnection();
  cluster = clusterSeeder(conn);
  store = await startedStore(conn);
});

afterAll(async () => {
  for (const stop of stops) stop();
  await cluster?.cleanUp();
});

// One store shared by every contract test: each test seeds users and projects of its own (unique names).
describeTokenStoreContract('KubeTokenStore', async (seed) => {
  await cluster.seed(store, seed);
  return store;
});

const unique = (prefix: string): string => `${prefix}-${randomBytes(4).toString('hex')}`;
const eventually = { timeout: 10_000, interval: 20 };

async function newUser(admin = false): Promise<string> {
  const id = unique('user');
  await cluster.createUser(id, admin);
  return id;
}

function tokenFor(userId: string): TokenRecord {
  const createdAt = new Date(Math.floor(Date.now() / 1000) * 1000);
  return { id: newTokenId(), userId, tokenHash: hashToken(generateToken()), scopes: ['apps:read'], description: 'int', createdAt, revoked: false };
}

describe('KubeTokenStore', () => {
  it('refuses reads until start() has synced its caches', async () => {
    const unstarted = new KubeTokenStore(conn);
    await expect(unstarted.findTokenByHash('0'.repeat(64))).rejects.toThrow(/start\(\)/);
  });

  it('sees a token applied by another writer (kubectl) through its watch, createdAt from creationTimestamp', async () => {
    const userId = await newUser();
    const tokenHash = hashToken(generateToken());
    const applied = await cluster.tokens.create({
      metadata: { name: newTokenId() },
      spec: { user: userId, tokenHash, scopes: ['apps:read'], description: 'applied by hand' },
    });
    const found = await vi.waitFor(async () => (await store.findTokenByHash(tokenHash)) ?? Promise.reject(new Error('not yet')), eventually);
    expect(found).toMatchObject({ id: applied.metadata?.name, userId, revoked: false, description: 'applied by hand' });
    expect(found.createdAt).toEqual(new Date(applied.metadata?.creationTimestamp ?? ''));
  });

  it("sees another replica's tokens and revocations; its own at once", async () => {
    const userId = await newUser();
    const other = await startedStore(conn);
    const token = tokenFor(userId);
    await other.createToken(token);
    // Found by id at once (so it can be revoked): asked of the apiserver before this store's watch shows it.
    expect(await store.getToken(token.id)).toEqual(token);
    expect(await store.getToken(newTokenId())).toBeUndefined();
    expect(await store.getToken('Not A Name')).toBeUndefined();
    expect(await other.findTokenByHash(token.tokenHash)).toEqual(token);
    await vi.waitFor(async () => expect(await store.findTokenByHash(token.tokenHash)).toEqual(token), eventually);
    expect(await other.revokeToken(token.id)).toBe(true);
    expect((await other.findTokenByHash(token.tokenHash))?.revoked).toBe(true);
    await vi.waitFor(async () => expect((await store.getToken(token.id))?.revoked).toBe(true), eventually);
  });

  it('sees a revocation written with kubectl, and the CRD refuses to undo one', async () => {
    const userId = await newUser();
    const token = tokenFor(userId);
    await store.createToken(token);
    await cluster.tokens.patch('', token.id, { spec: { revoked: true } });
    await vi.waitFor(async () => expect((await store.findTokenByHash(token.tokenHash))?.revoked).toBe(true), eventually);
    await expect(cluster.tokens.patch('', token.id, { spec: { revoked: false } })).rejects.toThrow(/cannot be restored/);
    expect(await store.revokeToken('')).toBe(false); // would otherwise address the collection
    expect(await store.revokeToken('Not_A/Name')).toBe(false);
  });

  it('moves its revision when a token or a user changes elsewhere', async () => {
    const userId = await newUser();
    await vi.waitFor(async () => expect(await store.getUser(userId)).toBeDefined(), eventually);
    let seen = store.revision;
    await cluster.users.patch('', userId, { spec: { admin: true } });
    await vi.waitFor(async () => expect(await store.getUser(userId)).toMatchObject({ id: userId, admin: true }), eventually);
    expect(store.revision).not.toBe(seen);
    seen = store.revision;
    const token = tokenFor(userId);
    await cluster.tokens.create({ metadata: { name: token.id }, spec: { user: userId, tokenHash: token.tokenHash, scopes: ['apps:read'], description: 'applied by hand' } });
    await vi.waitFor(async () => expect(await store.findTokenByHash(token.tokenHash)).toBeDefined(), eventually);
    expect(store.revision).not.toBe(seen);
    seen = store.revision;
    await cluster.tokens.delete('', token.id);
    await vi.waitFor(async () => expect(await store.findTokenByHash(token.tokenHash)).toBeUndefined(), eventually);
    expect(store.revision).not.toBe(seen);
  });

  it('follows membership changes made by patching the Project', async () => {
    const [owner, joiner, admin] = [await newUser(), await newUser(), await newUser(true)];
    const project = unique('proj');
    await cluster.createProject(project, { [owner]: 'owner' });
    await vi.waitFor(async () => expect(await store.getMembership(project, owner)).toBe('owner'), eventually);
    const names = async (userId: string, isAdmin = false) => (await store.listProjectsForUser(userId, { admin: isAdmin })).map((p) => p.metadata?.name);

    await cluster.projects.patch('', project, {
      spec: {
        members: [
          { user: owner, role: 'owner' },
          { user: joiner, role: 'member' },
        ],
      },
    });
    await vi.waitFor(async () => expect(await store.getMembership(project, joiner)).toBe('member'), eventually);
    expect(await names(joiner)).toEqual([project]);

    await cluster.projects.patch('', project, { spec: { members: [{ user: joiner, role: 'owner' }] } });
    await vi.waitFor(async () => expect(await store.getMembership(project, owner)).toBeUndefined(), eventually);
    expect(await store.getMembership(project, joiner)).toBe('owner');
    expect(await names(owner)).toEqual([]);
    // Every project for an effective administrator; their own memberships otherwise.
    expect(await names(admin, true)).toContain(project);
    expect(await names(admin)).toEqual([]);
  });

  describe('while its watch is down', () => {
    let proxy: FaultProxy;
    let cut: KubeTokenStore;

    beforeAll(async () => {
      // Informers read through a proxy we can cut; writes go straight to the apiserver.
      proxy = await startFaultProxy(conn);
      const informers = createInformerFactory(proxy.connection);
      cut = await startedStore(conn, { informers, lingeringWriteCheckMs: 200 });
      stops.push(() => informers.stop());
      proxy.mode = 'reset';
      proxy.dropConnections();
    });
    afterAll(async () => proxy?.close());

    it('reads its own creates and revocations at once (read-your-writes from the write responses)', async () => {
      const userId = await newUser();
      const token = tokenFor(userId);
      await cut.createToken(token);
      expect(await cut.findTokenByHash(token.tokenHash)).toEqual(token);
      expect(await cut.listTokens(userId)).toEqual([token]);
      await expect(cut.createToken({ ...tokenFor(userId), tokenHash: token.tokenHash })).rejects.toThrow(/hash/);
      expect(await cut.revokeToken(token.id)).toBe(true);
      expect((await cut.findTokenByHash(token.tokenHash))?.revoked).toBe(true);
    });

    it('forgets a token of its own that was deleted meanwhile, by asking the apiserver', async () => {
      const token = tokenFor(await newUser());
      await cut.createToken(token);
      await cluster.tokens.delete('', token.id);
      await vi.waitFor(async () => expect(await cut.getToken(token.id)).toBeUndefined(), eventually);
    });

    it('catches up once the watch is back', async () => {
      const userId = await newUser();
      const token = tokenFor(userId);
      await store.createToken(token);
      proxy.mode = 'pass';
      await vi.waitFor(async () => expect(await cut.findTokenByHash(token.tokenHash)).toEqual(token), { timeout: 40_000, interval: 50 });
    });
  });
});
