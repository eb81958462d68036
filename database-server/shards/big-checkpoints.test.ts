// A large WAL's checkpoint runs on a thread of its own, so the shard's other tenants are served meanwhile.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_DATABASE_LIMITS } from '../sql/sql-limits.ts';
import { LocalEngine } from './local-engine.ts';

const directory = mkdtempSync(path.join(tmpdir(), 'cw-db-big-checkpoints-'));
const engine = new LocalEngine({ directory, manualCheckpoints: true, bigCheckpoints: { minWalBytes: 1024 * 1024, threads: 2 } });

afterAll(async () => {
  await engine.close();
  rmSync(directory, { recursive: true, force: true });
});

const execute = (sql: string) => ({ type: 'execute', stmt: { sql } });
const run = (tenant: string, ...sql: string[]) => engine.run({ tenant, stream: `s-${Math.random()}`, mode: 'read-write', requests: [...sql.map(execute), { type: 'close' }] });
const walBytes = (tenant: string) => statSync(`${engine.databasePath(tenant)}-wal`, { throwIfNoEntry: false })?.size ?? 0;
const count = async (tenant: string) => {
  const outcome = await run(tenant, 'SELECT count(*) FROM t');
  return (outcome.results[0] as { response: { result: { rows: { value: string }[][] } } }).response.result.rows[0]?.[0]?.value;
};

describe('big checkpoints', () => {
  it("serves another tenant's statement while a large WAL is checkpointed, then the database goes on from the file (found by a hostile tenant's 1 GiB WAL)", async () => {
    await engine.open('heavy', DEFAULT_DATABASE_LIMITS);
    await engine.open('neighbour', DEFAULT_DATABASE_LIMITS);
    await run('neighbour', 'CREATE TABLE t (v)', 'INSERT INTO t VALUES (1)');
    await run('heavy', 'CREATE TABLE t (v BLOB)', 'INSERT INTO t SELECT randomblob(100000) FROM generate_series(1, 400)');
    expect(walBytes('heavy')).toBeGreaterThan(30 * 1024 * 1024);

    const order: string[] = [];
    let turns = 0;
    const ticker = setInterval(() => (turns += 1), 1);
    try {
      await Promise.all([engine.checkpoint('heavy').then(() => order.push('checkpoint')), count('neighbour').then(() => order.push('neighbour'))]);
    } finally {
      clearInterval(ticker);
    }
    // On the shard's thread the checkpoint (some 100 ms here) would have answered first, the loop held throughout.
    expect(order).toEqual(['neighbour', 'checkpoint']);
    expect(turns).toBeGreaterThanOrEqual(5);
    expect(walBytes('heavy')).toBe(0);
    await run('heavy', "INSERT INTO t VALUES (x'00')");
    expect(await count('heavy')).toBe('401');
  });

  it('checkpoints a small WAL on the shard thread, as before', async () => {
    await engine.open('light', DEFAULT_DATABASE_LIMITS);
    await run('light', 'CREATE TABLE t (v)', 'INSERT INTO t VALUES (1)');
    expect(walBytes('light')).toBeGreaterThan(0);
    await engine.checkpoint('light');
    expect(walBytes('light')).toBe(0);
    expect(await count('light')).toBe('1');
  });
});
