import type { Client } from '@libsql/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { failure, startEngineTestbed, type EngineTestbed } from './hrana/testing/engine-testbed.ts';
import { growthFreeze, StorageBudget } from './storage-budget.ts';

const MIB = 1024 * 1024;

describe('growthFreeze', () => {
  const bounds = { projectQuotaBytes: 100 * MIB, diskReserveBytes: 10 * MIB };
  const roomy = { meanProjectBytes: 50 * MIB, diskFreeBytes: 1024 * MIB };

  it('lets a project under its quota grow while the disk has room', () => {
    expect(growthFreeze(bounds, { ...roomy, projectBytes: 99 * MIB })).toBeUndefined();
  });

  it("stops a project's databases at the project quota, with the figures", () => {
    expect(growthFreeze(bounds, { ...roomy, projectBytes: 100 * MIB })).toEqual({
      reason: 'project_storage_quota',
      message: expect.stringContaining('the databases of the project (and of the other projects of the user who created it) on this server hold 100 MiB, at its storage quota of 100 MiB'),
    });
  });

  it('below the reserve stops the projects holding the mean or more, and lets the lighter ones use the reserve', () => {
    const low = { meanProjectBytes: 40 * MIB, diskFreeBytes: 8 * MIB };
    expect(growthFreeze(bounds, { ...low, projectBytes: 40 * MIB })?.reason).toBe('disk_reserve');
    expect(growthFreeze(bounds, { ...low, projectBytes: 39 * MIB })).toBeUndefined();
    expect(growthFreeze(bounds, { ...low, projectBytes: 0 })).toBeUndefined();
  });

  it('below half the reserve stops every project', () => {
    const full = { meanProjectBytes: 40 * MIB, diskFreeBytes: 4 * MIB };
    expect(growthFreeze(bounds, { ...full, projectBytes: 0 })?.message).toContain("the server's disk is nearly full and");
  });
});

