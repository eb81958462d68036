import { PassThrough } from 'node:stream';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../src/object-store/memory-object-store.ts';
import { StoreUnavailableError } from '../../src/object-store/object-store.ts';
import { ForwardingObjectStore } from '../../src/object-store/testing/forwarding-object-store.ts';
import { lfsObjectKey, parseRepoPath } from '../../src/repo-store/index.ts';
import { mintToken } from '../auth/index.ts';
import { SpoolBudget } from '../plumbing/spool-budget.ts';
import { lfsTestServer, TEST_TOKEN_SECRET, type LfsTestServer } from './testing/lfs-test-server.ts';

const LFS = 'application/vnd.git-lfs+json';
const REPO = parseRepoPath('acme/site');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

let server: LfsTestServer;
let store: MemoryObjectStore;
afterEach(() => server?.app.close());

async function start(options: Parameters<typeof lfsTestServer>[2] = {}, objects?: MemoryObjectStore | ForwardingObjectStore) {
  store = new MemoryObjectStore();
  server = await lfsTestServer(objects ?? store, ['acme/site'], options);
  return server;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function batch(body: unknown, token = server.writeToken, url = '/acme/site/info/lfs/objects/batch') {
  return server.app.inject({ method: 'POST', url, headers: { ...bearer(token), 'content-type': `${LFS}; charset=utf-8`, host: 'git.test:8090' }, payload: JSON.stringify(body) });
}

function put(oid: string, bytes: Uint8Array, token = server.writeToken, query = '') {
  return server.app.inject({
    method: 'PUT',
    url: `/acme/site/info/lfs/objects/${oid}${query}`,
    headers: { ...bearer(token), 'content-type': 'application/octet-stream' },
    payload: Buffer.from(bytes),
  });
}

async function stored(oid: string): Promise<Buffer | undefined> {
  const got = await store.get(lfsObjectKey(REPO, oid));
  return got?.kind === 'object' ? Buffer.from(got.body) : undefined;
}

describe('LFS batch', () => {
  it('answers upload and verify actions for a missing object, carrying the caller credentials', async () => {
    await start();
    const bytes = randomBytes(1000);
    const oid = sha256(bytes);
    const res = await batch({ operation: 'upload', transfers: ['basic'], objects: [{ oid, size: 1000 }], hash_algo: 'sha256', ref: { name: 'refs/heads/main' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/vnd\.git-lfs\+json/);
    const header = { Authorization: `Bearer ${server.writeToken}` };
    expect(res.json()).toEqual({
      transfer: 'basic',
      hash_algo: 'sha256',
      objects: [
        {
          oid,
          size: 1000,
          authenticated: true,
          actions: {
            upload: { href: `http://git.test:8090/acme/site/info/lfs/objects/${oid}?size=1000`, header, expires_in: 3600 },
            verify: { href: 'http://git.test:8090/acme/site/info/lfs/verify', header, expires_in: 3600 },
          },
        },
      ],
    });
  });

  it('uploads, verifies and downloads an object through the actions it hands out', async () => {
    await start({ publicUrl: 'https://git.example.com/prefix' });
    const bytes = randomBytes(300_000);
    const oid = sha256(bytes);
    const upload = (await batch({ operation: 'upload', objects: [{ oid, size: bytes.length }] })).json().objects[0].actions;
    expect(upload.upload.href).toBe(`https://git.example.com/prefix/acme/site/info/lfs/objects/${oid}?size=300000`);
    const path = (href: string) => href.replace('https://git.example.com/prefix', '');
    const putRes = await server.app.inject({ method: 'PUT', url: path(upload.upload.href), headers: { ...upload.upload.header, 'content-type': 'application/octet-stream' }, payload: bytes });
    expect(putRes.statusCode).toBe(200);
    expect((await stored(oid))?.equals(bytes)).toBe(true);
    const verify = await server.app.inject({ method: 'POST', url: path(upload.verify.href), headers: { ...upload.verify.header, 'content-type': LFS }, payload: { oid, size: bytes.length } });
    expect(verify.statusCode).toBe(200);

    const again = (await batch({ operation: 'upload', objects: [{ oid, size: bytes.length }] })).json().objects[0];
    expect(again).toEqual({ oid, size: bytes.length, authenticated: true });

    const download = (await batch({ operation: 'download', objects: [{ oid, size: bytes.length }] }, server.readToken)).json().objects[0].actions.download;
    expect(download).toEqual({ href: `https://git.example.com/prefix/acme/site/info/lfs/objects/${oid}`, header: { Authorization: `Bearer ${server.readToken}` }, expires_in: 3600 });
    const get = await server.app.inject({ url: path(download.href), headers: download.header });
    expect(get.statusCode).toBe(200);
    expect(get.headers['content-type']).toBe('application/octet-stream');
    expect(get.headers['content-length']).toBe(String(bytes.length));
    expect(get.rawPayload.equals(bytes)).toBe(true);
    const head = await server.app.inject({ method: 'HEAD', url: path(download.href), headers: download.header });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String(bytes.length));
    expect(head.rawPayload.length).toBe(0);
  });

  it('answers per-object errors: missing download 404, bad oid 422, too large 422, size conflict 422', async () => {
    await start({ maxObjectBytes: 5000 });
    const present = randomBytes(10);
    await store.put(lfsObjectKey(REPO, sha256(present)), present);
    const missing = sha256(randomBytes(10));
    const res = await batch({
      operation: 'download',
      objects: [
        { oid: missing, size: 10 },
        { oid: 'ABC', size: 1 },
        { oid: sha256(randomBytes(1)), size: 6000 },
        { oid: sha256(present), size: 11 },
        { oid: sha256(present), size: 10 },
      ],
    });
    expect(res.statusCode).toBe(200);
    const objects = res.json().objects as { oid: string; error?: { code: number; message: string }; actions?: unknown }[];
    expect(objects.map((o) => o.error?.code)).toEqual([404, 422, 422, 422, undefined]);
    expect(objects[0]?.error?.message).toBe('object does not exist');
    expect(objects[2]?.error?.message).toBe('LFS objects may be at most 5000 bytes');
    expect(objects[3]?.error?.message).toBe('the object with this oid has 10 bytes, not 11');
    expect(objects[4]?.actions).toHaveProperty('download');
  });

  it('needs write for uploads and read for downloads', async () => {
    await start();
    const objects = [{ oid: sha256(Buffer.from('x')), size: 1 }];
    const refused = await batch({ operation: 'upload', objects }, server.readToken);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ error: 'forbidden', message: 'This needs the "write" scope; the access token has: read.' });
    expect((await batch({ operation: 'download', objects }, server.readToken)).statusCode).toBe(200);
    const anonymous = await server.app.inject({ method: 'POST', url: '/acme/site/info/lfs/objects/batch', headers: { 'content-type': LFS }, payload: '{}' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['www-authenticate']).toMatch(/^Basic realm="cw-git"/);
  });

  it('refuses other hash algorithms, transfers without basic, and invalid bodies', async () => {
    await start();
    const objects = [{ oid: sha256(Buffer.from('x')), size: 1 }];
    const algo = await batch({ operation: 'download', objects, hash_algo: 'sha512' });
    expect(algo.statusCode).toBe(409);
    expect(algo.json().error).toBe('unsupported_hash_algo');
    expect((await batch({ operation: 'download', objects, transfers: ['tus'] })).statusCode).toBe(422);
    const invalid = await batch({ operation: 'delete', objects });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.json()).toMatchObject({ error: 'invalid_request', message: expect.stringMatching(/^The request body is invalid/) });
    expect((await batch({ operation: 'download', objects: [{ oid: objects[0]?.oid, size: -1 }] })).statusCode).toBe(422);
    expect((await batch({ operation: 'download', objects: Array.from({ length: 1001 }, () => objects[0]) })).statusCode).toBe(422);
  });

  it('answers 404 for an unknown repository and accepts the .git suffix git-lfs adds', async () => {
    await start();
    const objects = [{ oid: sha256(Buffer.from('x')), size: 1 }];
    const unknown = await batch({ operation: 'download', objects }, server.writeToken, '/acme/other/info/lfs/objects/batch');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: 'repository_not_found' });
    expect((await batch({ operation: 'download', objects }, server.writeToken, '/acme/site.git/info/lfs/objects/batch')).statusCode).toBe(200);
    const oid = sha256(Buffer.from('x'));
    expect((await server.app.inject({ url: `/acme/other/info/lfs/objects/${oid}`, headers: bearer(server.readToken) })).statusCode).toBe(404);
    expect((await server.app.inject({ method: 'PUT', url: `/acme/other/info/lfs/objects/${oid}`, headers: bearer(server.writeToken), payload: 'x' })).statusCode).toBe(404);
  });

  it('shortens expires_in to the life left in an expiring token', async () => {
    await start();
    const token = mintToken({ sub: 'ci', scopes: ['read'], ttlSeconds: 600 }, TEST_TOKEN_SECRET);
    const present = Buffer.from('x');
    await store.put(lfsObjectKey(REPO, sha256(present)), present);
    const res = await batch({ operation: 'download', objects: [{ oid: sha256(present), size: 1 }] }, token);
    const expiresIn = res.json().objects[0].actions.download.expires_in as number;
    expect(expiresIn).toBeGreaterThan(590);
    expect(expiresIn).toBeLessThanOrEqual(600);
  });
});

