import { createClient, LibsqlError } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamRegistry } from './stream-registry.ts';
import { startEngineTestbed, type EngineTestbed } from './testing/engine-testbed.ts';

// A transaction holds its database's lock between requests. A read-only token's `transaction('read')` held it for up
// to the transaction timeout (5 min), keeping the owner's writes out (review-184 M1): a read-only caller's transaction
// now begins and ends within one request, and one left open is rolled back as the request ends.
let testbed: EngineTestbed;

beforeAll(async () => {
  testbed = await startEngineTestbed({
    prefix: 'cw-db-read-only-tx-',
    server: {
      // The lock's wait as in production (5 s): unfixed, the owner's write waited that long and failed SQLITE_BUSY.
      streams: new StreamRegistry({ lockTimeoutMs: 5_000 }),
      authorize: (request, pathTenant) => ({ tenant: pathTenant ?? 'default', readOnly: request.headers.authorization === 'Bearer reader' }),
      websocket: { authorize: async (token, pathTenant) => ({ tenant: pathTenant ?? 'default', readOnly: token === 'reader' }) },
    },
  });
  await testbed.connect('shared', 'owner').batch(['CREATE TABLE t (v)', 'INSERT INTO t VALUES (1)'], 'write');
});

afterAll(async () => {
  await testbed.close();
});

describe('a read-only token’s transactions', () => {
  it('cannot keep the owner’s writes out between requests: the transaction is rolled back as its request ends', async () => {
    const reader = testbed.connect('shared', 'reader');
    const owner = testbed.connect('shared', 'owner');
    const transaction = await reader.transaction('read');
    // The client sends its BEGIN with the first statement: that request ran, and left the transaction open.
    expect((await transaction.execute('SELECT count(*) FROM t')).rows[0]?.[0]).toBe(1);
    const started = performance.now();
    await owner.execute('INSERT INTO t VALUES (2)');
    const waited = performance.now() - started;
    process.stdout.write(`read-only-transactions: the owner's write waited ${waited.toFixed(0)} ms\n`);
    expect(waited).toBeLessThan(2_000);
    // The reader's next statement says why its transaction is gone.
    const outcome = await transaction.execute('SELECT count(*) FROM t').catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(LibsqlError);
    expect(outcome).toMatchObject({ code: 'TRANSACTION_ROLLED_BACK', message: expect.stringContaining("read-only token's transaction cannot stay open between requests") });
    transaction.close();
  });

  it('over WebSocket too', async () => {
    const reader = createClient({ url: `ws://127.0.0.1:${testbed.server.port}/v1/shared`, authToken: 'reader' });
    try {
      const transaction = await reader.transaction('read');
      await transaction.execute('SELECT count(*) FROM t');
      const started = performance.now();
      await testbed.connect('shared', 'owner').execute('UPDATE t SET v = v');
      expect(performance.now() - started).toBeLessThan(2_000);
      await expect(transaction.execute('SELECT count(*) FROM t')).rejects.toMatchObject({ code: 'TRANSACTION_ROLLED_BACK' });
      transaction.close();
    } finally {
      reader.close();
    }
  });

  it('run within one request: a read batch, and BEGIN … COMMIT in one pipeline', async () => {
    const reader = testbed.connect('shared', 'reader');
    const [first, second] = await reader.batch(['SELECT count(*) FROM t', 'SELECT max(v) FROM t'], 'read');
    expect([first?.rows[0]?.[0], second?.rows[0]?.[0]]).toEqual([2, 2]);
    const response = await fetch(`http://127.0.0.1:${testbed.server.port}/v1/shared/v2/pipeline`, {
      method: 'POST',
      headers: { authorization: 'Bearer reader' },
      body: JSON.stringify({ requests: ['BEGIN', 'SELECT count(*) FROM t', 'COMMIT'].map((sql) => ({ type: 'execute', stmt: { sql } })) }),
    });
    const { results } = (await response.json()) as { results: { type: string }[] };
    expect(results.map((r) => r.type)).toEqual(['ok', 'ok', 'ok']);
    // Still read-only: a write in its transaction fails, and the owner's table is as it was.
    await expect(reader.batch(['INSERT INTO t VALUES (3)'], 'read')).rejects.toBeInstanceOf(LibsqlError);
    expect((await testbed.connect('shared', 'owner').execute('SELECT count(*) FROM t')).rows[0]?.[0]).toBe(2);
  });
});
