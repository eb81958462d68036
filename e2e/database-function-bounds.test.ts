// One SQLite function call runs to its end whatever the statement's deadline: instr, replace, trim, LIKE, GLOB and
// REGEXP compare their arguments in O(n·m), and a ~100-byte statement building multi-megabyte strings held its
// shard until the shard's watchdog killed it, failing every other database's requests on it (review-184 H1). Against
// a real cw-db (two shard processes) with the official client: each such statement now fails at once, and a
// neighbour on the same shard keeps answering. Unfixed, each held the shard ~6 s (the watchdog's time here), then
// failed with DATABASE_RESTARTING, the neighbour's requests with it.
import { createClient, type Client } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDatabaseToken } from '../src/platform/databases/database-token.ts';
import { shardIndex } from '../database-server/shards/shard-index.ts';
import { tokenSha256 } from '../database-server/token-index.ts';
import { adminCall, startDatabaseServer, type DatabaseServer } from './harness/database-server.ts';

const SHARDS = 2;
let db: DatabaseServer;
const clients: Client[] = [];
const tokens = new Map<string, string>();

/** A tenant id on `shard` (databases are hashed to shards by id). */
function tenantOn(shard: number, prefix: string): string {
  for (let i = 0; ; i++) if (shardIndex(`${prefix}-${i}`, SHARDS) === shard) return `${prefix}-${i}`;
}
const attacker = tenantOn(0, 'attacker');
const neighbour = tenantOn(0, 'neighbour');

async function provision(tenant: string, project: string): Promise<void> {
  const token = generateDatabaseToken();
  tokens.set(tenant, token);
  const { status, json } = await adminCall(db, 'PUT', `/v1/tenants/${tenant}`, { tokens: [{ sha256: tokenSha256(token) }], durability: 'async', project });
  expect([200, 201], JSON.stringify(json)).toContain(status);
}

function connect(tenant: string): Client {
  const client = createClient({ url: `${db.url}/v1/${tenant}`, authToken: tokens.get(tenant) });
  clients.push(client);
  return client;
}

beforeAll(async () => {
  // A statement limit of 1 s (2 s at most): the shard's watchdog would kill a stuck shard after 6 s.
  db = await startDatabaseServer({ name: 'cw-db-function-bounds', env: { CW_DB_SHARDS: String(SHARDS), CW_DB_STATEMENT_TIMEOUT: '1s', CW_DB_MAX_STATEMENT_TIMEOUT: '2s' } });
  await provision(attacker, 'attacker');
  await provision(neighbour, 'neighbour');
  await connect(neighbour).execute('CREATE TABLE t (v)');
});

afterAll(async () => {
  for (const client of clients) client.close();
  await db?.stop();
});

const A = (n: number) => `printf('%.*c', ${n}, 'a')`;

describe('function calls a statement deadline cannot interrupt', () => {
  it('refuses each at once, and the neighbour on the same shard keeps answering', async () => {
    const statements: [string, string, RegExp][] = [
      ['instr', `SELECT instr(${A(4_000_000)}, ${A(2_000_000)} || 'b')`, /^0$/],
      ['replace', `SELECT length(replace(${A(4_000_000)}, ${A(2_000_000)} || 'b', 'x'))`, /^4000000$/],
      ['like', `SELECT ${A(4_000_000)} LIKE '%' || ${A(4000)} || 'b'`, /too long together/],
      ['glob', `SELECT ${A(4_000_000)} GLOB '*' || ${A(4000)} || 'b'`, /too long together/],
      ['like, a pattern past the bound', `SELECT ${A(4_000_000)} LIKE '%' || ${A(49_000)} || 'b'`, /too long together|pattern too complex/],
      ['trim', `SELECT length(trim(${A(4_000_000)}, ${A(1)} || printf('%.*c', 100000, 'b')))`, /too long together/],
      ['regexp', `SELECT ${A(3_000_000)} REGEXP '${'a?'.repeat(500)}${'a'.repeat(500)}b'`, /not authorized/],
      ['a value past the longest', 'SELECT length(zeroblob(9000000))', /too big/],
    ];
    for (const [name, sql, outcome] of statements) {
      let done = false;
      const started = performance.now();
      const attack = connect(attacker)
        .execute(sql)
        .then(
          (result) => JSON.stringify(result.rows[0]?.[0]),
          (error: Error) => error.message,
        )
        .finally(() => (done = true));
      const waits: number[] = [];
      while (!done) {
        const asked = performance.now();
        await connect(neighbour).execute('SELECT count(*) FROM t');
        waits.push(performance.now() - asked);
      }
      const answer = await attack;
      const took = performance.now() - started;
      process.stdout.write(`database-function-bounds: ${name}: ${took.toFixed(0)} ms, "${answer.slice(0, 100)}"; neighbour's longest wait ${Math.max(0, ...waits).toFixed(0)} ms\n`);
      expect(answer, name).toMatch(outcome);
      // instr and replace answer (linear in both lengths); the rest are refused before they run.
      expect(took, name).toBeLessThan(1500);
      expect(Math.max(0, ...waits), name).toBeLessThan(1500);
    }
  });

  it('answers as SQLite does for ordinary values', async () => {
    const client = connect(attacker);
    const row = (await client.execute("SELECT instr('héllo wörld', 'wö'), replace('a-b-c', '-', '+'), trim('xxhixx', 'x'), 'Hello' LIKE 'h%', 'abc' GLOB 'a*', 'a_c' LIKE 'a!_c' ESCAPE '!'")).rows[0];
    expect(Object.values(row ?? {})).toEqual([7, 'a+b+c', 'hi', 1, 1, 1]);
  });
});
