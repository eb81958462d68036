// A statement that writes and returns rows runs under a savepoint (`libsql-engine.ts`): undone when its answer is
// refused, and its commit's failure is its own, never an answer for rows not stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngineTestbed, type EngineTestbed } from '../hrana/testing/engine-testbed.ts';

let testbed: EngineTestbed;
beforeAll(async () => {
  testbed = await startEngineTestbed({
    prefix: 'cw-returning-',
    engine: { defaultLimits: { statementTimeoutMs: 2000, maxSizeBytes: 64 * 1024 * 1024 }, memoryLimitBytes: 64 * 1024 * 1024 },
    server: { authorize: (_request, pathTenant) => ({ tenant: pathTenant ?? 'default', readOnly: false }) },
  });
});
afterAll(() => testbed.close());

/** A result's rows as arrays of values. */
const values = (result: { rows: ArrayLike<unknown>[] }) => result.rows.map((row) => Array.from(row));

describe('a statement that writes and returns rows', () => {
  it('fails as its commit does, storing nothing, when a deferred foreign key breaks (found in review)', async () => {
    const client = testbed.connect('fk');
    await client.batch(['CREATE TABLE p (id INTEGER PRIMARY KEY)', 'CREATE TABLE ch (pid INTEGER REFERENCES p(id) DEFERRABLE INITIALLY DEFERRED)'], 'write');
    expect(values(await client.execute('PRAGMA foreign_keys'))).toEqual([[1]]);
    await expect(client.execute('INSERT INTO ch VALUES (2) RETURNING pid')).rejects.toThrow(/FOREIGN KEY constraint failed/);
    expect(values(await testbed.connect('fk').execute('SELECT count(*) FROM ch'))).toEqual([[0]]);
    // The database goes on: the next writes commit.
    await client.execute('INSERT INTO p VALUES (2)');
    expect(values(await client.execute('INSERT INTO ch VALUES (2) RETURNING pid'))).toEqual([[2]]);
  });

  it('leaves a client’s own savepoint of the same name to the client', async () => {
    const client = testbed.connect('sp');
    await client.execute('CREATE TABLE t (n INTEGER)');
    const tx = await client.transaction('write');
    await tx.execute('INSERT INTO t VALUES (1)');
    await tx.execute('SAVEPOINT cw_returning');
    await tx.execute('INSERT INTO t VALUES (2)');
    expect(values(await tx.execute('INSERT INTO t VALUES (3) RETURNING n'))).toEqual([[3]]);
    await tx.execute('ROLLBACK TO cw_returning');
    await tx.commit();
    expect(values(await client.execute('SELECT n FROM t ORDER BY n'))).toEqual([[1]]);
  });
});