describe('LFS basic transfer', () => {
  it('refuses an upload whose SHA-256 or size does not match, storing nothing', async () => {
    await start();
    const bytes = randomBytes(2000);
    const wrongOid = sha256(randomBytes(2000));
    const mismatch = await put(wrongOid, bytes);
    expect(mismatch.statusCode).toBe(422);
    expect(mismatch.json()).toMatchObject({ error: 'checksum_mismatch', message: `The upload's SHA-256 is ${sha256(bytes)}, not the object id ${wrongOid}.` });
    const short = await put(sha256(bytes), bytes, server.writeToken, '?size=2001');
    expect(short.statusCode).toBe(422);
    expect(short.json().error).toBe('size_mismatch');
    expect(store.keys()).toEqual([]);
    expect((await put(sha256(bytes), bytes, server.writeToken, '?size=abc')).statusCode).toBe(422);
  });

  it('refuses an object over the size limit, by its Content-Length or while reading a chunked body', async () => {
    await start({ maxObjectBytes: 1000 });
    const bytes = randomBytes(1001);
    const res = await put(sha256(bytes), bytes);
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toBe('too_large');
    const chunked = await server.app.inject({
      method: 'PUT',
      url: `/acme/site/info/lfs/objects/${sha256(bytes)}`,
      headers: { ...bearer(server.writeToken), 'transfer-encoding': 'chunked' },
      payload: bytes,
    });
    expect(chunked.statusCode).toBe(413);
    expect(store.keys()).toEqual([]);
  });

  it('stores whatever the content type, and an upload of a present object succeeds and changes nothing', async () => {
    await start();
    const bytes = Buffer.from('{"json": "but an LFS object all the same"}');
    const oid = sha256(bytes);
    const first = await server.app.inject({ method: 'PUT', url: `/acme/site/info/lfs/objects/${oid}`, headers: { ...bearer(server.writeToken), 'content-type': 'application/json' }, payload: bytes });
    expect(first.statusCode).toBe(200);
    expect((await put(oid, bytes)).statusCode).toBe(200);
    expect((await stored(oid))?.equals(bytes)).toBe(true);
    const empty = new Uint8Array();
    expect((await put(sha256(empty), empty)).statusCode).toBe(200);
    expect((await stored(sha256(empty)))?.length).toBe(0);
  });

  it('needs write to upload or verify and read to download; refuses malformed oids', async () => {
    await start();
    const bytes = Buffer.from('hello');
    const oid = sha256(bytes);
    expect((await put(oid, bytes, server.readToken)).statusCode).toBe(403);
    const verify = await server.app.inject({ method: 'POST', url: '/acme/site/info/lfs/verify', headers: { ...bearer(server.readToken), 'content-type': LFS }, payload: { oid, size: 5 } });
    expect(verify.statusCode).toBe(403);
    expect((await server.app.inject({ url: `/acme/site/info/lfs/objects/${oid}` })).statusCode).toBe(401);
    const bad = await server.app.inject({ url: '/acme/site/info/lfs/objects/not-an-oid', headers: bearer(server.readToken) });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error).toBe('invalid_oid');
  });

  it('answers 404 for a missing object and verify of a missing or wrong-sized one', async () => {
    await start();
    const bytes = Buffer.from('hello');
    const oid = sha256(bytes);
    const get = await server.app.inject({ url: `/acme/site/info/lfs/objects/${oid}`, headers: bearer(server.readToken) });
    expect(get.statusCode).toBe(404);
    expect(get.json().error).toBe('object_not_found');
    expect((await server.app.inject({ method: 'HEAD', url: `/acme/site/info/lfs/objects/${oid}`, headers: bearer(server.readToken) })).statusCode).toBe(404);
    const verify = (size: number) => server.app.inject({ method: 'POST', url: '/acme/site/info/lfs/verify', headers: { ...bearer(server.writeToken), 'content-type': LFS }, payload: { oid, size } });
    expect((await verify(5)).statusCode).toBe(404);
    await put(oid, bytes);
    expect((await verify(6)).statusCode).toBe(422);
    expect((await verify(5)).statusCode).toBe(200);
  });
});

