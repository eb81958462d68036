import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { Registry } from 'prom-client';
import { S3ObjectStore } from './s3-object-store.ts';
import { S3UrlSigner } from './s3-presigned-urls.ts';

const bucket = inject('bucket');
const config = inject('s3');
const signer = new S3UrlSigner({ config, bucket });
const store = new S3ObjectStore({ config, bucket, registry: new Registry() });
afterAll(() => {
  signer.destroy();
  store.destroy();
});

const key = () => `presigned/${randomBytes(4).toString('hex')}/output.tar`;

describe('S3UrlSigner on MinIO', () => {
  it('lets a plain fetch PUT one object through its URL and GET it back through another, with no credential', async () => {
    const target = key();
    const body = randomBytes(100_000);
    const put = await fetch(await signer.presign(target, 'PUT', 60), { method: 'PUT', body });
    expect(put.status).toBe(200);
    const got = await fetch(await signer.presign(target, 'GET', 60));
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(body)).toBe(true);
    // The store sees what the URL wrote.
    expect((await store.head(target))?.size).toBe(body.length);
  });

  it('holds each URL to its key and method: another key, or the other method, is refused', async () => {
    const target = key();
    const putUrl = new URL(await signer.presign(target, 'PUT', 60));
    const other = new URL(putUrl);
    other.pathname = `/${bucket}/${key()}`;
    expect((await fetch(other, { method: 'PUT', body: 'x' })).status).toBe(403);
    expect((await fetch(putUrl, { method: 'PUT', body: 'mine' })).status).toBe(200);
    // The PUT URL does not read, and a GET URL does not write.
    expect((await fetch(putUrl)).status).toBe(403);
    const getUrl = await signer.presign(target, 'GET', 60);
    expect((await fetch(getUrl, { method: 'PUT', body: 'overwritten' })).status).toBe(403);
    expect(await (await fetch(getUrl)).text()).toBe('mine');
  });

  it('refuses an expired URL (signed two minutes ago for one minute) and says so', async () => {
    const target = key();
    await store.put(target, 'kept');
    const past = new S3UrlSigner({ config, bucket, now: () => new Date(Date.now() - 120_000) });
    try {
      for (const method of ['GET', 'PUT'] as const) {
        const res = await fetch(await past.presign(target, method, 60), { method, ...(method === 'PUT' ? { body: 'late' } : {}) });
        expect([method, res.status]).toEqual([method, 403]);
        expect(await res.text()).toMatch(/expired/i);
      }
    } finally {
      past.destroy();
    }
    const kept = await store.get(target);
    expect(kept?.kind === 'object' && Buffer.from(kept.body).toString()).toBe('kept');
  });

  it('answers 404 for a GET URL of a key that does not exist (signing asks nothing of the store)', async () => {
    expect((await fetch(await signer.presign(key(), 'GET', 60))).status).toBe(404);
  });
});
