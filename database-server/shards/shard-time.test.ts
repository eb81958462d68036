import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HranaStreamResult } from '../hrana/hrana-types.ts';
import { LocalEngine } from './local-engine.ts';
import { ShardTime } from './shard-time.ts';

describe('ShardTime', () => {
  it('caps a project that used much of the shard lately while another waits, until its use decays', () => {
    let now = 0;
    const time = new ShardTime({ halfLifeMs: 1_000, hogMs: 500, capMs: 50, now: () => now });
    time.add('hog', 2_000);
    // Nobody waiting: never capped, however much it used.
    expect(time.capFor('hog', 0)).toBeUndefined();
    expect(time.capFor('hog', 1)).toBe(50);
    time.add('victim', 100);
    // Another project may use what is left of the budget.
    expect(time.capFor('victim', 1)).toBe(400);
    // 2 s of use halves each second: past 2 s it is under 500 ms again.
    now = 1_900;
    expect(time.capFor('hog', 1)).toBe(50);
    now = 3_000;
    expect(time.capFor('hog', 1)).toBe(250);
  });

  it('caps even a fresh project at the budget while another contends, so a new project cannot stall a shard for its whole time limit', () => {
    const time = new ShardTime({ hogMs: 1_000, capMs: 250, now: () => 0 });
    expect(time.capFor('fresh', 0)).toBeUndefined();
    expect(time.capFor('fresh', 1)).toBe(1_000);
    time.add('fresh', 900);
    expect(time.capFor('fresh', 1)).toBe(250);
  });

  it('divides the cap among the projects contending, so many of them stall a neighbour about one cap a round, not one each', () => {
    const time = new ShardTime({ hogMs: 1_000, capMs: 250, now: () => 0 });
    time.add('hog', 5_000);
    expect([1, 2, 4, 20].map((n) => time.capFor('hog', n))).toEqual([250, 125, 63, 25]);
    expect([1, 4].map((n) => time.capFor('fresh', n))).toEqual([1_000, 250]);
  });

  it('never caps with a cap of 0', () => {
    const time = new ShardTime({ capMs: 0 });
    time.add('hog', 100_000);
    expect(time.capFor('hog', 1)).toBeUndefined();
  });
});