class DownStore extends ForwardingObjectStore {
  override async head(): Promise<never> {
    throw new StoreUnavailableError('head', new Error('connect ECONNREFUSED 10.0.0.1:9000'));
  }
  override async getStream(): Promise<never> {
    throw new StoreUnavailableError('get', new Error('connect ECONNREFUSED 10.0.0.1:9000'));
  }
  override async put(): Promise<never> {
    throw new StoreUnavailableError('put', new Error('connect ECONNREFUSED 10.0.0.1:9000'));
  }
}

describe('LFS with the object store down', () => {
  it('answers 503 store_unavailable, retryable, without internals', async () => {
    await start({}, new DownStore(new MemoryObjectStore()));
    const bytes = Buffer.from('hello');
    const oid = sha256(bytes);
    const responses = [
      await batch({ operation: 'download', objects: [{ oid, size: 5 }] }),
      await server.app.inject({ url: `/acme/site/info/lfs/objects/${oid}`, headers: bearer(server.readToken) }),
      await put(oid, bytes),
    ];
    for (const res of responses) {
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json()).toEqual({ error: 'store_unavailable', message: 'The object store is unavailable; retry later.', retryable: true });
      expect(res.body).not.toContain('10.0.0.1');
    }
  });

  it("never hands a trusted proxy's own credential to the end user it forwards", async () => {
    const proxied = await lfsTestServer(new MemoryObjectStore(), [REPO.full], {}, { trustedProxies: ['127.0.0.1'] });
    const res = await proxied.app.inject({
      method: 'POST',
      url: '/acme/site/info/lfs/objects/batch',
      headers: { authorization: `Bearer ${proxied.writeToken}`, 'x-forwarded-user': 'alice', 'content-type': LFS, accept: LFS },
      payload: { operation: 'upload', objects: [{ oid: 'a'.repeat(64), size: 3 }] },
    });
    expect(res.statusCode).toBe(200);
    const actions = res.json().objects[0].actions;
    expect(actions.upload.href).toMatch(/objects\/a{64}\?size=3$/);
    expect(actions.upload.header).toBeUndefined();
    expect(res.body).not.toContain(proxied.writeToken);
  });
});

