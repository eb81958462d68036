import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../object-store/memory-object-store.ts';
import { SealedStore, UnsealError } from './sealed-store.ts';

describe('SealedStore', () => {
  const key = randomBytes(32);

  it('round-trips a value, and what the bucket holds does not contain it', async () => {
    const bucket = new MemoryObjectStore();
    const store = new SealedStore(bucket, key);
    expect(await store.put('tls/a', { privateKeyPem: 'PRIVATE-KEY-TEXT' })).toBe(true);
    expect(await store.get('tls/a')).toEqual({ privateKeyPem: 'PRIVATE-KEY-TEXT' });
    const raw = await bucket.get('tls/a');
    expect(raw?.kind === 'object' && Buffer.from(raw.body).includes('PRIVATE-KEY-TEXT')).toBe(false);
  });

  it('answers undefined for a missing object and does not overwrite under ifNoneMatch', async () => {
    const store = new SealedStore(new MemoryObjectStore(), key);
    expect(await store.get('tls/none')).toBeUndefined();
    expect(await store.put('tls/a', 1, { ifNoneMatch: '*' })).toBe(true);
    expect(await store.put('tls/a', 2, { ifNoneMatch: '*' })).toBe(false);
    expect(await store.get('tls/a')).toBe(1);
  });

  it('refuses an object under another key, an altered one, and another sealing key', async () => {
    const bucket = new MemoryObjectStore();
    const store = new SealedStore(bucket, key);
    await store.put('tls/a', 'secret');
    const raw = await bucket.get('tls/a');
    if (raw?.kind !== 'object') throw new Error('no object');
    await bucket.put('tls/b', raw.body);
    await expect(store.get('tls/b')).rejects.toBeInstanceOf(UnsealError);
    const altered = Buffer.from(raw.body);
    altered[altered.length - 1]! ^= 1;
    await bucket.put('tls/c', altered);
    await expect(store.get('tls/c')).rejects.toBeInstanceOf(UnsealError);
    await expect(new SealedStore(bucket, randomBytes(32)).get('tls/a')).rejects.toThrow(/does not open/);
    await bucket.put('tls/d', 'plain text');
    await expect(store.get('tls/d')).rejects.toThrow(/not a sealed object/);
  });

  it('wants a 32-byte key', () => {
    expect(() => new SealedStore(new MemoryObjectStore(), randomBytes(16))).toThrow(/32 bytes/);
  });
});
