// review-164 F12: a replica killed keeps every database file on its volume; with leases none is opened again (each
// is restored from the bucket as its lease is taken), so those of databases deleted or placed elsewhere meanwhile
// stayed on the disk for good. A start removes them; the databases it takes back are restored as before.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, type Client } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startCwDbCluster, type CwDbCluster } from '../../e2e/harness/cw-db-cluster.ts';

let cluster: CwDbCluster;
const clients: Client[] = [];

beforeAll(async () => {
  cluster = await startCwDbCluster({
    stateDir: inject('stateDir'),
    s3: inject('s3'),
    name: 'cw-db-stale',
    replicas: 1,
    env: { CW_DB_LEASE_DURATION: '3000ms', CW_DB_SHARDS: '1' },
  });
}, 120_000);

afterAll(async () => {
  for (const c of clients) c.close();
  await cluster?.stop();
});

describe('a replica restarted after a kill', { timeout: 120_000 }, () => {
  it('removes the files of databases it does not own, and restores those it takes back', async () => {
    const [replica] = cluster.replicas;
    if (!replica) throw new Error('no replica');
    const token = randomBytes(24).toString('hex');
    const answer = await fetch(`${replica.adminUrl}/v1/tenants/kept`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${cluster.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tokens: [{ sha256: createHash('sha256').update(token).digest('hex') }], durability: 'sync' }),
    });
    expect(answer.status).toBe(201);
    const before = createClient({ url: `${replica.url}/v1/kept`, authToken: token });
    clients.push(before);
    await before.execute('CREATE TABLE t (v TEXT)');
    await before.execute("INSERT INTO t VALUES ('before')");

    await replica.halt({ signal: 'SIGKILL' });
    // A database deleted (or placed on another replica) while this one was down: its files are still here.
    const stale = ['gone.db', 'gone.db-wal', 'gone.db-shm'].map((name) => join(replica.dataDir, name));
    for (const file of stale) writeFileSync(file, 'stale');
    await replica.start();

    expect(stale.filter((file) => existsSync(file))).toEqual([]);
    const after = createClient({ url: `${replica.url}/v1/kept`, authToken: token });
    clients.push(after);
    await expect.poll(async () => (await after.execute('SELECT v FROM t').catch(() => ({ rows: [] }))).rows.map((r) => r.v), { timeout: 30_000, interval: 500 }).toEqual(['before']);
  });
});
