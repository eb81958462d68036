import type { Client } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngineTestbed, type EngineTestbed } from '../hrana/testing/engine-testbed.ts';
import { QUOTA_EXCEEDED, type QuotaRefusal } from './quota-refusal.ts';

// What a reached daily quota refuses, as the official client meets it on the real Hrana server and engine: the
// refusal the main process would compute is set here by hand, per tenant.
let testbed: EngineTestbed;
const refusals = new Map<string, QuotaRefusal>();

beforeAll(async () => {
  testbed = await startEngineTestbed({ prefix: 'cw-quota-', server: { quota: (tenant) => refusals.get(tenant) } });
});

afterAll(() => testbed.close());

const connect = (tenant: string): Client => testbed.connect(tenant);

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
