import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../object-store/memory-object-store.ts';
import { CountingObjectStore } from '../object-store/testing/counting-object-store.ts';
import { HeadCache, headWeight } from './head-cache.ts';
import { parseRepoPath } from './repo-path.ts';
import { RepoStore } from './repo-store.ts';

const ZERO = '0'.repeat(40);

describe('HeadCache', () => {
  it('keeps heads to its size in all, reading one it let go again whole, and answers a kept one without a body', async () => {
    const store = new MemoryObjectStore();
    const repos = new RepoStore({ store });
    const names = ['a/one', 'a/two', 'a/three'];
    for (const name of names) {
      await repos.createRepo(name);
      const refUpdates = Array.from({ length: 200 }, (_, i) => ({ ref: `refs/heads/topic-${i}`, old: ZERO, new: randomBytes(20).toString('hex') }));
      await repos.publish(name, { kind: 'ref_update', refUpdates, pusher: 'ada', requestId: 'r', atomic: true });
    }
    const counting = new CountingObjectStore(store);
    const one = await new HeadCache(store, { ttlMs: 60_000, clock: () => 0 }).read(parseRepoPath('a/one'));
    // Room for two of the three heads (and one may take all of it here).
    const maxBytes = Math.ceil(headWeight(one) * 2.5);
    const heads = new HeadCache(counting, { ttlMs: 60_000, clock: () => 0, maxBytes, maxEntryBytes: maxBytes });
    for (const name of names) await heads.read(parseRepoPath(name));
    expect(heads.bytes).toBeLessThanOrEqual(Math.ceil(headWeight(one) * 2.5));
    counting.reset();
    // The two most recent are answered from memory within the TTL; the first was let go and is read again.
    await heads.read(parseRepoPath('a/three'));
    await heads.read(parseRepoPath('a/two'));
    expect(counting.total).toBe(0);
    expect((await heads.read(parseRepoPath('a/one'))).refs.size).toBe(200);
    expect(counting.count('get')).toBe(1);
  });

  it("does not keep a head heavier than an eighth of its size, so one tenant's huge heads leave everyone else's kept", async () => {
    const store = new MemoryObjectStore();
    const repos = new RepoStore({ store });
    await repos.createRepo('big/refs');
    await repos.createRepo('small/site');
    const long = 'x'.repeat(200);
    const refUpdates = Array.from({ length: 500 }, (_, i) => ({ ref: `refs/tags/${long}-${i}`, old: ZERO, new: randomBytes(20).toString('hex') }));
    await repos.publish('big/refs', { kind: 'ref_update', refUpdates, pusher: 'mallory', requestId: 'r', atomic: true });
    const counting = new CountingObjectStore(store);
    const heads = new HeadCache(counting, { ttlMs: 60_000, clock: () => 0, maxBytes: 1024 * 1024 });
    const big = await heads.read(parseRepoPath('big/refs'));
    expect(headWeight(big)).toBeGreaterThan((1024 * 1024) / 8);
    await heads.read(parseRepoPath('small/site'));
    counting.reset();
    await heads.read(parseRepoPath('small/site'));
    expect(counting.total).toBe(0);
    // Not kept: read again whole, at its own cost.
    expect((await heads.read(parseRepoPath('big/refs'))).refs.size).toBe(500);
    expect(counting.count('get')).toBe(1);
    expect(heads.bytes).toBeLessThan((1024 * 1024) / 8);
  });
});
