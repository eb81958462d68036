// The ObjectStore contract: every implementation of the port runs this suite (MemoryObjectStore in a unit
// test, S3ObjectStore against MinIO in an integration test). The write-ahead log relies on each property.
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ChecksumMismatchError, type ObjectStore, type PutResult } from '../object-store.ts';
import { listAll, listAllPrefixes } from '../list-all.ts';

export interface ContractSubject {
  store: ObjectStore;
  /** A key prefix no other test uses (ends with `/`). */
  prefix: () => string;
}

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

async function bodyOf(store: ObjectStore, key: string): Promise<string | undefined> {
  const got = await store.get(key);
  if (got?.kind === 'not-modified') throw new Error('unexpected not-modified');
  return got && text(got.body);
}

function etagOf(result: PutResult): string {
  if (result.kind !== 'written') throw new Error(`expected a write, got ${result.kind}`);
  return result.etag;
}

/** Registers the contract tests for one implementation. `subject` is called inside each test. */
export function describeObjectStoreContract(name: string, subject: () => ContractSubject): void {
  describe(`ObjectStore contract: ${name}`, () => {
    it('answers undefined for a missing object, and reads back what was written with its etag and size', async () => {
      const { store, prefix } = subject();
      const key = `${prefix()}a.json`;
      expect(await store.get(key)).toBeUndefined();
      expect(await store.head(key)).toBeUndefined();
      const etag = etagOf(await store.put(key, '{"a":1}', { contentType: 'application/json' }));
      expect(etag).not.toBe('');
      expect(await store.get(key)).toEqual({ kind: 'object', body: new Uint8Array(Buffer.from('{"a":1}')), etag });
      const info = await store.head(key);
      expect(info).toMatchObject({ key, etag, size: 7 });
      // The store's clock, which may differ from ours by a little: written within the last minute.
      expect(Math.abs((info?.lastModified.getTime() ?? 0) - Date.now())).toBeLessThan(60_000);
    });

    it('writes bytes and re-openable streams', async () => {
      const { store, prefix } = subject();
      const bytes = randomBytes(3000);
      await store.put(`${prefix()}bytes`, bytes);
      const p = prefix();
      await store.put(`${p}stream`, { length: bytes.length, open: () => Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]) });
      const got = await store.get(`${p}stream`);
      expect(got?.kind === 'object' && Buffer.from(got.body).equals(bytes)).toBe(true);
    });

    it('streams an object with its size and etag, and answers undefined for a missing one', async () => {
      const { store, prefix } = subject();
      const key = `${prefix()}lfs/big`;
      expect(await store.getStream(key)).toBeUndefined();
      const bytes = randomBytes(200_000);
      const etag = etagOf(await store.put(key, bytes));
      const got = await store.getStream(key);
      expect(got && { size: got.size, etag: got.etag }).toEqual({ size: bytes.length, etag });
      const chunks: Buffer[] = [];
      for await (const chunk of got?.body ?? []) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
      const empty = `${prefix()}lfs/empty`;
      await store.put(empty, new Uint8Array());
      const none = await store.getStream(empty);
      expect(none?.size).toBe(0);
      let length = 0;
      for await (const chunk of none?.body ?? []) length += (chunk as Buffer).length;
      expect(length).toBe(0);
    });

    it('creates with If-None-Match: * only when the key is free', async () => {
      const { store, prefix } = subject();
      const key = `${prefix()}log/1.json`;
      expect((await store.put(key, 'first', { ifNoneMatch: '*' })).kind).toBe('written');
      expect(await store.put(key, 'second', { ifNoneMatch: '*' })).toEqual({ kind: 'precondition-failed' });
      expect(await bodyOf(store, key)).toBe('first');
    });

    it('lets exactly one of many concurrent conditional creates win', async () => {
      const { store, prefix } = subject();
      const key = `${prefix()}race`;
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => store.put(key, `writer-${i}`, { ifNoneMatch: '*' })));
      const winners = results.flatMap((r, i) => (r.kind === 'written' ? [i] : []));
      expect(winners).toHaveLength(1);
      expect(await bodyOf(store, key)).toBe(`writer-${winners[0]}`);
    });

    it('swaps with If-Match on the current etag and refuses a stale or missing one', async () => {
      const { store, prefix } = subject();
      const key = `${prefix()}manifest.json`;
      const v1 = etagOf(await store.put(key, 'v1'));
      const v2 = etagOf(await store.put(key, 'v2', { ifMatch: v1 }));
      expect(v2).not.toBe(v1);
      expect(await store.put(key, 'v3', { ifMatch: v1 })).toEqual({ kind: 'precondition-failed' });
      expect(await bodyOf(store, key)).toBe('v2');
      expect(await store.put(`${prefix()}missing`, 'x', { ifMatch: v2 })).toEqual({ kind: 'precondition-failed' });
    });

    it('lets exactly one of many concurrent swaps from the same etag win', async () => {
      const { store, prefix } = subject();
      const key = `${prefix()}cas`;
      const base = etagOf(await store.put(key, 'base'));
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => store.put(key, `next-${i}`, { ifMatch: base })));
      const winners = results.flatMap((r, i) => (r.kind === 'written' ? [i] : []));
      expect(winners).toHaveLength(1);
      expect(await bodyOf(store, key)).toBe(`next-${winners[0]}`);
    });

    it('answers not-modified to a conditional GET while the etag matches', async () => {
      const { store, prefix } = subject();
      const key = `${prefix()}m`;
      const v1 = etagOf(await store.put(key, 'one'));
      expect(await store.get(key, { ifNoneMatch: v1 })).toEqual({ kind: 'not-modified', etag: v1 });
      const v2 = etagOf(await store.put(key, 'two'));
      const changed = await store.get(key, { ifNoneMatch: v1 });
      expect(changed?.kind === 'object' && changed.etag === v2 && text(changed.body) === 'two').toBe(true);
      expect(await store.get(`${prefix()}none`, { ifNoneMatch: v1 })).toBeUndefined();
    });

    it('deletes, and deleting a missing object succeeds', async () => {
      const { store, prefix } = subject();
      const key = `${prefix()}gone`;
      await store.put(key, 'x');
      await store.delete(key);
      expect(await store.get(key)).toBeUndefined();
      await store.delete(key);
      expect((await store.put(key, 'again', { ifNoneMatch: '*' })).kind).toBe('written');
    });

    it('lists a prefix in key order, page by page, with startAfter', async () => {
      const { store, prefix } = subject();
      const p = prefix();
      const keys = ['log/003', 'log/001', 'log/002', 'log/005', 'log/004', 'packs/a', 'packs/b'].map((k) => `${p}${k}`);
      await Promise.all(keys.map((k) => store.put(k, k)));
      await store.put(`${p.slice(0, -1)}-other/log/001`, 'not mine');
      const pages: string[][] = [];
      let startAfter: string | undefined;
      do {
        const page = await store.list(`${p}log/`, { limit: 2, ...(startAfter ? { startAfter } : {}) });
        pages.push(page.items.map((i) => i.key.slice(p.length)));
        startAfter = page.next;
      } while (startAfter);
      expect(pages.flat()).toEqual(['log/001', 'log/002', 'log/003', 'log/004', 'log/005']);
      expect(pages[0]).toEqual(['log/001', 'log/002']);
      const tail = await store.list(`${p}log/`, { startAfter: `${p}log/003` });
      expect(tail.items.map((i) => i.key.slice(p.length))).toEqual(['log/004', 'log/005']);
      expect(tail.next).toBeUndefined();
      const all = [];
      for await (const item of listAll(store, p)) all.push(item);
      expect(all.map((i) => i.key)).toEqual([...keys].sort());
      expect(all[0]?.size).toBe(keys[1]?.length);
    });

    it('lists the segments directly under a prefix (delimiter /), page by page, without plain keys', async () => {
      const { store, prefix } = subject();
      const p = prefix();
      const keys = ['repos/b/x/manifest.json', 'repos/a/one/manifest.json', 'repos/a/two/log/1', 'repos/a/two/manifest.json', 'repos/c/m', 'repos/loose', 'top'];
      await Promise.all(keys.map((k) => store.put(`${p}${k}`, k)));
      await store.put(`${p.slice(0, -1)}-other/repos/z/m`, 'not mine');
      const mine = async (under: string, limit?: number) => {
        const got: string[] = [];
        let after: string | undefined;
        let pages = 0;
        do {
          const page = await store.listPrefixes(`${p}${under}`, { ...(limit ? { limit } : {}), ...(after ? { after } : {}) });
          got.push(...page.prefixes.map((x) => x.slice(p.length)));
          after = page.next;
          pages++;
        } while (after !== undefined && pages < 20);
        return { got, pages };
      };
      expect((await mine('')).got).toEqual(['repos/']);
      expect((await mine('repos/')).got).toEqual(['repos/a/', 'repos/b/', 'repos/c/']);
      expect((await mine('repos/a/')).got).toEqual(['repos/a/one/', 'repos/a/two/']);
      expect((await mine('repos/c/')).got).toEqual([]);
      const paged = await mine('repos/', 1);
      expect(paged.got).toEqual(['repos/a/', 'repos/b/', 'repos/c/']);
      expect(paged.pages).toBeGreaterThanOrEqual(3);
      const all: string[] = [];
      for await (const x of listAllPrefixes(store, `${p}repos/a/`)) all.push(x.slice(p.length));
      expect(all).toEqual(['repos/a/one/', 'repos/a/two/']);
    });

    it('verifies a declared SHA-256 and refuses a body that does not match it', async () => {
      const { store, prefix } = subject();
      const key = `${prefix()}packs/x.pack`;
      await expect(store.put(key, 'pack bytes', { sha256: sha256('other bytes') })).rejects.toBeInstanceOf(ChecksumMismatchError);
      expect(await store.get(key)).toBeUndefined();
      expect((await store.put(key, 'pack bytes', { sha256: sha256('pack bytes'), ifNoneMatch: '*' })).kind).toBe('written');
    });
  });
}
