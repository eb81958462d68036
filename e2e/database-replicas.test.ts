// cw-db as three replicas on one bucket: databases spread over them with their owner shown, one database URL
// that works through any replica (HTTP and WebSocket), and a failover: the owner of a synchronous database
// SIGKILLed (its disk lost) in the middle of a burst of inserts from the official @libsql/client answers again
// through the same URL once its lease has passed and another replica restored it, with every acknowledged insert.
import { createHash, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createClient, type Client } from '@libsql/client';
import { readFileSync } from 'node:fs';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { listAll } from '../src/object-store/list-all.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { startDatabaseCluster, type DatabaseCluster, type DatabaseReplica } from './harness/database-cluster.ts';
import { startDatabaseServer } from './harness/database-server.ts';

const LEASE_MS = 5000;
let cluster: DatabaseCluster;
const clients: Client[] = [];

beforeAll(async () => {
  cluster = await startDatabaseCluster({ name: 'cw-db-rep', replicas: 3, env: { CW_DB_LEASE_DURATION: `${LEASE_MS}ms`, CW_DB_SHARDS: '1' } });
}, 120_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await cluster?.stop();
});

function replica(i: number): DatabaseReplica {
  const found = cluster.replicas[i];
  if (!found) throw new Error(`no replica ${i}`);
  return found;
}

