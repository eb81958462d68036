import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient, type Client } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHranaServer, type HranaServer } from '../hrana/http-server.ts';
import { LocalEngine } from '../shards/local-engine.ts';
import { QUOTA_EXCEEDED, type QuotaRefusal } from './quota-refusal.ts';

// What a reached daily quota refuses, as the official client meets it on the real Hrana server and engine: the
// refusal the main process would compute is set here by hand, per tenant.
let directory: string;
let server: HranaServer;
const refusals = new Map<string, QuotaRefusal>();
const clients: Client[] = [];

beforeAll(async () => {
  directory = mkdtempSync(path.join(tmpdir(), 'cw-quota-'));
  const engine = new LocalEngine({ directory });
  server = await startHranaServer({ port: 0, engine, authorize: (_request, pathTenant) => ({ tenant: pathTenant ?? 'default' }), quota: (tenant) => refusals.get(tenant) });
});

afterAll(async () => {
  for (const client of clients) client.close();
  await server.close();
  rmSync(directory, { recursive: true, force: true });
});

function connect(tenant: string): Client {
  const client = createClient({ url: `http://127.0.0.1:${server.port}/v1/${tenant}/`, authToken: 'token' });
  clients.push(client);
  return client;
}

describe('a reached daily quota', () => {
  it('of rows written refuses every kind of write with its message, while reads run', async () => {
    const client = connect('writes');
    await client.batch(['CREATE TABLE t (n)', 'INSERT INTO t VALUES (1)'], 'write');
    refusals.set('writes', { blocks: 'writes', code: QUOTA_EXCEEDED, message: 'written quota reached' });
    for (const sql of ['INSERT INTO t VALUES (2)', 'UPDATE t SET n = 3', 'CREATE TABLE u (n)', 'DELETE FROM t']) {
      await expect(client.execute(sql), sql).rejects.toMatchObject({ code: QUOTA_EXCEEDED, message: expect.stringContaining('written quota reached') });
    }
    await expect(client.executeMultiple('INSERT INTO t VALUES (4);')).rejects.toMatchObject({ code: QUOTA_EXCEEDED });
    expect((await client.execute('SELECT n FROM t')).rows.map((r) => r.n)).toEqual([1]);
    refusals.delete('writes');
    await client.execute('INSERT INTO t VALUES (5)');
  });

  it('of rows read refuses every statement but one that ends the transaction a client opened before', async () => {
    const client = connect('reads');
    await client.execute('CREATE TABLE t (n)');
    const tx = await client.transaction('write');
    await tx.execute('INSERT INTO t VALUES (1)');
    refusals.set('reads', { blocks: 'all', code: QUOTA_EXCEEDED, message: 'read quota reached' });
    await expect(tx.execute('SELECT n FROM t')).rejects.toMatchObject({ code: QUOTA_EXCEEDED, message: expect.stringContaining('read quota reached') });
    await tx.rollback();
    await expect(client.execute('SELECT 1')).rejects.toMatchObject({ code: QUOTA_EXCEEDED });
    // Another database is not affected.
    expect((await connect('other').execute('SELECT 1 AS one')).rows[0]?.one).toBe(1);
    refusals.delete('reads');
    expect((await client.execute('SELECT count(*) AS c FROM t')).rows[0]?.c).toBe(0);
  });
});
