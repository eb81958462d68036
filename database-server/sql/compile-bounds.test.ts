import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failure, startEngineTestbed, type EngineTestbed } from '../hrana/testing/engine-testbed.ts';

// SQLite compiles a statement whole before its time limit applies, and a CTE (or a view) is copied at each of its
// references: a 2 KB text of CTEs each doubling the one before compiled for seconds and then ran its whole limit on
// top (review-184 H2). The compiled program is bounded (two instructions a byte of its text, at least 250,000:
// cw-sqlite-bounds.c), and the time compiling took counts in the statement's limit.
let testbed: EngineTestbed;

beforeAll(async () => {
  testbed = await startEngineTestbed({ prefix: 'cw-db-compile-bounds-', engine: { memoryLimitBytes: 256 * 1024 * 1024 } });
  await testbed.engine.open('fast', { statementTimeoutMs: 50, maxSizeBytes: 64 * 1024 * 1024 });
});

afterAll(async () => {
  await testbed.close();
});

/** CTEs a1…an, each the one before twice (UNION ALL), copied at each reference: 2^n copies of a0 once compiled. */
function doubling(n: number, select = `SELECT count(*) FROM a${n}`): string {
  const ctes = ['a0(x) AS (SELECT 1)'];
  for (let i = 1; i <= n; i++) ctes.push(`a${i}(x) AS NOT MATERIALIZED (SELECT x FROM a${i - 1} UNION ALL SELECT x FROM a${i - 1})`);
  return `WITH ${ctes.join(', ')} ${select}`;
}

describe('compiling a statement', () => {
  it('stops once the program passes its bound, before it runs', async () => {
    const client = testbed.connect('compiles');
    // 2^8 copies: a program well within the bound, answered.
    expect((await client.execute(doubling(8))).rows[0]?.[0]).toBe(256);
    // 2^15 copies compiled (in about a second) and answered 32768 before the bound.
    const started = performance.now();
    const refused = await failure(client, doubling(15));
    expect(refused.code).toBe('SQLITE_NOMEM');
    process.stdout.write(`compile-bounds: 2^15 copies refused in ${(performance.now() - started).toFixed(0)} ms\n`);
    expect((await client.execute('SELECT 1')).rows[0]?.[0]).toBe(1);
  });

  it('allows a long statement that copies nothing the program its text needs', async () => {
    // A 1 MiB IN list compiles to some 1.6 million instructions: its text's length raises the bound for it.
    const client = testbed.connect('compiles');
    const list = `SELECT 7 IN (${Array.from({ length: 350_000 }, (_, i) => i % 10).join(',')}) AS found`;
    expect(list.length).toBeGreaterThan(690_000);
    expect((await client.execute(list)).rows[0]?.found).toBe(1);
    // And the next short statement is bounded as before.
    expect((await failure(client, doubling(15))).code).toBe('SQLITE_NOMEM');
  });

  it('counts in the statement’s time limit: a statement that compiled past it does not run', async () => {
    const client = testbed.connect('fast');
    // 2^13 copies compile in well over 50 ms, and with LIMIT 0 run in none: uncounted, it answered no rows.
    const refused = await failure(client, doubling(13, 'SELECT x FROM a13 LIMIT 0'));
    expect([refused.code, refused.message]).toEqual(['SQLITE_INTERRUPT', expect.stringContaining('statement time limit of 0.05 s')]);
    expect((await client.execute('SELECT 1')).rows[0]?.[0]).toBe(1);
  });
});