async function admin(via: { adminUrl: string }, method: string, path: string, body?: unknown, adminToken = cluster.adminToken): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${via.adminUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** Creates a database through `via`'s admin API; answers its token. */
async function createDatabase(tenant: string, durability: 'sync' | 'async', via: DatabaseReplica): Promise<string> {
  const token = randomBytes(24).toString('hex');
  const created = await admin(via, 'PUT', `/v1/tenants/${tenant}`, { tokens: [{ sha256: createHash('sha256').update(token).digest('hex') }], durability });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return token;
}

/** The replica that owns the database, as any replica's admin API describes it. */
async function ownerOf(tenant: string, via: DatabaseReplica): Promise<string> {
  let owner: unknown;
  await expect
    .poll(
      async () => {
        const described = await admin(via, 'GET', `/v1/tenants/${tenant}`);
        owner = described.body.replica;
        return described.status;
      },
      { timeout: 30_000, interval: 200 },
    )
    .toBe(200);
  return String(owner);
}

function connect(url: string, tenant: string, token: string): Client {
  const client = createClient({ url: `${url}/v1/${tenant}`, authToken: token });
  clients.push(client);
  return client;
}

describe('cw-db on three replicas', { timeout: 120_000 }, () => {
  it("spreads databases over the replicas, names each one's owner, and serves each through any replica over HTTP and WebSocket", async () => {
    const tenants = Array.from({ length: 6 }, (_, i) => `spread-${i}`);
    const tokens = new Map<string, string>();
    for (const [i, tenant] of tenants.entries()) tokens.set(tenant, await createDatabase(tenant, 'async', replica(i % 3)));
    const owners = new Map<string, string>();
    for (const tenant of tenants) owners.set(tenant, await ownerOf(tenant, replica(0)));
    process.stdout.write(`database-replicas: placement ${JSON.stringify(Object.fromEntries(owners))}\n`);
    expect(new Set(owners.values()).size, 'databases on more than one replica').toBeGreaterThan(1);
    for (const owner of owners.values()) expect(cluster.replicas.map((r) => r.name)).toContain(owner);

    const tenant = tenants[0] ?? '';
    const token = tokens.get(tenant) ?? '';
    // Which database a token opens, by its hash: answered by the replica serving it, asked with the admin token.
    const holders = `/v1/token-holders/${createHash('sha256').update(token).digest('hex')}`;
    for (const via of cluster.replicas) expect((await admin(via, 'GET', holders)).status).toBe(via.name === owners.get(tenant) ? 200 : 404);
    expect((await admin(cluster.replicas.find((r) => r.name === owners.get(tenant)) ?? replica(0), 'GET', holders)).body).toEqual({ tenant });
    expect((await admin(replica(0), 'GET', holders, undefined, 'not-the-admin-token')).status).toBe(401);
    const [first, second, third] = [replica(0), replica(1), replica(2)];
    await connect(first.url, tenant, token).execute('CREATE TABLE t (v TEXT)');
    await connect(second.url, tenant, token).execute("INSERT INTO t VALUES ('over http through replica 1')");
    const ws = connect(third.url.replace('http://', 'ws://'), tenant, token);
    await ws.execute("INSERT INTO t VALUES ('over a websocket through replica 2')");
    // A transaction over the WebSocket: its statements go to the owner on one spliced connection.
    const tx = await ws.transaction('write');
    await tx.execute("INSERT INTO t VALUES ('in a transaction')");
    await tx.commit();
    // A URL naming no database (`ws://host`): the hello's token names it, and a replica that does not own it relays
    // the connection to the owner (review-164 F7).
    const bareVia = cluster.replicas.find((r) => r.name !== owners.get(tenant)) ?? third;
    const bare = createClient({ url: bareVia.url.replace('http://', 'ws://'), authToken: token });
    clients.push(bare);
    await bare.execute("INSERT INTO t VALUES ('over a websocket naming no database')");
    const expected = ['over http through replica 1', 'over a websocket through replica 2', 'in a transaction', 'over a websocket naming no database'];
    for (const via of cluster.replicas) {
      const rows = (await connect(via.url, tenant, token).execute('SELECT v FROM t ORDER BY rowid')).rows.map((r) => r.v);
      expect(rows, via.name).toEqual(expected);
    }

    // A copy as of now, asked of a replica that does not own the source: made by the source's owner, which ships
    // the source's last (async) commits first.
    const notOwner = cluster.replicas.find((r) => r.name !== owners.get(tenant)) ?? first;
    const copyToken = randomBytes(24).toString('hex');
    const copied = await admin(notOwner, 'PUT', '/v1/tenants/spread-copy', {
      tokens: [{ sha256: createHash('sha256').update(copyToken).digest('hex') }],
      durability: 'async',
      restore_from: { tenant, at: new Date().toISOString() },
    });
    expect(copied.status, JSON.stringify(copied.body)).toBe(201);
    process.stdout.write(`database-replicas: ${tenant} (on ${owners.get(tenant)}) copied as of now on ${String(copied.body.replica)}\n`);
    expect((await connect(notOwner.url, 'spread-copy', copyToken).execute('SELECT v FROM t ORDER BY rowid')).rows.map((r) => r.v)).toEqual(expected);
  });

  it('answers a flood of made-up database ids 404 through any replica, and still finds a database created a moment before', async () => {
    // Created through replica 0: the other replicas' last round may not have listed it yet.
    const token = await createDatabase('flooded-fresh', 'async', replica(0));
    const via = replica(1);
    const pipeline = (tenant: string) =>
      fetch(`${via.url}/v1/${tenant}/v2/pipeline`, {
        method: 'POST',
        headers: { authorization: `Bearer ${randomBytes(24).toString('hex')}`, 'content-type': 'application/json' },
        body: JSON.stringify({ requests: [{ type: 'execute', stmt: { sql: 'SELECT 1' } }, { type: 'close' }] }),
      });
    const made = Array.from({ length: 200 }, (_, i) => pipeline(`made-up-${i}-${randomBytes(4).toString('hex')}`));
    const real = connect(via.url, 'flooded-fresh', token).execute('SELECT 1 AS one');
    const answers = await Promise.all(made);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 404));
    expect(await answers[0]?.text()).toContain('TENANT_NOT_FOUND');
    expect((await real).rows[0]?.one).toBe(1);
  });

  it('answers again through the same URL after its owner is SIGKILLed under a burst of synchronous inserts, with every acknowledged insert', async () => {
    const tenant = 'failover-sync';
    const token = await createDatabase(tenant, 'sync', replica(0));
    const ownerName = await ownerOf(tenant, replica(0));
    const owner = cluster.replicas.find((r) => r.name === ownerName);
    const front = cluster.replicas.find((r) => r.name !== ownerName);
    if (!owner || !front) throw new Error(`owner ${ownerName} not among the replicas`);
    await connect(front.url, tenant, token).execute('CREATE TABLE burst (id INTEGER PRIMARY KEY, writer INTEGER)');

    const writers = [0, 1, 2, 3].map(() => connect(front.url, tenant, token));
    const TOTAL = 300;
    const KILL_AFTER = 60;
    const acknowledged: number[] = [];
    let killing: Promise<void> | undefined;
    let killedAt = 0;
    const outcomes = await Promise.allSettled(
      Array.from({ length: TOTAL }, async (_, id) => {
        const writer = id % writers.length;
        await writers[writer]?.execute({ sql: 'INSERT INTO burst (id, writer) VALUES (?, ?)', args: [id, writer] });
        acknowledged.push(id);
        if (acknowledged.length === KILL_AFTER) {
          killedAt = performance.now();
          killing = owner.halt({ signal: 'SIGKILL', wipeDisk: true });
        }
      }),
    );
    await killing;
    expect(killing, 'the kill happened').toBeDefined();
    const refused = outcomes.filter((o) => o.status === 'rejected').length;
    expect(refused, 'some inserts were cut off by the kill').toBeGreaterThan(0);

    // Through the same URL, the database answers again once another replica took its lease over and restored it.
    const reader = connect(front.url, tenant, token);
    let present: number[] = [];
    await expect
      .poll(
        async () => {
          try {
            present = (await reader.execute('SELECT id FROM burst ORDER BY id')).rows.map((r) => Number(r.id));
            return true;
          } catch {
            return false;
          }
        },
        { timeout: 60_000, interval: 100 },
      )
      .toBe(true);
    const failoverMs = performance.now() - killedAt;
    const newOwner = await ownerOf(tenant, front);
    const lost = acknowledged.filter((id) => !present.includes(id));
    process.stdout.write(
      `database-replicas: failover of a sync database in ${failoverMs.toFixed(0)} ms (lease ${LEASE_MS} ms) from ${ownerName} to ${newOwner}: ${acknowledged.length} of ${TOTAL} inserts acknowledged, ${refused} refused, ${lost.length} lost\n`,
    );
    expect(lost, 'acknowledged inserts lost').toEqual([]);
    expect(newOwner).not.toBe(ownerName);
    // Within the lease plus a restore and a round of the survivors (a lease's third), with room for a loaded machine.
    expect(failoverMs).toBeLessThan(LEASE_MS * 2 + 10_000);
    // Writes go on at the new owner.
    await writers[0]?.execute({ sql: 'INSERT INTO burst (id, writer) VALUES (?, ?)', args: [TOTAL, 0] });
    await owner.start();
  });
});

