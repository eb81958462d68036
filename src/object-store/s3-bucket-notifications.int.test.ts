// MinIO's own bucket notifications, as `make dev` sets them up for cw-git's `POST /_events/notify`: a MinIO
// started with a webhook target, the manifest-writes rule on a bucket, and a small HTTP receiver standing in for
// cw-git. It also keeps e2e/fixtures/minio-notification.json, a real body, honest: its shape is checked against
// each run (`CW_UPDATE_FIXTURES=1` rewrites it from the run).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startMinio, type MinioServer } from '../../e2e/harness/minio.ts';
import { freePort } from '../../e2e/harness/process.ts';
import { repoRoot } from '../../e2e/harness/tools.ts';
import { putManifestNotifications } from './s3-bucket-notifications.ts';
import { ensureBucket } from './s3-buckets.ts';
import { S3ObjectStore } from './s3-object-store.ts';
import { Registry } from 'prom-client';

const FIXTURE = join(repoRoot, 'e2e/fixtures/minio-notification.json');
const BUCKET = 'cloudwright-git';
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtaW5pbyJ9.c2lnbmF0dXJl';

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** Records every POST and answers it with the next scripted status (204 once the script is spent). */
class Receiver {
  readonly received: Received[] = [];
  readonly statuses: number[] = [];
  readonly #waiters: (() => void)[] = [];
  readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      this.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(this.statuses.shift() ?? 204).end();
      this.#waiters.splice(0).forEach((wake) => wake());
    });
  });

  listen(port = 0): Promise<string> {
    return new Promise((resolve) => this.server.listen(port, '127.0.0.1', () => resolve(`http://127.0.0.1:${(this.server.address() as AddressInfo).port}/_events/notify`)));
  }

  /** Resolves once `count` requests have arrived in all. */
  async until(count: number, timeoutMs = 15_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > deadline) throw new Error(`${this.received.length} of ${count} notifications within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
    return this.received;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A MinIO of its own whose webhook target is `endpoint`, and a store on its bucket with the manifest-writes rule. */
async function minioWithTarget(endpoint: string, queued: boolean): Promise<{ minio: MinioServer; store: S3ObjectStore }> {
  const stateDir = join(inject('stateDir'), `minio-notify-${randomBytes(4).toString('hex')}`);
  mkdirSync(stateDir, { recursive: true });
  const webhook = { id: 'cwgit', endpoint, authToken: TOKEN, ...(queued ? { queueDir: join(stateDir, 'minio-events') } : {}) };
  const minio = await startMinio(stateDir, undefined, { webhook });
  await ensureBucket(minio.s3, BUCKET);
  // Twice: the rule is swapped in by its id, so one manifest write still makes one notification.
  await putManifestNotifications(minio.s3, BUCKET, minio.webhookArn ?? '');
  await putManifestNotifications(minio.s3, BUCKET, minio.webhookArn ?? '');
  return { minio, store: new S3ObjectStore({ config: minio.s3, bucket: BUCKET, registry: new Registry() }) };
}

const put = (store: S3ObjectStore, key: string) => store.put(key, Buffer.from('{}'));
const keyOf = (received: Received) => (JSON.parse(received.body) as { Key: string }).Key;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The body's structure with every value replaced by its type: what consumers of the fixture rely on. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]));
  return typeof value;
}

/** A receiver, a MinIO posting to it, torn down after the block's tests. */
function withReceiver(queued: boolean): { receiver: Receiver; store: () => S3ObjectStore } {
  const receiver = new Receiver();
  let env: { minio: MinioServer; store: S3ObjectStore } | undefined;
  beforeAll(async () => {
    env = await minioWithTarget(await receiver.listen(), queued);
  });
  afterAll(async () => {
    env?.store.destroy();
    await env?.minio.service.stop();
    await receiver.close();
  });
  return { receiver, store: () => env?.store as S3ObjectStore };
}

describe('MinIO webhook target without a queue directory (make dev)', () => {
  const { receiver, store } = withReceiver(false);

  it('posts one notification per manifest write at once, none for other keys, the token as a Bearer credential', async () => {
    for (const key of ['repos/acme/app/log/00000000000000000001.json', 'repos/acme/app/packs/ab.pack', 'manifest.json', 'other/acme/app/manifest.json']) await put(store(), key);
    const written = Date.now();
    await put(store(), 'repos/acme/app/manifest.json');
    const [first] = await receiver.until(1);
    const latencyMs = Date.now() - written;
    await sleep(1500);
    expect(receiver.received).toHaveLength(1);
    expect(latencyMs).toBeLessThan(1000);

    expect(first?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(first?.headers['content-type']).toBe('application/json');
    const body = JSON.parse(first?.body ?? '') as { EventName: string; Key: string; Records: { eventName: string; s3: { bucket: { name: string }; object: { key: string } } }[] };
    expect(body.EventName).toBe('s3:ObjectCreated:Put');
    expect(body.Key).toBe(`${BUCKET}/repos/acme/app/manifest.json`);
    expect(body.Records).toHaveLength(1);
    expect(body.Records[0]?.eventName).toBe('s3:ObjectCreated:Put');
    expect(body.Records[0]?.s3.bucket.name).toBe(BUCKET);
    // URL-encoded as a query value: `/` is %2F (and a space would be `+`).
    expect(body.Records[0]?.s3.object.key).toBe('repos%2Facme%2Fapp%2Fmanifest.json');

    if (process.env.CW_UPDATE_FIXTURES || !existsSync(FIXTURE)) {
      mkdirSync(join(repoRoot, 'e2e/fixtures'), { recursive: true });
      writeFileSync(FIXTURE, JSON.stringify(body, null, 2) + '\n');
    }
    const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as unknown;
    expect(shape(body), 'MinIO sends another shape than e2e/fixtures/minio-notification.json; CW_UPDATE_FIXTURES=1 rewrites it').toEqual(shape(fixture));
  });

  it('drops an event the target answers with 404 (cw-git without the events route) and posts the next one', async () => {
    const before = receiver.received.length;
    receiver.statuses.push(404);
    await put(store(), 'repos/acme/lost/manifest.json');
    await receiver.until(before + 1);
    await put(store(), 'repos/acme/next/manifest.json');
    await receiver.until(before + 2);
    await sleep(3500); // longer than the queue's retry interval: nothing comes back
    expect(receiver.received.slice(before).map(keyOf)).toEqual([`${BUCKET}/repos/acme/lost/manifest.json`, `${BUCKET}/repos/acme/next/manifest.json`]);
  });
});

describe('MinIO webhook target with a queue directory', () => {
  const { receiver, store } = withReceiver(true);

  it('retries an event every 3 s until the target answers 2xx, the ones behind it waiting', async () => {
    receiver.statuses.push(404, 503);
    await put(store(), 'repos/acme/web/manifest.json');
    await put(store(), 'repos/acme/api/manifest.json');
    const received = await receiver.until(4);
    expect(received.map(keyOf)).toEqual([...Array<string>(3).fill(`${BUCKET}/repos/acme/web/manifest.json`), `${BUCKET}/repos/acme/api/manifest.json`]);
  });
});

describe('MinIO webhook target with a queue directory, not listening yet', () => {
  const receiver = new Receiver();
  let env: { minio: MinioServer; store: S3ObjectStore };
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    env = await minioWithTarget(`http://127.0.0.1:${port}/_events/notify`, true);
  });
  afterAll(async () => {
    env.store.destroy();
    await env.minio.service.stop();
    await receiver.close();
  });

  it('keeps the events written meanwhile and sends them, oldest first, once the target listens', async () => {
    await put(env.store, 'repos/acme/early/manifest.json');
    await put(env.store, 'repos/acme/later/manifest.json');
    await sleep(500);
    await receiver.listen(port);
    const received = await receiver.until(2);
    expect(received.map(keyOf)).toEqual([`${BUCKET}/repos/acme/early/manifest.json`, `${BUCKET}/repos/acme/later/manifest.json`]);
  });
});
