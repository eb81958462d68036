// The engine's side of a stream its shard lost: a request that continues a transaction the engine does not know
// (its shard restarted since) is refused, never run on a fresh stream outside that transaction.
import { mkdtempSync, rmSync } from 'node:fs';
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
