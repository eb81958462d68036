// review-164 F1: a cw-db replica cut off from its bucket for longer than its lease, alone on it (nobody else could
// have taken its databases): what it committed meanwhile (async commits acknowledged, sync ones answered
// DURABILITY_UNAVAILABLE, "kept locally and shipped later") must still be there once the bucket is back.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, connect as connectTcp, type Server, type Socket } from 'node:net';
import { createClient, type Client } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startCwDbCluster, type CwDbCluster } from '../../e2e/harness/cw-db-cluster.ts';

const LEASE_MS = 3000;

/** A TCP proxy to the bucket that can be cut (every connection dropped, new ones refused) and healed. */
async function bucketProxy(target: URL): Promise<{ url: string; cut(): void; heal(): void; close(): void }> {
  const sockets = new Set<Socket>();
  let cut = false;
  const server: Server = createServer((client) => {
    if (cut) return void client.destroy();
    const upstream = connectTcp(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    cut: () => {
      cut = true;
      for (const s of sockets) s.destroy();
    },
    heal: () => void (cut = false),
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

let proxy: Awaited<ReturnType<typeof bucketProxy>>;
let cluster: CwDbCluster;
const clients: Client[] = [];

beforeAll(async () => {
  const s3 = inject('s3');
  proxy = await bucketProxy(new URL(s3.endpoint ?? ''));
  cluster = await startCwDbCluster({
    stateDir: inject('stateDir'),
    s3: { ...s3, endpoint: proxy.url },
    name: 'cw-db-outage',
    replicas: 1,
    env: { CW_DB_LEASE_DURATION: `${LEASE_MS}ms`, CW_DB_SHARDS: '1' },
  });
}, 120_000);

afterAll(async () => {
  for (const c of clients) c.close();
  proxy?.heal();
  await cluster?.stop();
  proxy?.close();
});

/** Creates database `id` with a new token; a client of it. */
async function created(replica: { url: string; adminUrl: string }, id: string, durability: 'async' | 'sync'): Promise<Client> {
  const token = randomBytes(24).toString('hex');
  const answer = await fetch(`${replica.adminUrl}/v1/tenants/${id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${cluster.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tokens: [{ sha256: createHash('sha256').update(token).digest('hex') }], durability }),
  });
  expect(answer.status).toBe(201);
  const client = createClient({ url: `${replica.url}/v1/${id}`, authToken: token });
  clients.push(client);
  await client.execute('CREATE TABLE t (v TEXT)');
  await client.execute("INSERT INTO t VALUES ('before')");
  return client;
}

/** The rows of `t`, once the database answers again. */
async function rowsOnceBack(client: Client): Promise<unknown[]> {
  let rows: unknown[] = [];
  await expect
    .poll(
      async () => {
        try {
          rows = (await client.execute('SELECT v FROM t ORDER BY rowid')).rows.map((r) => r.v);
          return true;
        } catch {
          return false;
        }
      },
      { timeout: 60_000, interval: 500 },
    )
    .toBe(true);
  return rows;
}

describe('a replica cut off from its bucket past its lease', { timeout: 120_000 }, () => {
  it('keeps what it committed while cut off, async and sync, once the bucket is back', async () => {
    const [replica] = cluster.replicas;
    if (!replica) throw new Error('no replica');
    const asyncDb = await created(replica, 'outage-async', 'async');
    const syncDb = await created(replica, 'outage-sync', 'sync');
    await new Promise((r) => setTimeout(r, 2500)); // shipped (1 s flush interval)

    proxy.cut();
    // Acknowledged: an async commit waits for nothing in the bucket. A sync one is refused, kept locally.
    await asyncDb.execute("INSERT INTO t VALUES ('during')");
    const refused = syncDb.execute("INSERT INTO t VALUES ('during')");
    await expect(refused).rejects.toThrow(/DURABILITY_UNAVAILABLE|copied to the object store/);
    await new Promise((r) => setTimeout(r, 3 * LEASE_MS));
    proxy.heal();

    expect(await rowsOnceBack(asyncDb)).toEqual(['before', 'during']);
    expect(await rowsOnceBack(syncDb)).toEqual(['before', 'during']);
  });
});