describe('LFS uploads and the spool budget', () => {
  it("refuses an upload past its caller's share of the spool with 429 and Retry-After, reading none of it, and counts nothing once done", async () => {
    const spool = new SpoolBudget({ perOwnerBytes: 10_000, totalBytes: 100_000 });
    await start({ spool });
    // Another upload of the same caller's (`writer`, to any repository) is being received: 8,000 bytes of its 10,000 are taken.
    const inFlight = spool.open('writer');
    inFlight.reach(8000);
    const bytes = randomBytes(5000);
    const refused = await put(sha256(bytes), bytes);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('10');
    expect(refused.json()).toMatchObject({
      error: 'owner_uploads_limit',
      retryable: true,
      message: expect.stringContaining("writer's pushes, LFS uploads and imports being received hold 7.8 KiB of the 9.8 KiB"),
    });
    expect(await stored(sha256(bytes))).toBeUndefined();
    inFlight.release();
    expect((await put(sha256(bytes), bytes)).statusCode).toBe(200);
    expect(await stored(sha256(bytes))).toEqual(bytes);
    expect(spool.heldBytes).toBe(0);
  });

  it('counts an upload as its bytes arrive, not as announced: headers announcing the whole share and no body hold none of it', async () => {
    const spool = new SpoolBudget({ perOwnerBytes: 10_000, totalBytes: 100_000 });
    await start({ spool });
    const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
    const held = randomBytes(9000);
    const socket = connect(Number(new URL(address).port), '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      `PUT /acme/site/info/lfs/objects/${sha256(held)} HTTP/1.1\r\nhost: git.test\r\nauthorization: Bearer ${server.writeToken}\r\n` +
        `content-type: application/octet-stream\r\ncontent-length: ${held.length}\r\n\r\n`,
    );
    socket.write(held.subarray(0, 1));
    try {
      // The announcing upload is being received: its one byte sent is what it holds, not the 9,000 announced.
      await expect.poll(() => spool.heldBytes).toBe(1);
      const bytes = randomBytes(5000);
      expect((await put(sha256(bytes), bytes)).statusCode).toBe(200);
      // Announced past the whole bound: refused at once with 413, nothing read.
      const huge = await server.app.inject({
        method: 'PUT',
        url: `/acme/site/info/lfs/objects/${sha256(bytes)}`,
        headers: { ...bearer(server.writeToken), 'content-type': 'application/octet-stream', 'content-length': '20000' },
        payload: Buffer.alloc(20000),
      });
      expect([huge.statusCode, huge.json().error]).toEqual([413, 'spool_too_large']);
    } finally {
      socket.destroy();
    }
  });
});

