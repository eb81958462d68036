// The durability figures of `make bench-db`: commit latency with bucket shipping on, in cw-db's asynchronous and
// synchronous modes, against sqld's commit latency measured in the same run; and the time a cw-db on an empty disk
// takes to restore a 100 MB database from the bucket, against downloading the same objects.
import { createClient } from '@libsql/client';
import { randomBytes } from 'node:crypto';
import { Registry } from 'prom-client';
import type { MinioServer } from '../../e2e/harness/minio.ts';
import { listAll } from '../../src/object-store/list-all.ts';
import { S3ObjectStore } from '../../src/object-store/s3-object-store.ts';
import type { CwDb } from './cw-db.ts';

/** Latencies of `count` single-row inserts, one after the other (each its own transaction), in milliseconds. */
export async function commitLatencies(target: { url: string; authToken?: string }, count: number): Promise<number[]> {
  const client = createClient({ url: target.url, ...(target.authToken ? { authToken: target.authToken } : {}) });
  try {
    await client.execute('CREATE TABLE IF NOT EXISTS commits (id INTEGER PRIMARY KEY, v TEXT)');
    const latencies: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      await client.execute({ sql: 'INSERT INTO commits (v) VALUES (?)', args: [`commit ${i}`] });
      latencies.push(performance.now() - started);
    }
    return latencies;
  } finally {
    client.close();
  }
}

/** Fills a new asynchronous database `name` with about `megabytes` MB of rows (1 KiB of random text each). */
export async function fillDatabase(db: CwDb, name: string, megabytes: number): Promise<void> {
  const target = await db.createDatabase(name, 'async');
  const client = createClient({ url: target.url, authToken: target.authToken });
  try {
    await client.execute('CREATE TABLE big (id INTEGER PRIMARY KEY, body TEXT)');
    const perBatch = 1000;
    for (let written = 0; written < megabytes * 1024; written += perBatch) {
      const stmts = Array.from({ length: perBatch }, () => ({ sql: 'INSERT INTO big (body) VALUES (?)', args: [randomBytes(768).toString('base64')] }));
      await client.batch(stmts, 'write');
    }
  } finally {
    client.close();
  }
}

/** Milliseconds to download every object of the tenant's replica (the floor a restore cannot beat), and their bytes. */
export async function downloadReplica(minio: MinioServer, bucket: string, tenant: string): Promise<{ ms: number; bytes: number }> {
  const store = new S3ObjectStore({ config: minio.s3, bucket, registry: new Registry() });
  try {
    const started = performance.now();
    let bytes = 0;
    for await (const object of listAll(store, `replicas/${tenant}/`)) {
      const got = await store.getStream(object.key);
      if (!got) continue;
      for await (const chunk of got.body as AsyncIterable<Buffer>) bytes += chunk.length;
    }
    return { ms: performance.now() - started, bytes };
  } finally {
    store.destroy();
  }
}