describe('a shard shared by a project running long statements', () => {
  const directory = mkdtempSync(path.join(tmpdir(), 'cw-db-shard-time-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  const limits = { statementTimeoutMs: 5_000, maxSizeBytes: 1024 ** 3 };
  // A statement of half a second or more of CPU on this machine (counted to 8 million).
  const SLOW = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 8000000) SELECT count(*) FROM c';
  // A statement that runs until its time limit stops it.
  const LOOP = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';
  let streams = 0;
  const run = async (engine: LocalEngine, tenant: string, sqls: string[]): Promise<{ results: HranaStreamResult[]; ms: number }> => {
    const started = performance.now();
    const requests = [...sqls.map((sql) => ({ type: 'execute', stmt: { sql } })), { type: 'close' }];
    const outcome = await engine.run({ tenant, project: tenant.split('-')[0]!, stream: `s${++streams}`, mode: 'read-write', requests });
    return { results: outcome.results.slice(0, sqls.length), ms: performance.now() - started };
  };

  it('cuts the hog’s statements short while another project waits for the shard, and not the other’s', async () => {
    const engine = new LocalEngine({ directory: path.join(directory, 'shared'), shardTime: new ShardTime({ hogMs: 200, capMs: 50 }) });
    await Promise.all(['hog-a', 'victim-a'].map((tenant) => engine.open(tenant, limits)));
    // Alone, it runs to the end: nobody waits.
    const first = await run(engine, 'hog-a', [SLOW]);
    expect(first.results).toMatchObject([{ type: 'ok' }]);

    // Now a neighbour asks again and again while the hog's batch runs: the hog's statements are cut short.
    let done = false;
    const neighbour: HranaStreamResult[] = [];
    const asking = (async () => {
      while (!done) neighbour.push(...(await run(engine, 'victim-a', ['SELECT 1'])).results);
    })();
    const second = await run(engine, 'hog-a', [SLOW, SLOW, SLOW]);
    done = true;
    await asking;
    expect(second.results.some((r) => r.type === 'error' && r.error.code === 'SQLITE_INTERRUPT' && /cut short/.test(r.error.message))).toBe(true);
    expect(second.ms).toBeLessThan(3 * first.ms);
    expect(neighbour.length).toBeGreaterThan(1);
    expect(neighbour.every((r) => r.type === 'ok')).toBe(true);
    await engine.close();
  }, 30_000);

  it("cuts a fresh project's first long statement at the budget while a neighbour keeps asking", async () => {
    const engine = new LocalEngine({ directory: path.join(directory, 'fresh'), shardTime: new ShardTime({ hogMs: 200, capMs: 50 }) });
    await Promise.all(['fresh-a', 'victim-b'].map((tenant) => engine.open(tenant, limits)));
    let done = false;
    const neighbour: HranaStreamResult[] = [];
    const asking = (async () => {
      while (!done) neighbour.push(...(await run(engine, 'victim-b', ['SELECT 1'])).results);
    })();
    await expect.poll(() => neighbour.length).toBeGreaterThan(2);
    const first = await run(engine, 'fresh-a', [SLOW]);
    done = true;
    await asking;
    expect(first.results).toMatchObject([{ type: 'error', error: { code: 'SQLITE_INTERRUPT', message: expect.stringMatching(/after 0\.2 s.*cut short/) } }]);
    expect(first.ms).toBeLessThan(2_000);
    expect(neighbour.every((r) => r.type === 'ok')).toBe(true);
    await engine.close();
  }, 30_000);

  // Tenants are `<project>-<database>`: four projects of one database each, then three of three databases each
  // (a project's databases share its turns; by database, the neighbour waited for nine statements a round).
  it.each([
    { what: 'projects', hogs: ['h1-a', 'h2-a', 'h3-a', 'h4-a'] },
    { what: 'projects of several databases', hogs: ['h1-a', 'h1-b', 'h1-c', 'h2-a', 'h2-b', 'h2-c', 'h3-a', 'h3-b', 'h3-c'] },
  ])(
    'stalls a neighbour about one cap a round however many $what loop long statements against it',
    async ({ hogs }) => {
      const engine = new LocalEngine({ directory: path.join(directory, `many-${hogs.length}`), shardTime: new ShardTime({ hogMs: 200, capMs: 200 }) });
      await Promise.all([...hogs, 'victim-c'].map((tenant) => engine.open(tenant, limits)));
      let done = false;
      const looping = hogs.map(async (tenant) => {
        while (!done) await run(engine, tenant, [SLOW]);
      });
      // Let every hog have its turns, then time the neighbour's one-statement requests.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const waits: number[] = [];
      for (let i = 0; i < 8; i++) waits.push((await run(engine, 'victim-c', ['SELECT 1'])).ms);
      done = true;
      await Promise.all(looping);
      waits.sort((a, b) => a - b);
      // Four projects at 200 ms each were 800 ms a round; the cap divided among them, about 200.
      expect(waits[4]).toBeLessThan(500);
      await engine.close();
    },
    60_000,
  );

  // review-184 H6: contention was judged when a statement started, from who waited or had a turn in the last second,
  // so a neighbour asking every second and a half found the hog in a statement of its whole limit every time.
  it('stalls a neighbour that asks now and then about the cap, not the hog’s whole limit', async () => {
    const engine = new LocalEngine({ directory: path.join(directory, 'sparse'), shardTime: new ShardTime({ hogMs: 200, capMs: 50 }) });
    await Promise.all(['hog-s', 'victim-s'].map((tenant) => engine.open(tenant, { ...limits, statementTimeoutMs: 3_000 })));
    await run(engine, 'victim-s', ['SELECT 1']);
    let done = false;
    const looping = (async () => {
      while (!done) await run(engine, 'hog-s', [LOOP]);
    })();
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) {
      // Quiet for longer than a turn keeps a project contending (local-engine.ts). The hog's statements run on this
      // thread, so the neighbour's request is sent when its timer gets to run: its wait counts from when it was due.
      const due = performance.now() + 1_500;
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await run(engine, 'victim-s', ['SELECT 1']);
      waits.push(Math.round(performance.now() - due));
    }
    done = true;
    await looping;
    process.stdout.write(`shard-time: a neighbour asking every 1.5 s while another project loops 3 s statements waited ${waits.join(', ')} ms\n`);
    // Unfixed: about 2.5 s each (the rest of a 3 s statement begun a second after its last turn).
    expect(Math.max(...waits)).toBeLessThan(1_000);
    await engine.close();
  }, 60_000);

  it('lets a project run to its limit again once the other projects’ databases closed', async () => {
    const engine = new LocalEngine({ directory: path.join(directory, 'closed'), shardTime: new ShardTime({ hogMs: 200, capMs: 50 }) });
    // A limit far past what the statement takes on a busy machine: only a cut at the budget stops it.
    await Promise.all(['alone-c', 'gone-c'].map((tenant) => engine.open(tenant, { ...limits, statementTimeoutMs: 60_000 })));
    await run(engine, 'gone-c', ['SELECT 1']);
    // Another project's database open here: the statement is cut at the budget, though nobody waits now nor had a
    // turn in the last second.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await run(engine, 'alone-c', [SLOW])).results).toMatchObject([{ type: 'error', error: { code: 'SQLITE_INTERRUPT', message: expect.stringMatching(/cut short/) } }]);
    await engine.closeTenant('gone-c');
    // The last second's turns still count (the other project had one just now).
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await run(engine, 'alone-c', [SLOW])).results).toMatchObject([{ type: 'ok' }]);
    await engine.close();
  }, 30_000);

  it('lets a project run long statements to their limit while nobody waits', async () => {
    const engine = new LocalEngine({ directory: path.join(directory, 'alone'), shardTime: new ShardTime({ hogMs: 200, capMs: 50 }) });
    await engine.open('alone-a', limits);
    expect((await run(engine, 'alone-a', [SLOW, SLOW])).results).toMatchObject([{ type: 'ok' }, { type: 'ok' }]);
    await engine.close();
  }, 30_000);
});