describe('LFS downloads', () => {
  it('stream a few at once per owner and on the instance, the rest waiting their turn (found in review: slow readers held every bucket connection)', async () => {
    // A download whose client reads nothing more: its body never ends, as a trickle-reading client keeps it.
    const held = new PassThrough();
    held.write(Buffer.alloc(10)); // a first chunk, so the answer's head goes out
    class SlowStore extends ForwardingObjectStore {
      override async getStream(key: string) {
        return key.endsWith(slowOid) ? { body: held, size: 1000, etag: '"held"' } : this.inner.getStream(key);
      }
    }
    const slowOid = 'a'.repeat(64);
    const bytes = randomBytes(100);
    const oid = sha256(bytes);
    const memory = new MemoryObjectStore();
    server = await lfsTestServer(new SlowStore(memory), ['acme/site'], { downloadBounds: { perCaller: 1, perOwner: 1, total: 1, waitMs: 200 } });
    store = memory;
    expect((await put(oid, bytes)).statusCode).toBe(200);
    const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
    const get = (o: string, signal?: AbortSignal) => fetch(`${address}/acme/site/info/lfs/objects/${o}`, { headers: bearer(server.readToken), ...(signal ? { signal } : {}) });
    const slow = new AbortController();
    const first = await get(slowOid, slow.signal);
    expect(first.status).toBe(200);
    const refused = await get(oid);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeDefined();
    expect(await refused.text()).toContain('LFS downloads running at once');
    // The slow client leaves: its turn is given back.
    slow.abort();
    await expect.poll(async () => (await get(oid)).status, { timeout: 5000 }).toBe(200);
    held.destroy();
    server.app.server.closeAllConnections();
  });
});

describe('LFS batch requests', () => {
  it("are answered a few at once per caller, the next waiting its turn then 429, another caller's meanwhile (review-177 F5: 40 batches filled the bucket's connections)", async () => {
    // Lookups of this oid hang until the test lets them go: the batch asking for it holds its turn.
    const heldOid = 'b'.repeat(64);
    let letGo: () => void = () => {};
    const held = new Promise<void>((resolve) => (letGo = resolve));
    let reached: () => void = () => {};
    const arrived = new Promise<void>((resolve) => (reached = resolve));
    class SlowStore extends ForwardingObjectStore {
      override async head(key: string) {
        if (key.endsWith(heldOid)) {
          reached();
          await held;
        }
        return this.inner.head(key);
      }
    }
    const memory = new MemoryObjectStore();
    server = await lfsTestServer(new SlowStore(memory), ['acme/site'], { batchBounds: { perCaller: 1, perOwner: 2, total: 4, waitMs: 200 } });
    store = memory;
    const first = batch({ operation: 'download', objects: [{ oid: heldOid, size: 1 }] });
    await arrived;
    const refused = await batch({ operation: 'download', objects: [{ oid: 'c'.repeat(64), size: 1 }] });
    expect([refused.statusCode, refused.json().error]).toEqual([429, 'owner_batches_limit']);
    expect(refused.headers['retry-after']).toBe('10');
    // Another caller's batch runs at once.
    expect((await batch({ operation: 'download', objects: [{ oid: 'c'.repeat(64), size: 1 }] }, server.readToken)).statusCode).toBe(200);
    letGo();
    expect((await first).statusCode).toBe(200);
    // The turn was given back.
    expect((await batch({ operation: 'download', objects: [{ oid: 'c'.repeat(64), size: 1 }] })).statusCode).toBe(200);
  });
});
