// The engine's side of a stream its shard lost: a request that continues a transaction the engine does not know
// (its shard restarted since) is refused, never run on a fresh stream outside that transaction.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_DATABASE_LIMITS } from '../sql/sql-limits.ts';
import { LocalEngine } from './local-engine.ts';

const directory = mkdtempSync(path.join(tmpdir(), 'cw-db-local-engine-'));
const engine = new LocalEngine({ directory });

afterAll(async () => {
  await engine.close();
  rmSync(directory, { recursive: true, force: true });
});

const execute = (sql: string) => ({ type: 'execute', stmt: { sql } });

describe('LocalEngine', () => {
  it('refuses a request continuing a transaction it does not know, and runs none of it', async () => {
    await engine.open('db', DEFAULT_DATABASE_LIMITS);
    await engine.run({ tenant: 'db', stream: 'setup', mode: 'read-write', requests: [execute('CREATE TABLE t (v TEXT)'), { type: 'close' }] });

    const lost = await engine.run({ tenant: 'db', stream: 'from-before-the-restart', mode: 'read-write', inTransaction: true, requests: [execute("INSERT INTO t VALUES ('x')")] });
    expect(lost).toMatchObject({ closed: true, autocommit: true, results: [{ type: 'error', error: { code: 'STREAM_CLOSED' } }] });

    // Outside a transaction an unknown stream is a new one, as always.
    const read = await engine.run({ tenant: 'db', stream: 'new', mode: 'read-only', requests: [execute('SELECT count(*) AS n FROM t'), { type: 'close' }] });
    expect(read.results[0]).toMatchObject({ type: 'ok', response: { result: { rows: [[{ type: 'integer', value: '0' }]] } } });
  });
});

describe('LocalEngine and the write-ahead log', () => {
  it('runs no more of a writing request once its database’s log is past the bound, rolling back what it left open (review-184 H7)', async () => {
    const bounded = new LocalEngine({ directory, manualCheckpoints: true, maxWalBytes: 2 * 1024 * 1024 });
    try {
      await bounded.open('wal', DEFAULT_DATABASE_LIMITS);
      await bounded.run({
        tenant: 'wal',
        stream: 'setup',
        mode: 'read-write',
        requests: [execute('CREATE TABLE t (v BLOB)'), execute('INSERT INTO t SELECT randomblob(100000) FROM generate_series(1, 4)'), { type: 'close' }],
      });
      // Each autocommit UPDATE appends a copy of the pages it rewrote (~400 KB): forty of them would add 16 MiB.
      const rewrites = Array.from({ length: 40 }, () => execute('UPDATE t SET v = randomblob(100000)'));
      const run = await bounded.run({ tenant: 'wal', stream: 'writer', mode: 'read-write', requests: rewrites });
      const ran = run.results.filter((r) => r.type === 'ok').length;
      expect(ran).toBeGreaterThan(0);
      expect(ran).toBeLessThan(10);
      expect(run.results.at(-1)).toMatchObject({ type: 'error', error: { code: 'SQLITE_FULL', message: expect.stringContaining('write-ahead log passed 2 MiB') } });
      // At most one statement's pages past the bound.
      expect(statSync(`${bounded.databasePath('wal')}-wal`).size).toBeLessThan(3 * 1024 * 1024);
      // A reader is not held to it.
      const read = await bounded.run({ tenant: 'wal', stream: 'reader', mode: 'read-only', requests: [execute('SELECT count(*) AS n FROM t'), execute('SELECT 1'), { type: 'close' }] });
      expect(read.results.every((r) => r.type === 'ok')).toBe(true);
    } finally {
      await bounded.close();
    }
  });
});
