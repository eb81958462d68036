import { setTimeout } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../src/object-store/memory-object-store.ts';
import type { GetOptions, ListOptions } from '../../src/object-store/object-store.ts';
import { ForwardingObjectStore } from '../../src/object-store/testing/forwarding-object-store.ts';
import { TenantMetaStore } from '../tenant-meta.ts';
import { tokenSha256 } from '../token-index.ts';
import { TokenLocator } from './token-locator.ts';

/** Counts the listings of the tenants' metadata. */
class CountingLists extends ForwardingObjectStore {
  lists = 0;
  override list(prefix: string, options?: ListOptions) {
    if (prefix === 'tenants/') this.lists++;
    return super.list(prefix, options);
  }
}

const meta = (tenant: string, token: string) => ({ tenant, createdAt: 0, durability: 'async' as const, tokens: [{ sha256: tokenSha256(token), readOnly: false }] });

describe('TokenLocator', () => {
  it('finds the database of a token created on another replica, re-reading the bucket at most once a second for unknown tokens', async () => {
    const store = new CountingLists(new MemoryObjectStore());
    const metas = new TenantMetaStore(store);
    await metas.put(meta('first', 'token-1'));
    const locator = new TokenLocator(metas);
    expect(await locator.tenantOf('token-1')).toBe('first');

    await metas.put(meta('second', 'token-2'));
    const listsBefore = store.lists;
    // Ten lookups of tokens nobody has, at once: they share one refresh.
    expect(await Promise.all(Array.from({ length: 10 }, (_, i) => locator.tenantOf(`nobody-${i}`)))).toEqual(Array(10).fill(undefined));
    expect(store.lists - listsBefore).toBe(1);
    expect(await locator.tenantOf('token-2')).toBe('second');

    // A rotation: the old token is forgotten once the tenant's metadata changed.
    await metas.put(meta('first', 'token-1b'));
    expect(await locator.tenantOf('token-1b')).toBe('first');
    expect(await locator.tenantOf('token-1')).toBeUndefined();
  });

  it("reads many databases' metadata several at a time, so a replica's first refresh among thousands is not one read after another", async () => {
    class CountingReads extends ForwardingObjectStore {
      reading = 0;
      peak = 0;
      override async get(key: string, options?: GetOptions) {
        if (!key.startsWith('tenants/')) return super.get(key, options);
        this.peak = Math.max(this.peak, ++this.reading);
        try {
          return await super.get(key, options);
        } finally {
          this.reading--;
        }
      }
    }
    const store = new CountingReads(new MemoryObjectStore());
    const metas = new TenantMetaStore(store);
    for (let i = 0; i < 40; i++) await metas.put(meta(`db-${i}`, `token-${i}`));
    store.peak = 0;
    const locator = new TokenLocator(metas);
    expect(await locator.tenantOf('token-39')).toBe('db-39');
    expect(store.peak).toBeGreaterThan(1);
    expect(store.peak).toBeLessThanOrEqual(16);
  });

  it('does not answer from a refresh that listed the bucket before the token was asked for', async () => {
    // A slow bucket: the listing answers what the bucket held when it was asked, 1.5 s later (past the one-a-second
    // bound, so a lookup that waited out the bound finds it still under way).
    class SlowLists extends ForwardingObjectStore {
      slow = false;
      override async list(prefix: string, options?: ListOptions) {
        const page = await super.list(prefix, options);
        if (this.slow) await setTimeout(1500);
        return page;
      }
    }
    const store = new SlowLists(new MemoryObjectStore());
    const metas = new TenantMetaStore(store);
    const locator = new TokenLocator(metas);
    store.slow = true;
    const stale = locator.tenantOf('nobody');
    await metas.put(meta('created-meanwhile', 'token-new'));
    store.slow = false;
    expect(await locator.tenantOf('token-new')).toBe('created-meanwhile');
    expect(await stale).toBeUndefined();
  });

  it('asks the other replicas first: a token one of them serves is routed without reading the bucket, once for concurrent lookups', async () => {
    const store = new CountingLists(new MemoryObjectStore());
    const metas = new TenantMetaStore(store);
    await metas.put(meta('elsewhere', 'token-e'));
    const asked: string[] = [];
    const locator = new TokenLocator(metas, async (sha256) => {
      asked.push(sha256);
      return sha256 === tokenSha256('token-e') ? 'elsewhere' : undefined;
    });
    expect(await Promise.all([locator.tenantOf('token-e'), locator.tenantOf('token-e')])).toEqual(['elsewhere', 'elsewhere']);
    expect(await locator.tenantOf('token-e')).toBe('elsewhere');
    expect(asked).toEqual([tokenSha256('token-e')]);
    expect(store.lists).toBe(0);
    // One no replica serves (a database being taken over, or none): the bucket decides.
    await metas.put(meta('moving', 'token-m'));
    expect(await locator.tenantOf('token-m')).toBe('moving');
    expect(store.lists).toBe(1);
  });

  it('asks the other replicas about at most 64 tokens at once: a flood of made-up tokens goes to the bucket path', async () => {
    const metas = new TenantMetaStore(new MemoryObjectStore());
    let inFlight = 0;
    let peak = 0;
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const locator = new TokenLocator(metas, async () => {
      peak = Math.max(peak, ++inFlight);
      await held;
      inFlight--;
      return undefined;
    });
    // Each lookup asks (or not) before its first await: all 200 have by the end of this statement.
    const lookups = Array.from({ length: 200 }, (_, i) => locator.tenantOf(`made-up-${i}`));
    expect(peak).toBe(64);
    release();
    expect(await Promise.all(lookups)).toEqual(Array(200).fill(undefined));
  });
});