// The bounds as a tenant meets them: the official client on the real Hrana server and engine, with the budget
// measuring the real files; only the volume's free space is set by the test.
describe('a storage budget on the real engine', { timeout: 30_000 }, () => {
  let testbed: EngineTestbed;
  let budget: StorageBudget;
  let freeBytes = 1024 * MIB;
  // Databases "a1" and "a2" are project a's; "b1" is project b's.
  const projectOf = (tenant: string) => tenant.slice(0, 1);
  const tenants = ['a1', 'a2', 'b1'];
  const connect = (tenant: string): Client => testbed.connect(tenant);

  beforeAll(async () => {
    testbed = await startEngineTestbed({
      prefix: 'cw-storage-budget-',
      engine: { defaultLimits: { statementTimeoutMs: 5000, maxSizeBytes: 64 * MIB } },
      server: {
        growth: (tenant) => budget.freezeOf(tenant),
        vacuumRoom: () => budget.vacuumRoom(),
        afterRequest: (tenant) => budget.touched(tenant),
      },
    });
    budget = new StorageBudget({
      bounds: { projectQuotaBytes: 2 * MIB, diskReserveBytes: 100 * MIB },
      dataDir: testbed.directory,
      databasePath: (tenant) => testbed.engine.databasePath(tenant),
      projectOf,
      freeBytes: async () => freeBytes,
    });
    for (const tenant of tenants) await connect(tenant).execute('CREATE TABLE blobs (b BLOB)');
  });

  beforeEach(() => {
    freeBytes = 1024 * MIB;
  });

  afterAll(() => testbed.close());

  const insert = (kib: number) => `INSERT INTO blobs VALUES (randomblob(${kib * 1024}))`;

  it("stops a project's databases growing at its quota, lets them make room, and keeps other projects writing", async () => {
    const [a1, a2, b1] = tenants.map((tenant) => connect(tenant));
    // Each of project a's databases is well under its own 64 MiB quota; together they pass the project's 2 MiB.
    await a1!.execute(insert(1200));
    await a2!.execute(insert(1200));
    await budget.measure(tenants);
    const full = await failure(a1!, insert(100));
    expect([full.code, full.message]).toEqual(['SQLITE_FULL', expect.stringContaining('the databases of the project (and of the other projects of the user who created it) on this server hold')]);
    expect((await failure(a2!, insert(100))).code).toBe('SQLITE_FULL');
    // Another project is not held back by a's.
    await b1!.execute(insert(100));

    // A frozen database may delete, and reuse the pages it freed for new rows.
    await a1!.execute('DELETE FROM blobs');
    await a1!.execute(insert(100));
    // VACUUM gives the freed pages back to the disk (once the WAL is checkpointed, as cw-db's replication does
    // after shipping it): the project is under its quota again at the next round.
    await a1!.execute('DELETE FROM blobs');
    await a1!.execute('VACUUM');
    await testbed.engine.checkpoint('a1');
    await budget.measure(tenants);
    await a1!.execute(insert(100));
    await a2!.execute(insert(100));
  });

  it('below the disk reserve stops the heaviest project first, and everyone below half of it', async () => {
    await budget.measure(tenants);
    const [a1, , b1] = tenants.map((tenant) => connect(tenant));
    freeBytes = 60 * MIB;
    await budget.measure(tenants);
    // Project a holds more than the mean of the two projects: it stops; b, the lighter one, writes into the reserve.
    const heavy = await failure(a1!, insert(100));
    expect([heavy.code, heavy.message]).toEqual(['SQLITE_FULL', expect.stringContaining("the server's disk is nearly full and")]);
    await b1!.execute(insert(10));
    freeBytes = 40 * MIB;
    await budget.measure(tenants);
    expect((await failure(b1!, insert(10))).code).toBe('SQLITE_FULL');
    // A VACUUM writes up to two copies of the database: refused when the disk cannot spare them above half the reserve.
    freeBytes = 50 * MIB;
    await budget.measure(tenants);
    const vacuum = await failure(a1!, 'VACUUM');
    expect([vacuum.code, vacuum.message]).toEqual(['SQLITE_FULL', expect.stringContaining('VACUUM needs room for two copies of the database')]);
    freeBytes = 1024 * MIB;
    await budget.measure(tenants);
    await a1!.execute(insert(10));
    await b1!.execute(insert(10));
  });
});

// Making room must work for any database, not only those that fit in SQLite's memory: VACUUM's copy goes to a file.
describe('VACUUM', () => {
  it("shrinks a database larger than the engine's SQLite memory", { timeout: 60_000 }, async () => {
    const testbed = await startEngineTestbed({ prefix: 'cw-vacuum-', engine: { defaultLimits: { statementTimeoutMs: 30_000, maxSizeBytes: 64 * MIB }, memoryLimitBytes: 16 * MIB } });
    const client = testbed.connect('big');
    try {
      await client.execute('CREATE TABLE blobs (b BLOB)');
      for (let i = 0; i < 40; i++) await client.execute('INSERT INTO blobs VALUES (randomblob(1000000))');
      await client.execute('DELETE FROM blobs WHERE rowid % 2 = 0');
      const pages = async () => Number((await client.execute('PRAGMA page_count')).rows[0]?.page_count);
      const before = await pages();
      await client.execute('VACUUM');
      expect(await pages()).toBeLessThan(before * 0.6);
      expect((await client.execute('SELECT count(*) AS n FROM blobs')).rows[0]?.n).toBe(20);
      // A whole rewrite each time, shipped to the bucket: not in a loop.
      const again = await failure(client, 'VACUUM');
      expect([again.code, again.message]).toEqual(['SQLITE_BUSY', expect.stringMatching(/vacuumed less than 60 s ago; run VACUUM again in \d+ s/)]);
      // Per database, not per connection: one closed and opened again (idle, pushed out by others) is no way round.
      await testbed.engine.closeTenant('big');
      expect((await failure(client, 'VACUUM')).code).toBe('SQLITE_BUSY');
    } finally {
      await testbed.close();
    }
  });
});