describe("three cw-db replicas started at once on a single cw-db's bucket", { timeout: 180_000 }, () => {
  it('race for every database: each is taken by exactly one, under epoch 1, with all its rows', async () => {
    const single = await startDatabaseServer({ name: 'cw-db-before' });
    const tenants = ['race-a', 'race-b', 'race-c', 'race-d'];
    const tokens = new Map<string, string>();
    try {
      for (const tenant of tenants) {
        const token = randomBytes(24).toString('hex');
        const created = await admin(single, 'PUT', `/v1/tenants/${tenant}`, { tokens: [{ sha256: createHash('sha256').update(token).digest('hex') }], durability: 'async' }, single.adminToken);
        expect(created.status).toBe(201);
        tokens.set(tenant, token);
        const client = connect(single.url, tenant, token);
        await client.execute('CREATE TABLE t (v TEXT)');
        await client.execute({ sql: 'INSERT INTO t VALUES (?)', args: [`row of ${tenant}`] });
      }
    } finally {
      await single.stop();
    }

    // Three replicas, started at the same moment, each creating the (absent) leases by compare-and-swap.
    const racing = await startDatabaseCluster({ name: 'cw-db-racing', replicas: 3, bucket: single.bucket, env: { CW_DB_LEASE_DURATION: `${LEASE_MS}ms`, CW_DB_SHARDS: '1' } });
    const store = new S3ObjectStore({ config: inject('s3'), bucket: single.bucket, registry: new Registry() });
    try {
      for (const tenant of tenants) {
        const token = tokens.get(tenant) ?? '';
        for (const via of racing.replicas) {
          await expect
            .poll(
              async () => {
                try {
                  return (await connect(via.url, tenant, token).execute('SELECT v FROM t')).rows.map((r) => r.v);
                } catch (err) {
                  return String(err);
                }
              },
              { timeout: 30_000, interval: 100 },
            )
            .toEqual([`row of ${tenant}`]);
        }
        // Whatever was written under a lease was written under an epoch some replica took.
        const keys: string[] = [];
        for await (const { key } of listAll(store, `replicas/${tenant}/`)) keys.push(key);
        const written = new Set(
          keys
            .map((k) => /\/generations\/e(\d{10})-/.exec(k)?.[1])
            .filter((e) => e !== undefined)
            .map(Number),
        );
        expect(written.size, tenant).toBeGreaterThan(0);
        for (const epoch of written) expect(takenEpochs(racing).get(tenant), tenant).toContain(epoch);
      }
      // Each epoch of each database was taken by exactly one replica: of the three racing for it, one won.
      const taken = takenEpochs(racing);
      process.stdout.write(`database-replicas: takeovers after the racing start ${JSON.stringify(Object.fromEntries(taken))}\n`);
      for (const tenant of tenants) {
        const epochs = taken.get(tenant) ?? [];
        expect(epochs[0], tenant).toBe(1);
        expect(new Set(epochs).size, `${tenant}: an epoch taken twice`).toBe(epochs.length);
      }
    } finally {
      store.destroy();
      await racing.stop();
    }
  });
});

/** Every database's epochs as the replicas' logs say they took them (each (database, epoch) once per taker). */
function takenEpochs(of: DatabaseCluster): Map<string, number[]> {
  const taken = new Map<string, number[]>();
  for (const replica of of.replicas) {
    for (const line of readFileSync(replica.logPath, 'utf8').split('\n')) {
      if (!line.includes('"took a database over"')) continue;
      const { tenant, epoch } = JSON.parse(line) as { tenant: string; epoch: number };
      taken.set(
        tenant,
        [...(taken.get(tenant) ?? []), epoch].sort((a, b) => a - b),
      );
    }
  }
  return taken;
}
