import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HranaStreamResult } from '../hrana/hrana-types.ts';
import { LocalEngine } from './local-engine.ts';
import { ShardTime } from './shard-time.ts';

describe('ShardTime', () => {
  it('caps a project that used much of the shard lately while another used it too, until its use decays', () => {
    let now = 0;
    const time = new ShardTime({ halfLifeMs: 1_000, hogMs: 500, capMs: 50, now: () => now });
    time.add('hog', 2_000);
    // Alone on the shard: never capped, however much it uses.
    expect(time.capFor('hog')).toBeUndefined();
    time.add('victim', 1);
    expect(time.capFor('hog')).toBe(50);
    expect(time.capFor('victim')).toBeUndefined();
    // 2 s of use halves each second: past 2 s it is under 500 ms again.
    now = 1_500;
    time.add('victim', 1);
    now = 1_900;
    expect(time.capFor('hog')).toBe(50);
    now = 2_100;
    expect(time.capFor('hog')).toBeUndefined();
  });

  it('stops counting a neighbour that has not used the shard for a half-life', () => {
    let now = 0;
    const time = new ShardTime({ halfLifeMs: 10_000, hogMs: 500, capMs: 50, now: () => now });
    time.add('victim', 1);
    now = 5_000;
    time.add('hog', 5_000);
    expect(time.capFor('hog')).toBe(50);
    now = 10_001;
    expect(time.capFor('hog')).toBeUndefined();
  });
});

describe('a shard shared by a project running long statements', () => {
  const directory = mkdtempSync(path.join(tmpdir(), 'cw-db-shard-time-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  const limits = { statementTimeoutMs: 5_000, maxSizeBytes: 1024 ** 3 };
  // A statement of half a second or more on this machine (counted to 8 million).
  const SLOW = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 8000000) SELECT count(*) FROM c';
  let streams = 0;
  const run = async (engine: LocalEngine, tenant: string, sql: string): Promise<{ result: HranaStreamResult; ms: number }> => {
    const started = performance.now();
    const outcome = await engine.run({ tenant, project: tenant.split('-')[0]!, stream: `s${++streams}`, mode: 'read-write', requests: [{ type: 'execute', stmt: { sql } }, { type: 'close' }] });
    return { result: outcome.results[0]!, ms: performance.now() - started };
  };

  it('cuts the hog’s next statements short once it took the shard from another project, and not the other’s', async () => {
    const engine = new LocalEngine({ directory: path.join(directory, 'shared'), shardTime: new ShardTime({ hogMs: 200, capMs: 50 }) });
    await Promise.all(['hog-a', 'victim-a'].map((tenant) => engine.open(tenant, limits)));
    expect((await run(engine, 'victim-a', 'SELECT 1')).result.type).toBe('ok');
    const first = await run(engine, 'hog-a', SLOW);
    expect(first.result.type, JSON.stringify(first.result)).toBe('ok');
    expect(first.ms).toBeGreaterThan(200);

    const second = await run(engine, 'hog-a', SLOW);
    expect(second.result).toMatchObject({ type: 'error', error: { code: 'SQLITE_INTERRUPT', message: expect.stringContaining('cut short') } });
    expect(second.ms).toBeLessThan(first.ms / 2);
    expect((await run(engine, 'victim-a', 'SELECT 2')).result.type).toBe('ok');
    await engine.close();
  }, 30_000);

  it('lets a project alone on its shard run long statements to their limit', async () => {
    const engine = new LocalEngine({ directory: path.join(directory, 'alone'), shardTime: new ShardTime({ hogMs: 200, capMs: 50 }) });
    await engine.open('alone-a', limits);
    for (let i = 0; i < 2; i++) expect((await run(engine, 'alone-a', SLOW)).result.type).toBe('ok');
    await engine.close();
  }, 30_000);
});
