import { describe, expect, it } from 'vitest';
import type { AccessToken } from '../../src/apis/v1alpha1/index.ts';
import type { Informer } from '../../src/kube/index.ts';
import { AccessTokenCache } from './access-token-cache.ts';
import { ACCESS_TOKENS } from '../../src/platform/resources.ts';

// Just enough of an informer: a map, and handlers called after it changed (as client-node's ListWatch does).
function fakeInformer() {
  const objects = new Map<string, AccessToken>();
  const handlers: ((obj: AccessToken) => void)[] = [];
  let changes = 0;
  const informer: Informer<AccessToken> = {
    resource: ACCESS_TOKENS,
    onChange: (handler) => {
      handlers.push(handler);
      return () => void handlers.splice(handlers.indexOf(handler), 1);
    },
    onQuietChange: () => () => {},
    get: (key) => objects.get(key),
    list: () => [...objects.values()],
    changes: () => changes,
    hasSynced: () => true,
    waitForSync: async () => {},
    start: () => {},
    stop: () => {},
  };
  return {
    informer,
    put(obj: AccessToken) {
      objects.set(obj.metadata?.name ?? '', obj);
      changes++;
      for (const handler of handlers) handler(obj);
    },
    remove(obj: AccessToken) {
      objects.delete(obj.metadata?.name ?? '');
      changes++;
      for (const handler of handlers) handler(obj);
    },
  };
}

const token = (name: string, uid: string, hash: string, revoked = false): AccessToken => ({
  metadata: { name, uid, resourceVersion: String(Math.random()) },
  spec: { user: 'alice', tokenHash: hash, scopes: [], description: '', revoked },
});
const [h1, h2] = ['1'.repeat(64), '2'.repeat(64)];

describe('AccessTokenCache', () => {
  it('indexes the informer by hash and follows changes', () => {
    const fake = fakeInformer();
    fake.put(token('tok-a', 'u1', h1));
    const cache = new AccessTokenCache(fake.informer);
    expect(cache.findByHash(h1).map((t) => t.metadata?.name)).toEqual(['tok-a']);
    fake.remove(token('tok-a', 'u1', h1));
    fake.put(token('tok-a', 'u2', h2)); // deleted and re-applied with another hash
    expect(cache.findByHash(h1)).toEqual([]);
    expect(cache.findByHash(h2)).toHaveLength(1);
  });

  it("lists a user's tokens by an index, our unseen writes included, and follows deletions", () => {
    const fake = fakeInformer();
    const bobs = (name: string, uid: string, hash: string): AccessToken => ({ ...token(name, uid, hash), spec: { ...token(name, uid, hash).spec, user: 'bob' } });
    fake.put(token('tok-a', 'u1', h1));
    const cache = new AccessTokenCache(fake.informer);
    fake.put(bobs('tok-b', 'u2', h2));
    const written = token('tok-c', 'u3', '3'.repeat(64));
    cache.record(written);
    const names = (user: string) =>
      cache
        .listForUser(user)
        .map((t) => t.metadata?.name)
        .sort();
    expect(names('alice')).toEqual(['tok-a', 'tok-c']);
    expect(names('bob')).toEqual(['tok-b']);
    expect(names('carol')).toEqual([]);
    fake.remove(token('tok-a', 'u1', h1));
    fake.put(written);
    expect(names('alice')).toEqual(['tok-c']);
  });

  it('serves a write before the informer sees it, then hands over to the informer', () => {
    const fake = fakeInformer();
    const cache = new AccessTokenCache(fake.informer);
    const created = token('tok-a', 'u1', h1);
    cache.record(created);
    expect(cache.findByHash(h1)).toEqual([created]);
    expect(cache.listForUser('alice')).toEqual([created]);
    fake.put(created);
    expect(cache.pendingWrites).toBe(0);
  });

  it('keeps a revocation until the informer shows it, whatever older versions arrive meanwhile', () => {
    const fake = fakeInformer();
    const cache = new AccessTokenCache(fake.informer);
    fake.put(token('tok-a', 'u1', h1));
    cache.record(token('tok-a', 'u1', h1, true));
    fake.put(token('tok-a', 'u1', h1)); // a stale update, e.g. someone's label change before the revoke
    expect(cache.get('tok-a')?.spec.revoked).toBe(true);
    expect(cache.pendingWrites).toBe(1);
    fake.put(token('tok-a', 'u1', h1, true));
    expect(cache.pendingWrites).toBe(0);
    expect(cache.get('tok-a')?.spec.revoked).toBe(true);
  });

  it('drops nothing when the watch delivered the write before its response arrived', () => {
    const fake = fakeInformer();
    const cache = new AccessTokenCache(fake.informer);
    const created = token('tok-a', 'u1', h1);
    fake.put(created);
    cache.record(created);
    expect(cache.pendingWrites).toBe(0);
    expect(cache.get('tok-a')).toEqual(created);
  });

  it('forgets a write once the informer saw that object deleted', () => {
    const fake = fakeInformer();
    const cache = new AccessTokenCache(fake.informer);
    const created = token('tok-a', 'u1', h1);
    fake.put(created);
    cache.record({ ...created, spec: { ...created.spec, revoked: true } });
    fake.remove(created);
    expect(cache.get('tok-a')).toBeUndefined();
    expect(cache.pendingWrites).toBe(0);
  });

  it('prefers our newer object over a lagging cached one of the same name, and can forget it', () => {
    let now = 0;
    const fake = fakeInformer();
    fake.put(token('tok-a', 'old', h1));
    const cache = new AccessTokenCache(fake.informer, () => now);
    const recreated = token('tok-a', 'new', h2);
    cache.record(recreated);
    expect(cache.get('tok-a')).toEqual(recreated);
    expect(cache.findByHash(h1)).toEqual([]); // the name now holds another token
    now = 1000;
    expect(cache.lingering(1000)).toEqual([recreated]);
    expect(cache.lingering(1001)).toEqual([]);
    cache.forget(token('tok-a', 'someone-else', h2)); // another object: ours stays
    expect(cache.pendingWrites).toBe(1);
    cache.forget(recreated);
    expect(cache.get('tok-a')?.metadata?.uid).toBe('old');
  });

  it('keeps a revocation it is asked to forget while the cache still holds that token unrevoked', () => {
    const fake = fakeInformer();
    const cache = new AccessTokenCache(fake.informer);
    const live = token('tok-a', 'u1', h1);
    fake.put(live);
    const revoked = token('tok-a', 'u1', h1, true);
    cache.record(revoked);
    // Deleted at the apiserver (pruned) while the watch is away: forgetting the write would un-revoke it.
    cache.forget(revoked);
    expect(cache.get('tok-a')?.spec.revoked).toBe(true);
    fake.remove(live);
    expect(cache.get('tok-a')).toBeUndefined();
    expect(cache.pendingWrites).toBe(0);
  });
});
