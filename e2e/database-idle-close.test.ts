// Databases no request used for CW_DB_IDLE_CLOSE_TIMEOUT are closed and open again on their next request, so a
// replica's memory follows the databases in use: against the real cw-db (one 16 MiB shard), the official client,
// and a start from the bucket alone.
import { createClient, type Client } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDatabaseToken } from '../src/platform/databases/database-token.ts';
import { tokenSha256 } from '../database-server/token-index.ts';
import { eventually } from './harness/runtime-stack.ts';
import { adminCall, startDatabaseServer, type DatabaseServer } from './harness/database-server.ts';

const SHARD_MEMORY_MIB = 16;
let db: DatabaseServer;
const clients: Client[] = [];
const tokens = new Map<string, string>();

const admin = (method: string, path: string, body?: unknown) => adminCall(db, method, path, body);

async function provision(tenant: string, durability: 'async' | 'sync' = 'async'): Promise<void> {
  const token = generateDatabaseToken();
  tokens.set(tenant, token);
  const { status, json } = await admin('PUT', `/v1/tenants/${tenant}`, { tokens: [{ sha256: tokenSha256(token) }], durability });
  expect(status, JSON.stringify(json)).toBe(201);
}

function connect(tenant: string): Client {
  const client = createClient({ url: `${db.url}/v1/${tenant}`, authToken: tokens.get(tenant) });
  clients.push(client);
  return client;
}

const openDatabases = async () => (await admin('GET', '/v1/shards')).json.open_databases as number;
const isOpen = async (tenant: string) => (await admin('GET', `/v1/tenants/${tenant}`)).json.open as boolean;

beforeAll(async () => {
  db = await startDatabaseServer({ name: 'idle', env: { CW_DB_SHARDS: '1', CW_DB_SHARD_MEMORY_MIB: String(SHARD_MEMORY_MIB), CW_DB_IDLE_CLOSE_TIMEOUT: '1s' } });
}, 60_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await db?.stop();
});

describe('cw-db closing idle databases', () => {
  it('closes a database nobody uses, answers its next request with all it had, and its bucket copy goes on', async () => {
    await provision('kept', 'sync');
    const client = connect('kept');
    await client.batch(['CREATE TABLE t (name TEXT)', "INSERT INTO t VALUES ('one')"], 'write');
    await eventually(
      'kept closed',
      () => isOpen('kept'),
      (open) => !open,
      10_000,
    );
    expect((await client.execute('SELECT name FROM t')).rows.map((r) => r.name)).toEqual(['one']);
    await client.execute("INSERT INTO t VALUES ('two')");
    expect(await isOpen('kept')).toBe(true);
    // Closed again, then the disk lost: the bucket alone has both commits (acknowledged in sync mode).
    await eventually(
      'kept closed again',
      () => isOpen('kept'),
      (open) => !open,
      10_000,
    );
    await db.halt({ signal: 'SIGKILL', wipeDisk: true });
    await db.start();
    expect((await connect('kept').execute('SELECT name FROM t ORDER BY rowid')).rows.map((r) => r.name)).toEqual(['one', 'two']);
  });

  it("serves more databases than its shard's memory could hold open at once", async () => {
    // An open database takes about 165 KiB of SQLite's memory: about 100 fill the 16 MiB shard, and 120 are made
    // and used here, 40 at a time, each batch once the ones before it were closed.
    const tenants = Array.from({ length: 120 }, (_, i) => `many-${i}`);
    for (let i = 0; i < tenants.length; i += 40) {
      for (const tenant of tenants.slice(i, i + 40)) await provision(tenant);
      await eventually('the batch closed', openDatabases, (n) => n <= 1, 10_000);
    }
    for (let i = 0; i < tenants.length; i += 40) {
      const batch = tenants.slice(i, i + 40);
      const answers = await Promise.all(batch.map((tenant) => connect(tenant).execute(`SELECT '${tenant}' AS name`)));
      expect(answers.map((a) => a.rows[0]?.name)).toEqual(batch);
      await eventually('the batch closed', openDatabases, (n) => n <= 1, 10_000);
    }
  });
});

describe('cw-db bounding the open databases of a shard', () => {
  let bounded: DatabaseServer;
  const call = (method: string, path: string, body?: unknown) => adminCall(bounded, method, path, body);

  beforeAll(async () => {
    // Idle databases are never closed here (1 h): only the bound (30 open in the shard) closes them.
    bounded = await startDatabaseServer({
      name: 'bounded',
      env: { CW_DB_SHARDS: '1', CW_DB_SHARD_MEMORY_MIB: String(SHARD_MEMORY_MIB), CW_DB_IDLE_CLOSE_TIMEOUT: '1h', CW_DB_MAX_OPEN_PER_SHARD: '30' },
    });
  }, 60_000);

  afterAll(async () => {
    await bounded?.stop();
  });

  it("keeps one tenant's many opened databases from holding the shard's memory: another's closed one opens", async () => {
    const token = (tenant: string) => tokens.get(`bounded/${tenant}`) ?? '';
    const make = async (tenant: string) => {
      tokens.set(`bounded/${tenant}`, generateDatabaseToken());
      expect((await call('PUT', `/v1/tenants/${tenant}`, { tokens: [{ sha256: tokenSha256(token(tenant)) }], durability: 'async' })).status).toBe(201);
    };
    const use = (tenant: string) => {
      const client = createClient({ url: `${bounded.url}/v1/${tenant}`, authToken: token(tenant) });
      clients.push(client);
      return client.execute(`SELECT '${tenant}' AS name`);
    };
    await make('victim');
    await use('victim');
    // 120 databases opened and left open, 30 at a time: past ~100 open, the 16 MiB shard would refuse any open.
    for (let i = 0; i < 120; i += 30) {
      const batch = Array.from({ length: 30 }, (_, j) => `hoard-${i + j}`);
      for (const tenant of batch) await make(tenant);
      await Promise.all(batch.map(use));
      await eventually(
        'the shard back under its bound',
        async () => (await call('GET', '/v1/shards')).json.open_databases as number,
        (n) => n <= 30,
        15_000,
      );
    }
    expect((await call('GET', '/v1/tenants/victim')).json.open).toBe(false);
    expect((await use('victim')).rows[0]?.name).toBe('victim');
  });
});
