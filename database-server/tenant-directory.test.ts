import { existsSync, statSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { startHranaServer } from './hrana/http-server.ts';
import { UsageMeter } from './sql/usage-meter.ts';
import { MemoryObjectStore } from '../src/object-store/memory-object-store.ts';
import { GateStore } from '../src/object-store/testing/gate-object-store.ts';
import { RestorePointUnavailableError, TenantNotFoundError } from './tenant-admin-types.ts';
import { TenantMetaStore } from './tenant-meta.ts';
import { OpenDatabases } from './open-databases.ts';
import {
  closeNodes,
  copied,
  copyDiedAfterMetadata,
  createdWithBaseHeld,
  desired,
  grant,
  HeldSegments,
  keys,
  names,
  pipeline,
  PutFails,
  ReadFails,
  startNode,
  whileSnapshotHeld,
  written,
} from './testing/directory-nodes.ts';

// cw-db as main.ts wires it, minus S3 and the timers (testing/directory-nodes.ts), driven with the official client.
afterEach(() => {
  vi.useRealTimers();
});
afterAll(closeNodes);

describe('TenantDirectory behind the Hrana server', () => {
  it('serves a new tenant to the holder of its token, and refuses wrong tokens, other paths and unknown tenants', async () => {
    const node = await startNode(new MemoryObjectStore());
    expect(await node.directory.ensure('alpha', desired(['tok-alpha']))).toEqual({ created: true });
    await node.directory.ensure('beta', desired(['tok-beta']));
    const alpha = node.client('alpha', 'tok-alpha');
    await alpha.execute('CREATE TABLE t (name TEXT)');
    await alpha.execute({ sql: 'INSERT INTO t VALUES (?)', args: ['a1'] });
    expect(await names(alpha)).toEqual(['a1']);

    expect(await node.post('alpha', 'tok-wrong')).toEqual({ status: 401, body: expect.objectContaining({ code: 'UNAUTHORIZED' }) });
    expect(await node.post('alpha', undefined)).toEqual({ status: 401, body: expect.objectContaining({ code: 'UNAUTHORIZED' }) });
    expect(await node.post(null, 'tok-wrong')).toMatchObject({ status: 401 });
    expect(await node.post('beta', 'tok-alpha')).toEqual({ status: 403, body: expect.objectContaining({ code: 'FORBIDDEN' }) });
    expect(await node.post('gamma', 'tok-alpha')).toEqual({ status: 404, body: expect.objectContaining({ code: 'TENANT_NOT_FOUND' }) });
    await expect(node.client('beta', 'tok-alpha').execute('SELECT 1')).rejects.toThrow();
  });

  it('serves the /v1/v2/pipeline form (a URL without a trailing slash) on the tenant the token names', async () => {
    const node = await startNode(new MemoryObjectStore());
    await node.directory.ensure('alpha', desired(['tok-alpha']));
    await node.directory.ensure('beta', desired(['tok-beta']));
    await node.client('alpha', 'tok-alpha').execute("CREATE TABLE t AS SELECT 'in alpha' AS name");
    await node.client('beta', 'tok-beta').execute("CREATE TABLE t AS SELECT 'in beta' AS name");
    // The last segment is dropped by the client: the token alone names the tenant.
    expect(await names(node.client('whatever', 'tok-alpha', { trailingSlash: false }))).toEqual(['in alpha']);
    expect(await names(node.client('alpha', 'tok-beta', { trailingSlash: false }))).toEqual(['in beta']);
  });

  it('lets a read-only token read but not write', async () => {
    const node = await startNode(new MemoryObjectStore());
    await node.directory.ensure('alpha', { tokens: [grant('tok-rw'), grant('tok-ro', { readOnly: true })], durability: 'async' });
    await node.client('alpha', 'tok-rw').execute("CREATE TABLE t AS SELECT 'x' AS name");
    const reader = node.client('alpha', 'tok-ro');
    expect(await names(reader)).toEqual(['x']);
    await expect(reader.execute("INSERT INTO t VALUES ('y')")).rejects.toMatchObject({ code: 'SQLITE_READONLY' });
    await expect(reader.execute('CREATE TABLE u (n INTEGER)')).rejects.toMatchObject({ code: 'SQLITE_READONLY' });
    expect(await names(reader)).toEqual(['x']);
  });

  it('rotates tokens with ensure: the old ones are refused at once, the data stays', async () => {
    const node = await startNode(new MemoryObjectStore());
    await node.directory.ensure('alpha', desired(['tok-old']));
    await node.client('alpha', 'tok-old').execute("CREATE TABLE t AS SELECT 'kept' AS name");
    expect(await node.directory.ensure('alpha', desired(['tok-new']))).toEqual({ created: false });
    expect(await node.post('alpha', 'tok-old')).toMatchObject({ status: 401 });
    expect(await node.post(null, 'tok-old')).toMatchObject({ status: 401 });
    expect(await names(node.client('alpha', 'tok-new'))).toEqual(['kept']);
  });

  it('refuses a token from its expiry time on, by the injected clock', async () => {
    let now = 1_000_000;
    const node = await startNode(new MemoryObjectStore(), { now: () => now });
    await node.directory.ensure('alpha', { tokens: [grant('tok-short', { expiresAt: 1_000_500 }), grant('tok-long')], durability: 'async' });
    expect(await node.post('alpha', 'tok-short')).toMatchObject({ status: 200 });
    now = 1_000_500;
    expect(await node.post('alpha', 'tok-short')).toMatchObject({ status: 401 });
    expect(await node.post('alpha', 'tok-long')).toMatchObject({ status: 200 });
  });

  it('deletes a tenant: its token answers 404, and nothing of it is left on disk or in the bucket', async () => {
    const store = new MemoryObjectStore();
    const node = await startNode(store);
    await node.directory.ensure('alpha', desired(['tok-alpha'], { durability: 'sync' }));
    // A neighbour whose id starts with the deleted one's: its keys share that prefix but not the tenant's root.
    await node.directory.ensure('alpha-b', desired(['tok-beta'], { durability: 'sync' }));
    for (const [tenant, token] of [
      ['alpha', 'tok-alpha'],
      ['alpha-b', 'tok-beta'],
    ] as const) {
      const client = node.client(tenant, token);
      await client.execute('CREATE TABLE t (name TEXT)');
      await client.execute("INSERT INTO t VALUES ('x')");
    }
    await node.directory.saveUsage(new Map());
    const ofAlpha = (k: string) => k.startsWith('tenants/alpha.') || k.startsWith('replicas/alpha/');
    expect((await keys(store)).filter(ofAlpha)).toEqual(
      expect.arrayContaining(['tenants/alpha.json', 'tenants/alpha.usage.json', expect.stringMatching(/^replicas\/alpha\/generations\/.+\.seg\.gz$/)]),
    );

    await node.directory.delete('alpha');
    expect(await node.post(null, 'tok-alpha')).toEqual({ status: 404, body: { code: 'TENANT_NOT_FOUND', message: 'The database was deleted' } });
    expect(await node.post('alpha', 'tok-alpha')).toMatchObject({ status: 404 });
    expect(await node.directory.describe('alpha')).toBeUndefined();
    const file = node.engine.databasePath('alpha');
    expect([file, `${file}-wal`, `${file}-shm`].filter((f) => existsSync(f))).toEqual([]);
    expect(existsSync(node.engine.databasePath('alpha-b'))).toBe(true);
    const left = await keys(store);
    expect(left.filter(ofAlpha)).toEqual([]);
    expect(left).toEqual(expect.arrayContaining(['tenants/alpha-b.json', 'tenants/alpha-b.usage.json']));
    expect(left.some((k) => k.startsWith('replicas/alpha-b/'))).toBe(true);
    expect(await names(node.client('alpha-b', 'tok-beta'))).toEqual(['x']);
    // A deletion of what is already gone succeeds.
    await node.directory.delete('alpha');
  });

  it('deletes a tenant whose base snapshot is still uploading: nothing of it lands after the deletion', async () => {
    const { bucket, gate, node } = await createdWithBaseHeld('alpha', 'tok-alpha');
    const deleted = node.directory.delete('alpha');
    gate.release();
    await Promise.all([deleted, gate.passed]);
    expect((await keys(bucket)).filter((k) => k.startsWith('replicas/alpha/') || k.startsWith('tenants/alpha.'))).toEqual([]);
  });

  it("closes the tenant's open streams when it is deleted, so no transaction keeps its lock", async () => {
    const node = await startNode(new MemoryObjectStore());
    await node.directory.ensure('alpha', desired(['tok-alpha']));
    const client = node.client('alpha', 'tok-alpha');
    await client.execute('CREATE TABLE t (name TEXT)');
    const tx = await client.transaction('write');
    await tx.execute("INSERT INTO t VALUES ('uncommitted')");
    expect(node.server.streams.lockFor('alpha').holder).not.toBeNull();
    await node.directory.delete('alpha');
    // delete() closes the streams of the registry it was given; the server must be serving from that registry.
    expect(node.server.streams.lockFor('alpha').holder).toBeNull();
    tx.close();
  });

  it('refuses a request let in before its database was deleted and run after (its body still coming): no file of it comes back', async () => {
    const node = await startNode(new MemoryObjectStore());
    await node.directory.ensure('alpha', desired(['tok-alpha']));
    // A server of its own on the same directory, to see when the request has been let in.
    let letIn!: () => void;
    const authorized = new Promise<void>((resolve) => (letIn = resolve));
    const server = await startHranaServer({
      port: 0,
      engine: node.engine,
      streams: node.streams,
      authorize: async (r, t) => {
        const caller = await node.directory.authorize(r, t);
        letIn();
        return caller;
      },
      unserved: (t) => node.directory.unserved(t),
    });
    const body = JSON.stringify({ baton: null, requests: [{ type: 'execute', stmt: { sql: 'CREATE TABLE t (x)' } }, { type: 'close' }] });
    const socket = tcpConnect(server.port, '127.0.0.1');
    const answer = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      socket.on('end', () => resolve(text));
    });
    socket.write(`POST /v1/alpha/v2/pipeline HTTP/1.1\r\nhost: cw-db\r\nauthorization: Bearer tok-alpha\r\nconnection: close\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 10)}`);
    await authorized;
    await node.directory.delete('alpha');
    socket.end(body.slice(10));
    expect(await answer).toContain('"code":"TENANT_NOT_FOUND"');
    const file = node.engine.databasePath('alpha');
    expect([file, `${file}-wal`, `${file}-shm`].filter((f) => existsSync(f))).toEqual([]);
    await server.close();
  });

  it('restores every tenant of the bucket on a start with an empty data directory', async () => {
    const store = new MemoryObjectStore();
    const first = await startNode(store);
    await first.directory.ensure('alpha', desired(['tok-alpha']));
    const writer = first.client('alpha', 'tok-alpha');
    await writer.execute('CREATE TABLE t (name TEXT)');
    await writer.batch(["INSERT INTO t VALUES ('one')", "INSERT INTO t VALUES ('two')"], 'write');
    await first.directory.flushAll();

    const second = await startNode(store, { load: true });
    expect(await names(second.client('alpha', 'tok-alpha'))).toEqual(['one', 'two']);
    expect(await second.post('alpha', 'tok-wrong')).toMatchObject({ status: 401 });
  });

  it('answers 503 for a tenant whose copy cannot be restored, and serves the others', async () => {
    const store = new MemoryObjectStore();
    const first = await startNode(store);
    for (const tenant of ['alpha', 'beta']) {
      await first.directory.ensure(tenant, desired([`tok-${tenant}`], { durability: 'sync' }));
      await first.client(tenant, `tok-${tenant}`).execute(`CREATE TABLE t AS SELECT '${tenant}' AS name`);
    }
    const snapshots = (await keys(store, 'replicas/alpha/')).filter((k) => k.endsWith('.db.gz'));
    expect(snapshots.length).toBeGreaterThan(0);
    for (const key of snapshots) await store.put(key, 'not a gzipped database');

    const second = await startNode(store, { load: true });
    expect(await second.post('alpha', 'tok-alpha')).toEqual({ status: 503, body: expect.objectContaining({ code: 'DATABASE_UNAVAILABLE' }) });
    expect(await names(second.client('beta', 'tok-beta'))).toEqual(['beta']);
  });

  it('closes a database idle past the bound, opens it again on its next request, and goes on with the same generation', async () => {
    let clock = Date.now();
    const now = () => clock;
    const store = new MemoryObjectStore();
    const first = await startNode(store, { now, openDatabases: new OpenDatabases({ now }) });
    await first.directory.ensure('alpha', desired(['tok-alpha']));
    await first.directory.ensure('beta', desired(['tok-beta']));
    const alpha = first.client('alpha', 'tok-alpha');
    await alpha.execute('CREATE TABLE t (name TEXT)');
    await alpha.execute("INSERT INTO t VALUES ('one')");
    // beta is inside a transaction: its stream holds the connection, so it is never closed under it.
    const transaction = await first.client('beta', 'tok-beta').transaction('write');
    await transaction.execute('CREATE TABLE t (name TEXT)');
    await first.directory.flushAll();
    await copied(first, ['alpha', 'beta']);
    clock += 10 * 60_000;

    expect(await first.directory.closeIdle({ idleMs: 5 * 60_000, graceMs: 10_000 })).toBe(1);
    expect((await first.directory.describe('alpha'))?.open).toBe(false);
    expect((await first.directory.describe('beta'))?.open).toBe(true);
    await transaction.execute("INSERT INTO t VALUES ('kept')");
    await transaction.commit();

    await alpha.execute("INSERT INTO t VALUES ('two')");
    expect((await first.directory.describe('alpha'))?.open).toBe(true);
    expect(await names(alpha)).toEqual(['one', 'two']);
    await first.directory.flushAll();
    // One generation, one base snapshot: reopening took no new one.
    expect((await keys(store, 'replicas/alpha/')).filter((k) => k.endsWith('.db.gz'))).toHaveLength(1);

    const second = await startNode(store, { load: true });
    expect(await names(second.client('alpha', 'tok-alpha'))).toEqual(['one', 'two']);
    expect(await names(second.client('beta', 'tok-beta'))).toEqual(['kept']);
  });

  it('closes the least recently used past the bound of open databases, not one used within the grace', async () => {
    let clock = Date.now();
    const now = () => clock;
    const open = new OpenDatabases({ now });
    const node = await startNode(new MemoryObjectStore(), { now, openDatabases: open });
    for (const tenant of ['alpha', 'beta', 'gamma']) {
      await node.directory.ensure(tenant, desired([`tok-${tenant}`]));
      await node.client(tenant, `tok-${tenant}`).execute('SELECT 1');
      clock += 20_000;
    }
    await copied(node, ['alpha', 'beta', 'gamma']);
    // gamma was used last, at the time of the round: within the grace, so over a bound of 1 only alpha and beta go.
    clock -= 20_000;
    expect(await node.directory.closeIdle({ idleMs: 3_600_000, maxOpenPerShard: 1, graceMs: 10_000 })).toBe(2);
    expect(open.idleSince(Number.POSITIVE_INFINITY)).toEqual(['gamma']);
    expect((await node.client('alpha', 'tok-alpha').execute('SELECT 1 AS one')).rows[0]?.one).toBe(1);
    expect(open.isOpen('alpha')).toBe(true);
  });

  it('passes over a database a stream holds for the next over the bound, so the shard comes down to the bound', async () => {
    let clock = Date.now();
    const now = () => clock;
    const open = new OpenDatabases({ now });
    const node = await startNode(new MemoryObjectStore(), { now, openDatabases: open });
    for (const tenant of ['alpha', 'beta', 'gamma']) await node.directory.ensure(tenant, desired([`tok-${tenant}`]));
    // alpha, used first, is held by a stream inside a transaction: it cannot close, and must not take beta's place.
    const transaction = await node.client('alpha', 'tok-alpha').transaction('write');
    await transaction.execute('SELECT 1');
    clock += 20_000;
    for (const tenant of ['beta', 'gamma']) await node.client(tenant, `tok-${tenant}`).execute('SELECT 1');
    await copied(node, ['beta', 'gamma']);
    clock += 20_000;
    expect(await node.directory.closeIdle({ idleMs: 3_600_000, maxOpenPerShard: 1, graceMs: 10_000 })).toBe(2);
    expect(open.idleSince(Number.POSITIVE_INFINITY)).toEqual(['alpha']);
    await transaction.commit();
  });

  it('never waits on a database whose request is still running: the round closes the others at once', async () => {
    let clock = Date.now();
    const now = () => clock;
    const open = new OpenDatabases({ now });
    const node = await startNode(new MemoryObjectStore(), { now, openDatabases: open });
    for (const tenant of ['alpha', 'beta']) {
      await node.directory.ensure(tenant, desired([`tok-${tenant}`]));
      await node.client(tenant, `tok-${tenant}`).execute('SELECT 1');
    }
    await copied(node, ['alpha', 'beta']);
    // A request of alpha began long ago and still runs: it holds alpha's lock, as a pipeline request does.
    const request = {};
    await node.streams.lockFor('alpha').acquire(request, 1_000, () => new Error('not free'));
    clock += 10 * 60_000;
    const started = performance.now();
    expect(await node.directory.closeIdle({ idleMs: 5 * 60_000, maxOpenPerShard: 1, graceMs: 10_000 })).toBe(1);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(open.idleSince(Number.POSITIVE_INFINITY)).toEqual(['alpha']);
    node.streams.lockFor('alpha').release(request);
    expect(await node.directory.closeIdle({ idleMs: 5 * 60_000, graceMs: 10_000 })).toBe(1);
    expect(open.count).toBe(0);
  });

  it('keeps the project each database is in, across a restart, for sharing a shard out; one never told is a project of its own', async () => {
    const store = new MemoryObjectStore();
    const first = await startNode(store);
    await first.directory.ensure('alpha', desired(['tok-alpha'], { project: 'shop' }));
    await first.directory.ensure('beta', desired(['tok-beta']));
    // Asked again without it (an older operator): the project stays.
    await first.directory.ensure('alpha', desired(['tok-alpha']));
    expect([first.directory.projectOf('alpha'), first.directory.projectOf('beta'), first.directory.projectOf('nobody')]).toEqual(['shop', 'beta', 'nobody']);
    await first.directory.ensure('beta', desired(['tok-beta'], { project: 'blog' }));
    await first.close();
    const second = await startNode(store, { load: true });
    expect([second.directory.projectOf('alpha'), second.directory.projectOf('beta')]).toEqual(['shop', 'blog']);
  });

  it('on a start, opens each database only to start its generation and closes it again; a request opens it', async () => {
    const store = new MemoryObjectStore();
    const first = await startNode(store);
    for (const tenant of ['alpha', 'beta', 'gamma']) {
      await first.directory.ensure(tenant, desired([`tok-${tenant}`]));
      await first.client(tenant, `tok-${tenant}`).execute(`CREATE TABLE t AS SELECT '${tenant}' AS name`);
    }
    await first.directory.flushAll();

    const open = new OpenDatabases();
    const second = await startNode(store, { load: true, openDatabases: open });
    expect(open.count).toBe(0);
    expect(await names(second.client('beta', 'tok-beta'))).toEqual(['beta']);
    expect(open.idleSince(Number.POSITIVE_INFINITY)).toEqual(['beta']);
  });

  it("ships each tenant on rounds of its own: one tenant's upload still going does not hold back another's commits (found by a hostile run)", async () => {
    const bucket = new MemoryObjectStore();
    const gate = new GateStore(bucket, (key) => key.startsWith('replicas/alpha/') && key.includes('/segments/'));
    const node = await startNode(gate);
    await node.directory.ensure('alpha', desired(['tok-alpha']));
    await node.directory.ensure('beta', desired(['tok-beta']));
    const rounds = node.directory.shipEvery(10);
    try {
      await node.client('alpha', 'tok-alpha').execute('CREATE TABLE t (name TEXT)');
      await gate.reached;
      await node.client('beta', 'tok-beta').execute('CREATE TABLE t (name TEXT)');
      await expect.poll(async () => (await keys(bucket, 'replicas/beta/')).some((k) => k.includes('/segments/')), { timeout: 5_000 }).toBe(true);
    } finally {
      rounds.stop();
      gate.release();
    }
  });

  it('ships at most its cap of tenants at once, however many have commits pending (review-164 F8)', async () => {
    const bucket = new HeldSegments(new MemoryObjectStore());
    const node = await startNode(bucket, { shippingAtOnce: 2 });
    const tenants = await written(node, 5);
    bucket.reset();
    await node.directory.flushAll();
    expect(bucket.mostAtOnce).toBe(2);
    expect(new Set(bucket.arrivals)).toEqual(new Set(tenants));
  });

  it('begins each round with the tenants the cap left over: those shipped first are not served first again (review-164 F8)', async () => {
    const bucket = new HeldSegments(new MemoryObjectStore());
    const node = await startNode(bucket, { shippingAtOnce: 2 });
    const tenants = await written(node, 5);
    bucket.reset();
    bucket.hold = true;
    const rounds = node.directory.shipEvery(10);
    try {
      await expect.poll(() => bucket.arrivals.length, { timeout: 5_000 }).toBe(2);
      // The two shipping first have commits pending again by the time theirs land.
      for (const tenant of bucket.arrivals) await node.client(tenant, `tok-${tenant}`).execute("INSERT INTO t VALUES ('again')");
      bucket.release();
      await expect.poll(() => bucket.arrivals.length, { timeout: 5_000 }).toBe(7);
      // The three left over start before the two shipped first start again, but for one: two tenants picked in the
      // same round reach the bucket in either order (their segments are read and encoded first), so t4 and t0's
      // second may swap. Served first again, t0 and t1 would both start again before t4.
      expect(new Set(bucket.arrivals.slice(0, 6))).toEqual(new Set(tenants));
      expect(bucket.mostAtOnce).toBe(2);
    } finally {
      rounds.stop();
      bucket.release();
    }
  });

  it("counts a tenant against the cap while it uploads, not while its checkpoint waits for a transaction's lock (review-171 F1)", async () => {
    const bucket = new HeldSegments(new MemoryObjectStore());
    const node = await startNode(bucket, { shippingAtOnce: 2 });
    await written(node, 3);
    // t0 and t1 commit again and leave a transaction open: their checkpoints wait for the lock the stream holds.
    const batons = new Map<string, string | null>();
    for (const tenant of ['t0', 't1']) batons.set(tenant, (await pipeline(node, tenant, `tok-${tenant}`, null, ["INSERT INTO t VALUES ('x')", 'BEGIN', "INSERT INTO t VALUES ('y')"])).baton ?? null);
    bucket.reset();
    const rounds = node.directory.shipEvery(20);
    try {
      await expect.poll(() => bucket.arrivals, { timeout: 5_000 }).toEqual(expect.arrayContaining(['t0', 't1', 't2']));
    } finally {
      rounds.stop();
      for (const [tenant, baton] of batons) await pipeline(node, tenant, `tok-${tenant}`, baton, ['ROLLBACK']);
    }
  });

  it('flushes every tenant, the next starting as soon as any upload ends, not once the whole batch has (review-171 F4)', async () => {
    const bucket = new HeldSegments(new MemoryObjectStore());
    const node = await startNode(bucket, { shippingAtOnce: 2 });
    const tenants = await written(node, 3);
    bucket.reset();
    bucket.hold = true;
    bucket.holdOnly = 't0';
    const flushing = node.directory.flushAll();
    try {
      await expect.poll(() => bucket.arrivals, { timeout: 5_000 }).toEqual(expect.arrayContaining(['t1', 't2']));
    } finally {
      bucket.release();
    }
    await flushing;
    expect(new Set(bucket.arrivals)).toEqual(new Set(tenants));
  });

  it('goes on shipping a tenant while its snapshot uploads (found by a hostile run: a minute for 1 GiB, its WAL grew meanwhile)', async () => {
    await whileSnapshotHeld('alpha', 'tok-alpha', {}, async ({ bucket, node }) => {
      const alpha = node.client('alpha', 'tok-alpha');
      const segments = async () => (await keys(bucket, 'replicas/alpha/')).filter((k) => k.includes('/segments/')).length;
      const before = await segments();
      await alpha.execute("INSERT INTO t VALUES (x'00')");
      await expect.poll(segments, { timeout: 5_000 }).toBeGreaterThan(before);
    });
  }, 20_000);

  it("ships another project's commits while one project's uploads hold every place: it is lent one (review-174, the rounds' cap)", async () => {
    const bucket = new HeldSegments(new MemoryObjectStore());
    const node = await startNode(bucket, { shippingAtOnce: 2 });
    for (const [tenant, project] of [
      ['t0', 'p1'],
      ['t1', 'p1'],
      ['u', 'p2'],
    ] as const) {
      await node.directory.ensure(tenant, desired([`tok-${tenant}`], { project }));
      await node.client(tenant, `tok-${tenant}`).execute('CREATE TABLE t (name TEXT)');
    }
    await node.directory.flushAll();
    bucket.reset();
    bucket.hold = true;
    for (const tenant of ['t0', 't1']) await node.client(tenant, `tok-${tenant}`).execute("INSERT INTO t VALUES ('x')");
    const rounds = node.directory.shipEvery(10);
    try {
      await expect.poll(() => bucket.arrivals, { timeout: 5_000 }).toEqual(expect.arrayContaining(['t0', 't1']));
      await node.client('u', 'tok-u').execute("INSERT INTO t VALUES ('x')");
      await expect.poll(() => bucket.arrivals, { timeout: 3_000 }).toContain('u');
    } finally {
      rounds.stop();
      bucket.release();
    }
  });

  it("counts a snapshot upload against the rounds' cap: a tenant of the same project waits for its place (review-174)", async () => {
    await whileSnapshotHeld('big', 'tok-big', { shippingAtOnce: 1, project: 'p' }, async ({ bucket, gate, node }) => {
      await node.directory.ensure('small', desired(['tok-small'], { project: 'p' }));
      const segments = async () => (await keys(bucket, 'replicas/small/')).filter((k) => k.includes('/segments/')).length;
      await node.client('small', 'tok-small').execute('CREATE TABLE t (name TEXT)');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await segments()).toBe(0);
      gate.release();
      await expect.poll(segments, { timeout: 5_000 }).toBeGreaterThan(0);
    });
  }, 20_000);

  it("counts a tenant against the rounds' cap while its maintain ships and checkpoints under its lock (review-174)", async () => {
    const bucket = new MemoryObjectStore();
    let holding = false;
    const gate = new GateStore(bucket, (key) => holding && key.startsWith('replicas/a/') && key.includes('/segments/'));
    const node = await startNode(gate, { shippingAtOnce: 1 });
    for (const tenant of ['a', 'b']) {
      await node.directory.ensure(tenant, desired([`tok-${tenant}`], { project: 'p' }));
      await node.client(tenant, `tok-${tenant}`).execute('CREATE TABLE t (v BLOB)');
    }
    await node.directory.flushAll();
    const segments = async (tenant: string) => (await keys(bucket, `replicas/${tenant}/`)).filter((k) => k.includes('/segments/')).length;
    const shipped = await segments('a');
    // a's WAL past the checkpoint size, then a transaction holds its lock: a round ships it, its maintain waits.
    await node.client('a', 'tok-a').execute('INSERT INTO t SELECT zeroblob(100000) FROM generate_series(1, 50)');
    const { baton } = await pipeline(node, 'a', 'tok-a', null, ['BEGIN']);
    const rounds = node.directory.shipEvery(10);
    try {
      await expect.poll(() => segments('a'), { timeout: 5_000 }).toBeGreaterThan(shipped);
      // The commit ends the transaction; the maintain that waited ships it under the lock, and that upload is held.
      holding = true;
      await pipeline(node, 'a', 'tok-a', baton ?? null, ["INSERT INTO t VALUES (x'00')", 'COMMIT']);
      await gate.reached;
      const before = await segments('b');
      await node.client('b', 'tok-b').execute("INSERT INTO t VALUES (x'00')");
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await segments('b')).toBe(before);
      gate.release();
      await expect.poll(() => segments('b'), { timeout: 5_000 }).toBeGreaterThan(before);
    } finally {
      rounds.stop();
      gate.release();
    }
  });

  it("ships a sync tenant's commit before acknowledging it: restorable without flushAll", async () => {
    const store = new MemoryObjectStore();
    const first = await startNode(store);
    await first.directory.ensure('alpha', desired(['tok-alpha'], { durability: 'sync' }));
    const writer = first.client('alpha', 'tok-alpha');
    await writer.execute('CREATE TABLE t (name TEXT)');
    await writer.execute("INSERT INTO t VALUES ('acknowledged')");

    const second = await startNode(store, { load: true });
    expect(await names(second.client('alpha', 'tok-alpha'))).toEqual(['acknowledged']);
  });

  it("ships a sync tenant's commit before acknowledging it though the request then begins a transaction (found in review)", async () => {
    const store = new MemoryObjectStore();
    const first = await startNode(store);
    await first.directory.ensure('alpha', desired(['tok-alpha'], { durability: 'sync' }));
    await first.client('alpha', 'tok-alpha').execute('CREATE TABLE t (name TEXT)');
    const answer = await pipeline(first, 'alpha', 'tok-alpha', null, ["INSERT INTO t VALUES ('acknowledged')", 'BEGIN']);
    expect(answer.results?.map((r) => r.type)).toEqual(['ok', 'ok']);

    const second = await startNode(store, { load: true });
    expect(await names(second.client('alpha', 'tok-alpha'))).toEqual(['acknowledged']);
  });

  it('rolls back a transaction left open past the WAL bound, which a client committing and beginning again in every request kept from being emptied (found in review)', async () => {
    const node = await startNode(new MemoryObjectStore(), { maxWalBytes: 256 * 1024 });
    await node.directory.ensure('alpha', desired(['tok-alpha']));
    await node.client('alpha', 'tok-alpha').execute('CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB)');
    let baton: string | null = null;
    const wal = () => statSync(`${node.engine.databasePath('alpha')}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    let rolledBack = false;
    for (let i = 0; i < 20 && !rolledBack; i++) {
      const steps = [...(baton ? ['ROLLBACK'] : []), 'INSERT OR REPLACE INTO t VALUES (1, randomblob(100000))', 'BEGIN'];
      const answer = await pipeline(node, 'alpha', 'tok-alpha', baton, steps);
      // The stream's next request says why (as for a transaction open too long): its client sees the rollback.
      if (answer.status === 400) {
        expect(answer.error).toMatchObject({ code: 'TRANSACTION_ROLLED_BACK' });
        rolledBack = true;
      } else {
        expect(answer.results?.map((r) => r.type)).toEqual(steps.map(() => 'ok'));
        baton = answer.baton ?? null;
      }
    }
    expect(rolledBack).toBe(true);
    // Emptied once the transaction was rolled back: the WAL no longer grows by each request's commit.
    expect(wal()).toBeLessThan(256 * 1024);
  });

  it('reports as its last write the time its restore window reaches once shipped, whatever the clock reads after the commit', async () => {
    // The meter's clock a few milliseconds ahead stands for a millisecond passing between the capture and the
    // count on a loaded machine: the last write must not then sit past the newest restorable instant for good.
    const node = await startNode(new MemoryObjectStore(), { meter: new UsageMeter({ now: () => Date.now() + 5 }) });
    await node.directory.ensure('alpha', desired(['tok-alpha'], { durability: 'sync' }));
    const writer = node.client('alpha', 'tok-alpha');
    await writer.execute('CREATE TABLE t (name TEXT)');
    await writer.execute("INSERT INTO t VALUES ('last')");

    const description = await node.directory.describe('alpha');
    expect(description?.lastWriteAt).toBeTypeOf('number');
    expect(description?.restoreWindow?.latest).toBe(description?.lastWriteAt);
  });

  it('forks a tenant as it was at a time between two writes', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = Date.parse('2030-01-01T00:00:00Z');
    vi.setSystemTime(t0);
    const node = await startNode(new MemoryObjectStore());
    await node.directory.ensure('source', desired(['tok-src'], { durability: 'sync' }));
    const source = node.client('source', 'tok-src');
    vi.setSystemTime(t0 + 1000);
    await source.execute("CREATE TABLE t AS SELECT 'first' AS name");
    vi.setSystemTime(t0 + 2000);
    await source.execute("INSERT INTO t VALUES ('second')");
    vi.setSystemTime(t0 + 3000);

    expect(await node.directory.ensure('fork-early', desired(['tok-early'], { restoreFrom: { tenant: 'source', at: t0 + 1500 } }))).toEqual({ created: true });
    expect(await names(node.client('fork-early', 'tok-early'))).toEqual(['first']);
    await node.directory.ensure('fork-late', desired(['tok-late'], { restoreFrom: { tenant: 'source', at: t0 + 2000 } }));
    expect(await names(node.client('fork-late', 'tok-late'))).toEqual(['first', 'second']);
    // The fork is a database of its own.
    await node.client('fork-early', 'tok-early').execute("INSERT INTO t VALUES ('fork only')");
    expect(await names(source)).toEqual(['first', 'second']);
    expect(await node.directory.describe('fork-early')).toMatchObject({ restoredFrom: { tenant: 'source', at: t0 + 1500 } });
  });

  it('copies a tenant as of a point a little ahead of its clock (another machine’s now): waits for it, with the commits acknowledged just before', async () => {
    const node = await startNode(new MemoryObjectStore());
    await node.directory.ensure('source', desired(['tok-src']));
    await node.client('source', 'tok-src').batch(['CREATE TABLE t (name TEXT)', "INSERT INTO t VALUES ('acknowledged')"], 'write');
    // The operator asks for its "now" the moment after the commit, on a clock 300 ms ahead of cw-db's.
    const at = Date.now() + 300;

    expect(await node.directory.ensure('copy', desired(['tok-copy'], { restoreFrom: { tenant: 'source', at } }))).toEqual({ created: true });
    expect(Date.now()).toBeGreaterThan(at);
    expect(await names(node.client('copy', 'tok-copy'))).toEqual(['acknowledged']);
  });

  it('copies a tenant created a moment ago, its base snapshot still uploading: the copy waits for it', async () => {
    const { gate, node } = await createdWithBaseHeld('source', 'tok-src');
    const copying = node.directory.ensure('copy', desired(['tok-copy'], { restoreFrom: { tenant: 'source', at: Date.now() } }));
    gate.release();
    expect(await copying).toEqual({ created: true });
    expect((await node.client('copy', 'tok-copy').execute('SELECT count(*) AS n FROM sqlite_schema')).rows.map((r) => r.n)).toEqual([0]);
  });

  it('answers a copy once its own base snapshot is in the bucket, not while it is only on this disk', async () => {
    const bucket = new MemoryObjectStore();
    const gate = new GateStore(bucket, (key) => key.startsWith('replicas/copy/'));
    const node = await startNode(gate);
    await node.directory.ensure('source', desired(['tok-src']));
    await node.client('source', 'tok-src').batch(['CREATE TABLE t (name TEXT)', "INSERT INTO t VALUES ('copied')"], 'write');
    await node.directory.ship('source');
    let answered = false;
    const copying = node.directory.ensure('copy', desired(['tok-copy'], { restoreFrom: { tenant: 'source', at: Date.now() } })).then((r) => ((answered = true), r));
    await gate.reached;
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    gate.release();
    expect(await copying).toEqual({ created: true });
    await gate.passed;
    expect(await names(node.client('copy', 'tok-copy'))).toEqual(['copied']);
  });

  it('makes again at a start a copy whose process died before the copy reached the bucket, not open it empty (review-174 R2)', async () => {
    const store = new MemoryObjectStore();
    await copyDiedAfterMetadata(store, false);
    const restarted = await startNode(store, { load: true });
    expect(await names(restarted.client('copy', 'tok-copy'))).toEqual(['copied']);
  });

  it('restores a tenant in place under the same token, rolls back an open transaction, and undoes it through the undo point', async () => {
    const node = await startNode(new MemoryObjectStore());
    await node.directory.ensure('alpha', desired(['tok-alpha']));
    const alpha = node.client('alpha', 'tok-alpha');
    await alpha.batch(['CREATE TABLE t (name TEXT)', "INSERT INTO t VALUES ('kept')"], 'write');
    const before = Date.now();
    // The deletion is stamped strictly after `before` (stamps are whole milliseconds).
    await expect.poll(() => Date.now(), { timeout: 1_000 }).toBeGreaterThan(before);
    await alpha.execute('DELETE FROM t');
    const open = await node.client('alpha', 'tok-alpha').transaction('write');
    await open.execute("INSERT INTO t VALUES ('uncommitted')");

    const { restoredTo, undoPoint } = await node.directory.restoreInPlace('alpha', before, 'req-1');
    expect(restoredTo).toBe(before);
    expect(undoPoint).toBeGreaterThan(before);
    expect(await names(alpha)).toEqual(['kept']);
    await expect(open.execute('SELECT 1')).rejects.toThrow(/restored in place/);
    open.close();
    // The same request again (an operator that restarted before recording the answer) restores nothing twice.
    await alpha.execute("INSERT INTO t VALUES ('after')");
    expect(await node.directory.restoreInPlace('alpha', before, 'req-1')).toEqual({ restoredTo, undoPoint });
    expect(await names(alpha)).toEqual(['kept', 'after']);

    await node.directory.restoreInPlace('alpha', undoPoint, 'req-2');
    expect(await names(alpha)).toEqual([]);
    await expect(node.directory.restoreInPlace('alpha', before - 3_600_000)).rejects.toThrow(/outside the restore window \(\d{4}-.* to \d{4}-/);
    await expect(node.directory.restoreInPlace('alpha', Date.now() + 60_000)).rejects.toBeInstanceOf(RestorePointUnavailableError);
    await expect(node.directory.restoreInPlace('nobody', before)).rejects.toBeInstanceOf(TenantNotFoundError);
  });

  it('creates a tenant afresh after an attempt that failed once its file was open: the retry serves and ships its own file', async () => {
    const bucket = new MemoryObjectStore();
    // The creation's last step (reading the saved usage) fails the first time, after the file was opened.
    const node = await startNode(new ReadFails(bucket, 'tenants/alpha.usage.json'));
    await expect(node.directory.ensure('alpha', desired(['tok-alpha']))).rejects.toThrow(/did not answer/);
    expect((await keys(bucket)).filter((k) => k.includes('alpha'))).toEqual([]);

    await node.directory.ensure('alpha', desired(['tok-alpha'], { durability: 'sync' }));
    await node.client('alpha', 'tok-alpha').execute("CREATE TABLE t AS SELECT 'acknowledged' AS name");
    // A cw-db on an empty disk has it from the bucket: the commit was captured from the file the tenant is served from.
    const second = await startNode(bucket, { load: true });
    expect(await names(second.client('alpha', 'tok-alpha'))).toEqual(['acknowledged']);
  });

  it('refuses a restore before the window, in the future or from no tenant, and leaves nothing behind', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = Date.parse('2030-01-01T00:00:00Z');
    vi.setSystemTime(t0);
    const store = new MemoryObjectStore();
    const node = await startNode(store);
    await node.directory.ensure('source', desired(['tok-src'], { durability: 'sync' }));
    vi.setSystemTime(t0 + 1000);
    await node.client('source', 'tok-src').execute("CREATE TABLE t AS SELECT 'x' AS name");
    vi.setSystemTime(t0 + 2000);

    for (const restoreFrom of [
      { tenant: 'source', at: t0 - 1 },
      { tenant: 'source', at: t0 + 60_000 },
      { tenant: 'missing', at: t0 },
    ]) {
      await expect(node.directory.ensure('fork', desired(['tok-fork'], { restoreFrom }))).rejects.toBeInstanceOf(RestorePointUnavailableError);
    }
    await expect(node.directory.ensure('fork', desired(['tok-fork'], { restoreFrom: { tenant: 'source', at: t0 - 1 } }))).rejects.toThrow(
      /before the earliest point kept \(2030-01-01T00:00:00\.000Z\)/,
    );
    expect(await node.directory.describe('fork')).toBeUndefined();
    expect((await keys(store)).filter((k) => k.includes('fork'))).toEqual([]);
    expect(await node.post('fork', 'tok-fork')).toMatchObject({ status: 404 });
  });

  it('describes a tenant: rows read and written, size and restore window', async () => {
    const node = await startNode(new MemoryObjectStore(), { now: () => 1_900_000_000_000 });
    await node.directory.ensure('alpha', desired(['tok-alpha'], { durability: 'sync' }));
    const client = node.client('alpha', 'tok-alpha');
    await client.execute('CREATE TABLE t (name TEXT)');
    await client.execute("INSERT INTO t VALUES ('a'), ('b'), ('c')");
    await client.execute('SELECT * FROM t');
    await client.execute('SELECT * FROM t LIMIT 2');
    const description = await node.directory.describe('alpha');
    expect(description).toMatchObject({ tenant: 'alpha', createdAt: 1_900_000_000_000, durability: 'sync', rowsRead: 5, rowsWritten: 3 });
    expect(description?.sizeBytes).toBeGreaterThan(0);
    expect(description?.lastWriteAt).toEqual(expect.any(Number));
    expect(description?.restoreWindow?.latest).toBeGreaterThanOrEqual(description?.restoreWindow?.earliest ?? Infinity);
    expect(await node.directory.describe('nobody')).toBeUndefined();
  });

  it("counts the rows a sequence and a trigger write against the day's rows written (found in review: neither counted)", async () => {
    const node = await startNode(new MemoryObjectStore(), { now: () => 1_900_000_000_000 });
    await node.directory.ensure('counted', desired(['tok-counted']));
    const client = node.client('counted', 'tok-counted');
    await client.executeMultiple('CREATE TABLE t (v INTEGER); CREATE TABLE audit (v INTEGER); INSERT INTO t VALUES (1), (2), (3)');
    expect((await node.directory.describe('counted'))?.rowsWritten).toBe(3);
    await client.execute('CREATE TRIGGER copy AFTER INSERT ON t BEGIN INSERT INTO audit SELECT value FROM json_each(json_array(1, 2, 3, 4)); END');
    await client.execute('INSERT INTO t VALUES (4)');
    expect((await node.directory.describe('counted'))?.rowsWritten).toBe(3 + 1 + 4);
  });

  it('counts the rows a CREATE TABLE … AS SELECT copies, and none for a table renamed with those words in a comment (found in review: a rename counted every row, no deadline)', async () => {
    const node = await startNode(new MemoryObjectStore());
    await node.directory.ensure('renamed', desired(['tok-renamed']));
    const client = node.client('renamed', 'tok-renamed');
    await client.execute('CREATE TABLE t AS SELECT value AS v FROM generate_series(1, 5)');
    expect((await node.directory.describe('renamed'))?.rowsWritten).toBe(5);
    await client.execute('ALTER TABLE t RENAME TO t2 /* create as */');
    await client.executeMultiple('ALTER TABLE t2 RENAME TO t3; SELECT 1 AS created');
    expect((await node.directory.describe('renamed'))?.rowsWritten).toBe(5);
  });

  it('keeps the usage counters across a restart once saved', async () => {
    const store = new MemoryObjectStore();
    const first = await startNode(store);
    await first.directory.ensure('alpha', desired(['tok-alpha'], { durability: 'sync' }));
    const client = first.client('alpha', 'tok-alpha');
    await client.execute('CREATE TABLE t (name TEXT)');
    await client.execute("INSERT INTO t VALUES ('a'), ('b')");
    await client.execute('SELECT * FROM t');
    const before = await first.directory.describe('alpha');
    expect(before).toMatchObject({ rowsRead: 2, rowsWritten: 2 });
    await first.directory.saveUsage(new Map());

    const second = await startNode(store, { load: true });
    const after = await second.directory.describe('alpha');
    expect(after).toMatchObject({ rowsRead: 2, rowsWritten: 2, lastWriteAt: before?.lastWriteAt });
  });

  it("saves the other tenants' usage when one tenant's write fails, and that one's at the next save (review-178 L5)", async () => {
    const store = new MemoryObjectStore();
    const failing = new PutFails(store, 'tenants/alpha.usage.json');
    const node = await startNode(failing);
    for (const tenant of ['alpha', 'beta']) {
      await node.directory.ensure(tenant, desired([`tok-${tenant}`]));
      await node.client(tenant, `tok-${tenant}`).execute('CREATE TABLE t (name TEXT)');
    }
    const saved = new Map<string, string>();
    failing.armed = true;
    await node.directory.saveUsage(saved);
    const stored = new TenantMetaStore(store);
    expect((await stored.readUsage('beta'))?.value).toMatchObject({ rowsWritten: 0 });
    expect(await stored.readUsage('alpha')).toBeUndefined();
    await node.directory.saveUsage(saved);
    expect(await stored.readUsage('alpha')).toBeDefined();
  });
});

/**
 * Counts the segment uploads under way at once and notes whose each was, in the order they arrived; while `hold`,
 * they wait for `release()`.
 */
