import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../src/logging/log.ts';
import { MemoryObjectStore } from '../src/object-store/memory-object-store.ts';
import { GateStore } from '../src/object-store/testing/gate-object-store.ts';
import { CopyUnavailableError } from './tenant-admin-types.ts';
import { deleteReplica } from './replication/replica-admin.ts';
import { NotOwnerError } from './tenant-directory.ts';
import { DurabilityUnconfirmedError, LEASE_TAKEN } from './durability-unconfirmed.ts';
import { ownershipCluster } from './ownership-cluster.ts';
import { LeaseReads } from './cluster/testing/lease-reads.ts';
import { Ownership, type OwnershipHooks } from './cluster/ownership.ts';
import { TenantMetaStore } from './tenant-meta.ts';
import {
  closeNodes,
  copyDiedAfterMetadata,
  desired,
  EndsAfterPut,
  expiredWithUnshipped,
  grant,
  keys,
  lease,
  names,
  ReadFails,
  SlowPuts,
  staleTokenChange,
  startNode,
  whileSnapshotHeld,
} from './testing/directory-nodes.ts';

// cw-db as main.ts wires it, minus S3 and the timers (testing/directory-nodes.ts), driven with the official client.
afterEach(() => {
  vi.useRealTimers();
});
afterAll(closeNodes);

describe('TenantDirectory under leases (several replicas)', () => {
  it('leaves a database that exists whole when a creation routed before its handover fails to open it after (review-174 R5)', async () => {
    const store = new MemoryObjectStore();
    const flaky = new ReadFails(store, 'tenants/handed.usage.json');
    flaky.armed = false;
    const a = await startNode(flaky, { cluster: lease('a', 1).cluster });
    await a.directory.ensure('handed', desired(['tok']));
    await a.client('handed', 'tok').batch(['CREATE TABLE t (name TEXT)', "INSERT INTO t VALUES ('kept')"]);
    await a.directory.release('handed', 'handover');
    // The PUT that waited behind the handover takes the creation path (its metadata is there: restored, not fresh);
    // the opening fails once after the restore.
    flaky.armed = true;
    await expect(a.directory.ensure('handed', desired(['tok']))).rejects.toThrow(/did not answer/);
    expect(await store.get('tenants/handed.json')).toMatchObject({ kind: 'object' });
    const b = await startNode(store, { cluster: lease('b', 2).cluster });
    expect(await b.directory.adopt('handed', lease('b', 2).fencing)).toBe(true);
    expect(await names(b.client('handed', 'tok'))).toEqual(['kept']);
  });

  it('leaves a database another replica took over alone when its creation here fails after the lease went (found in review)', async () => {
    const store = new MemoryObjectStore();
    const flaky = new ReadFails(store, 'tenants/raced.usage.json');
    const first = lease('a', 1);
    const a = await startNode(flaky, { cluster: first.cluster });
    const second = lease('b', 2);
    const b = await startNode(store, { cluster: second.cluster });
    // While a opens the new database (its metadata written), its lease lapses and b takes the database over and writes.
    flaky.meanwhile = async () => {
      first.lose();
      expect(await b.directory.adopt('raced', second.fencing)).toBe(true);
      await b.client('raced', 'tok').batch(['CREATE TABLE t (name TEXT)', "INSERT INTO t VALUES ('on b')"]);
      await b.directory.ship('raced');
    };
    await expect(a.directory.ensure('raced', desired(['tok']))).rejects.toThrow(/did not answer/);
    // a's failed creation deleted nothing of it: the next owner finds what b wrote.
    expect(await store.get('tenants/raced.json')).toMatchObject({ kind: 'object' });
    const c = await startNode(store, { cluster: lease('c', 3).cluster });
    expect(await c.directory.adopt('raced', lease('c', 3).fencing)).toBe(true);
    expect(await names(c.client('raced', 'tok'))).toEqual(['on b']);
  });

  it("cuts a deleted database's leftovers before its creation again is recorded: a crash between the two restores nothing of them (review-174 R1)", async () => {
    const store = new MemoryObjectStore();
    const a = await startNode(store, { cluster: lease('a', 1).cluster });
    await a.directory.ensure('reused', desired(['old']));
    await a.client('reused', 'old').batch(['CREATE TABLE t (name TEXT)', "INSERT INTO t VALUES ('deleted')"]);
    await a.directory.ship('reused');
    const leftovers = await Promise.all((await keys(store, 'replicas/reused/generations/')).map(async (key) => [key, await store.get(key)] as const));
    await a.directory.delete('reused');
    for (const [key, got] of leftovers) if (got?.kind === 'object') await store.put(key, got.body);
    // b creates the id again and its process ends right after the metadata is written.
    const dying = new EndsAfterPut(store, 'tenants/reused.json');
    const b = await startNode(dying, { cluster: lease('b', 2).cluster });
    await expect(b.directory.ensure('reused', desired(['new']))).rejects.toThrow(/process gone/);
    // The creation is asked again on c: the metadata is there, so it restores, and finds only what b's creation cut.
    const c = await startNode(store, { cluster: lease('c', 3).cluster });
    await c.directory.ensure('reused', desired(['new']));
    expect((await c.client('reused', 'new').execute("SELECT name FROM sqlite_master WHERE type = 'table'")).rows).toEqual([]);
  });

  it("frees a database at a stop after a bounded wait for a snapshot still uploading, not the upload's whole time (review-174 R3)", async () => {
    const bucket = new MemoryObjectStore();
    const gate = new GateStore(bucket, (key) => key.startsWith('replicas/big/') && key.includes('/snapshots/') && !key.includes('/snapshots/0000000000-'));
    const node = await startNode(gate, { cluster: lease('a', 1).cluster, snapshotWaitOnReleaseMs: 300 });
    await node.directory.ensure('big', desired(['tok']));
    const rounds = node.directory.shipEvery(10);
    try {
      const client = node.client('big', 'tok');
      await client.execute('CREATE TABLE t (v BLOB)');
      for (let i = 0; i < 7; i++) await client.execute('INSERT INTO t SELECT zeroblob(100000) FROM generate_series(1, 100)');
      await gate.reached;
      // The snapshot's upload stays held: the stop goes on without it.
      const stop = node.directory.release('big', 'stop').then(() => 'stopped');
      expect(await Promise.race([stop, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 4_000))])).toBe('stopped');
    } finally {
      rounds.stop();
      gate.release();
    }
  });

  it('tells the client a sync commit is maybe lost when the lease read after its upload shows another replica took the database (review-174 R6)', async () => {
    const store = new MemoryObjectStore();
    let taken = false;
    const node = await startNode(store, {
      cluster: {
        ...lease('a', 1).cluster,
        confirm: async () => {
          if (taken) throw new DurabilityUnconfirmedError(LEASE_TAKEN);
          return true;
        },
      },
    });
    await node.directory.ensure('s', desired(['tok'], { durability: 'sync' }));
    const client = node.client('s', 'tok');
    await client.execute('CREATE TABLE t (name TEXT)');
    taken = true;
    const err = await client.execute("INSERT INTO t VALUES ('x')").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(String(err)).toMatch(/Another replica took the database over before the commit was confirmed; it may be lost/);
  });

  it('acknowledges a sync commit only while the lease is held; the next owner restores every acknowledged one and nothing later', async () => {
    const store = new MemoryObjectStore();
    const first = lease('a', 1);
    const a = await startNode(store, { cluster: first.cluster });
    await a.directory.ensure('moving', desired(['tok'], { durability: 'sync' }));
    expect((await a.directory.describe('moving'))?.replica).toBe('a');
    const client = a.client('moving', 'tok');
    await client.execute('CREATE TABLE t (v TEXT)');
    await client.execute("INSERT INTO t VALUES ('acknowledged')");

    // The lease is lost (a's deadline passed): its commit is not acknowledged, and its segment not uploaded.
    first.lose();
    await expect(client.execute("INSERT INTO t VALUES ('after the deadline')")).rejects.toThrow(/DURABILITY_UNAVAILABLE|copied to the object store/);
    await a.directory.release('moving', 'lost');

    const second = lease('b', 2);
    const b = await startNode(store, { cluster: second.cluster });
    expect(await b.directory.adopt('moving', second.fencing)).toBe(true);
    expect((await b.client('moving', 'tok').execute('SELECT v FROM t')).rows.map((r) => r.v)).toEqual(['acknowledged']);
    expect((await b.directory.describe('moving'))?.replica).toBe('b');
    // Each owner recorded where it took over before writing anything (a's creation from nothing), and writes under its epoch.
    expect(await keys(store, 'replicas/moving/epochs/')).toEqual([
      'replicas/moving/epochs/0000000001/follows/none',
      expect.stringMatching(/^replicas\/moving\/epochs\/0000000002\/follows\/e0000000001-\d{15}-[0-9a-f]{8}\/\d{10}$/),
    ]);
    await expect.poll(async () => (await keys(store, 'replicas/moving/generations/')).some((k) => k.includes('/e0000000002-')), { timeout: 5000 }).toBe(true);
  });

  it("refuses a sync commit once another replica took the database while this one's clock stood still (a paused VM): the lease read after the upload says so (review-164 F5)", async () => {
    const store = new MemoryObjectStore();
    const clocks = { a: 0, b: 0 };
    const owner = (name: 'a' | 'b', hooks: OwnershipHooks) =>
      new Ownership({ store, self: { name, nonce: `${name}-nonce`, url: `http://${name}`, adminUrl: `http://${name}` }, leaseMs: 3000, log: silentLogger, clock: () => clocks[name], hooks });
    let ownership: Ownership | undefined;
    const a = await startNode(store, {
      cluster: ownershipCluster(
        'a',
        () => ownership,
        async () => false,
      ),
    });
    ownership = owner('a', { tenants: async () => [], adopt: async () => false, drop: (tenant, reason) => a.directory.release(tenant, reason), discard: async () => {}, highestEpoch: async () => 0 });
    await ownership.tick();
    await a.directory.ensure('paused', desired(['tok'], { durability: 'sync' }));
    const client = a.client('paused', 'tok');
    await client.execute('CREATE TABLE t (v TEXT)');
    await client.execute("INSERT INTO t VALUES ('acknowledged')");

    // a's VM is paused: b's clock runs for 10 s, a's stands still, and b takes the database at epoch 2.
    const b = owner('b', { tenants: async () => ['paused'], adopt: async () => true, drop: async () => {}, discard: async () => {}, highestEpoch: async () => 0 });
    for (clocks.b = 0; clocks.b <= 10_000; clocks.b += 1000) await b.tick();
    expect(b.held().get('paused')).toBe(2);
    // By a's clock the lease still holds; the commit's segment lands, and the lease read after it shows b's.
    expect(ownership.surelyHeld('paused', 1)).toBe(true);
    await expect(client.execute("INSERT INTO t VALUES ('after the takeover')")).rejects.toThrow(/DURABILITY_UNAVAILABLE|copied to the object store/);
    expect(ownership.held().has('paused')).toBe(false);
  });

  it('tells the client a sync commit whose lease it could not read after the upload is unconfirmed, not "not copied" (review-171 F6)', async () => {
    const store = new MemoryObjectStore();
    const reads = new LeaseReads(store);
    let ownership: Ownership | undefined;
    const a = await startNode(store, {
      cluster: ownershipCluster(
        'a',
        () => ownership,
        async () => false,
      ),
    });
    ownership = new Ownership({
      store,
      confirmStore: reads,
      self: { name: 'a', nonce: 'a-nonce', url: 'http://a', adminUrl: 'http://a' },
      leaseMs: 3000,
      log: silentLogger,
      clock: () => 0,
      hooks: { tenants: async () => [], adopt: async () => false, drop: (tenant, reason) => a.directory.release(tenant, reason), discard: async () => {}, highestEpoch: async () => 0 },
    });
    await ownership.tick();
    await a.directory.ensure('unread', desired(['tok'], { durability: 'sync' }));
    const client = a.client('unread', 'tok');
    await client.execute('CREATE TABLE t (v TEXT)');
    reads.failing = true;
    await expect(client.execute("INSERT INTO t VALUES ('landed')")).rejects.toThrow(/could not confirm it still owns the database/);
    reads.failing = false;
    expect(ownership.surelyHeld('unread', 1)).toBe(true);
    // It stands here, as the answer says.
    expect((await a.client('unread', 'tok').execute('SELECT v FROM t')).rows.map((r) => r.v)).toEqual(['landed']);
  });

  it('ships what a handover leaves before the connection closes: nothing acknowledged is lost (found in review)', async () => {
    // As in a shard (run with --expose-gc): a closed connection is collected 100 ms later, which checkpoints and
    // deletes the WAL that queued commits are read from as their segments upload.
    setFlagsFromString('--expose-gc');
    (globalThis as { gc?: unknown }).gc ??= runInNewContext('gc');
    const store = new SlowPuts(new MemoryObjectStore());
    const first = lease('a', 1);
    const a = await startNode(store, { cluster: first.cluster });
    await a.directory.ensure('handed', desired(['tok'], { durability: 'async' }));
    const client = a.client('handed', 'tok');
    await client.execute('CREATE TABLE t (v BLOB)');
    // ~12 MB of frames (two segments), acknowledged at once (async) and not shipped yet (no timer here).
    await client.execute('INSERT INTO t SELECT randomblob(100000) FROM generate_series(1, 120)');
    await client.execute("INSERT INTO t VALUES ('last')");
    store.delayMs = 300; // a bucket's round trip, longer than the 100 ms before a closed connection is collected
    await a.directory.release('handed', 'handover');

    const second = lease('b', 2);
    const b = await startNode(store, { cluster: second.cluster });
    expect(await b.directory.adopt('handed', second.fencing)).toBe(true);
    expect((await b.client('handed', 'tok').execute('SELECT count(*) AS n FROM t')).rows[0]?.n).toBe(121);
  });

  it('takes a database back from the files kept when its lease expired here: what it never shipped reaches the bucket (review-164 F1)', async () => {
    const store = new MemoryObjectStore();
    const a = await expiredWithUnshipped(store, 'kept');

    // Taken back by the same process over its own lease (epoch 1, unwritten since): from the kept files.
    const second = lease('a', 2);
    expect(await a.directory.adopt('kept', second.fencing, 1)).toBe(true);
    expect(await names(a.client('kept', 'tok'), 't')).toEqual(['shipped', 'only on a']);
    await a.directory.ship('kept');
    expect(await keys(store, 'replicas/kept/epochs/0000000002/')).toEqual([expect.stringMatching(/^replicas\/kept\/epochs\/0000000002\/follows\/e0000000001-\d{15}-[0-9a-f]{8}\/\d{10}$/)]);
    // Another replica restoring it from the bucket finds both.
    const third = lease('b', 3);
    const b = await startNode(store, { cluster: third.cluster });
    expect(await b.directory.adopt('kept', third.fencing)).toBe(true);
    expect(await names(b.client('kept', 'tok'), 't')).toEqual(['shipped', 'only on a']);
  });

  it('never opens the files kept when its lease expired once another replica took the database, and discards them (review-164 F1)', async () => {
    const store = new MemoryObjectStore();
    const a = await expiredWithUnshipped(store, 'taken');

    // b takes it over (epoch 2) from the bucket, writes, and hands it back.
    const second = lease('b', 2);
    const b = await startNode(store, { cluster: second.cluster });
    expect(await b.directory.adopt('taken', second.fencing)).toBe(true);
    await b.client('taken', 'tok').execute("INSERT INTO t VALUES ('b wrote')");
    await b.directory.release('taken', 'handover');

    // a takes it at epoch 3. Even told it resumes (it may not: the lease it wrote over is b's, epoch 2), the files
    // it kept at epoch 1 are not those: it restores b's history.
    const third = lease('a', 3);
    expect(await a.directory.adopt('taken', third.fencing, 2)).toBe(true);
    expect(await names(a.client('taken', 'tok'), 't')).toEqual(['shipped', 'b wrote']);

    // Expired again, then seen taken by another replica: the kept files go.
    third.lose();
    await a.directory.release('taken', 'expired');
    expect(existsSync(a.engine.databasePath('taken'))).toBe(true);
    await a.directory.discard('taken');
    expect(existsSync(a.engine.databasePath('taken'))).toBe(false);
  });

  it("creates a database empty under its lease, following nothing, though a deleted one's leftovers of the same id are in the bucket (review-164 F2)", async () => {
    const store = new MemoryObjectStore();
    const a = await startNode(store, { cluster: lease('a', 1).cluster });
    await a.directory.ensure('reused', desired(['old-tok'], { durability: 'async' }));
    await a.client('reused', 'old-tok').batch(['CREATE TABLE t (name TEXT)', "INSERT INTO t VALUES ('deleted')"]);
    await a.directory.ship('reused');
    // The deleted database's generations land again after its deletion (a snapshot still uploading somewhere).
    const leftovers = await Promise.all((await keys(store, 'replicas/reused/generations/')).map(async (key) => [key, await store.get(key)] as const));
    await a.directory.delete('reused');
    for (const [key, got] of leftovers) if (got?.kind === 'object') await store.put(key, got.body);

    const b = await startNode(store, { cluster: lease('b', 2).cluster });
    await b.directory.ensure('reused', desired(['new-tok'], { durability: 'async' }));
    expect((await b.client('reused', 'new-tok').execute("SELECT name FROM sqlite_master WHERE type = 'table'")).rows).toEqual([]);
    expect(await keys(store, 'replicas/reused/epochs/0000000002/')).toEqual(['replicas/reused/epochs/0000000002/follows/none']);
  });

  it('hands a database over only once the snapshot it is uploading has landed: none lands after the lease is freed (review-164 F2)', async () => {
    await whileSnapshotHeld('big', 'tok', { cluster: lease('a', 1).cluster }, async ({ bucket, gate, node: a }) => {
      let released = false;
      const release = a.directory.release('big', 'handover').then(() => (released = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(released).toBe(false);
      gate.release();
      await release;
      expect((await keys(bucket, 'replicas/big/')).filter((k) => k.includes('/snapshots/') && !k.includes('/snapshots/0000000000-'))).toHaveLength(1);
    });
  }, 20_000);

  it('restores a database created while its metadata is in the bucket (handed over from here while the creation waited), not empty', async () => {
    const store = new MemoryObjectStore();
    const a = await startNode(store, { cluster: lease('a', 1).cluster });
    await a.directory.ensure('handed', desired(['tok'], { durability: 'async' }));
    await a.client('handed', 'tok').batch(['CREATE TABLE t (name TEXT)', "INSERT INTO t VALUES ('kept')"]);
    await a.directory.release('handed', 'handover');
    // The creation took the lease the handover freed (review-164 F6): the database is restored as by a takeover.
    await a.directory.ensure('handed', desired(['tok'], { durability: 'async' }));
    expect(await names(a.client('handed', 'tok'), 't')).toEqual(['kept']);
  });

  it('makes again at its takeover a copy whose creating process died before the copy reached the bucket, not adopt it empty (review-174 R2)', async () => {
    const store = new MemoryObjectStore();
    const at = await copyDiedAfterMetadata(store, true);
    expect(await store.get('tenants/copy.json')).toMatchObject({ kind: 'object' });
    expect((await new TenantMetaStore(store).get('copy'))?.creating).toEqual({ restoreFrom: { tenant: 'source', at } });
    // A round on c takes the lease (epoch 3) and adopts it; the operator's PUT, retried, reaches the database there.
    const c = await startNode(store, { cluster: lease('c', 3).cluster });
    expect(await c.directory.adopt('copy', lease('c', 3).fencing)).toBe(true);
    expect(await c.directory.ensure('copy', desired(['tok-copy'], { restoreFrom: { tenant: 'source', at } }))).toEqual({ created: false });
    expect(await names(c.client('copy', 'tok-copy'))).toEqual(['copied']);
    expect((await new TenantMetaStore(store).get('copy'))?.creating).toBeUndefined();
  });

  it('makes the copy when its creation, asked again, finds it marked as not made (review-174 R2)', async () => {
    // What this guards: the creation under a lease reads the metadata also for a PUT carrying restore_from (since
    // 9ab571c6, tested by 'restores a copy that exists…'), so it must tell a marked one from a copy that exists. Taken
    // as existing (the `creating` check dropped), the copy's id is restored from the bucket, where nothing of it is:
    // 'no such table' (review-178: before 9ab571c6 the metadata was not read for such a PUT, so this passed there).
    const store = new MemoryObjectStore();
    const at = await copyDiedAfterMetadata(store, true);
    const c = await startNode(store, { cluster: { ...lease('c', 3).cluster, shipElsewhere: async () => true } });
    expect(await c.directory.ensure('copy', desired(['tok-copy'], { restoreFrom: { tenant: 'source', at } }))).toEqual({ created: true });
    expect(await names(c.client('copy', 'tok-copy'))).toEqual(['copied']);
  });

  it('holds a copy that can no longer be made (its source deleted) and answers why, rather than fail on every replica round after round (review-178 L3)', async () => {
    const store = new MemoryObjectStore();
    const at = await copyDiedAfterMetadata(store, true);
    await deleteReplica({ store, prefix: 'replicas/', tenant: 'source' });
    const c = await startNode(store, { cluster: { ...lease('c', 3).cluster, shipElsewhere: async () => true } });
    // Adopted (its lease kept here, not freed for the next replica to fail the same), nothing of it on the disk.
    expect(await c.directory.adopt('copy', lease('c', 3).fencing)).toBe(true);
    expect(existsSync(c.engine.databasePath('copy'))).toBe(false);
    expect(await c.post('copy', 'tok-copy')).toEqual({
      status: 503,
      body: expect.objectContaining({ code: 'DATABASE_UNAVAILABLE', message: expect.stringMatching(/can no longer be made.*delete the database/) }),
    });
    // The operator's PUT is told why (422 RESTORE_POINT_UNAVAILABLE), and its deletion ends it.
    await expect(c.directory.ensure('copy', desired(['tok-copy'], { restoreFrom: { tenant: 'source', at } }))).rejects.toThrow(CopyUnavailableError);
    await c.directory.delete('copy');
    expect(await new TenantMetaStore(store).get('copy')).toBeUndefined();
  });

  it("never lands a stale owner's token change over its successor's: the write goes over the version it read (review-164 F10)", async () => {
    const { store, b, stale, land } = await staleTokenChange('racy');
    await b.directory.ensure('racy', desired(['rotated']));
    land();
    await expect(stale).rejects.toThrow(NotOwnerError);
    expect((await new TenantMetaStore(store).get('racy'))?.tokens).toEqual([grant('rotated')]);
  });

  it("does not acknowledge a token change that landed after its owner lost the database, and the successor's next change replaces it (review-164 F10)", async () => {
    // b read the metadata before a's write lands: nobody wrote it since a read it, so that write lands.
    const { store, b, stale, land } = await staleTokenChange('late');
    land();
    await expect(stale).rejects.toThrow(NotOwnerError);
    expect((await new TenantMetaStore(store).get('late'))?.tokens).toHaveLength(2);
    // The operator's change, asked again, reaches b: written over what a left, though b's own copy predates it.
    await b.directory.ensure('late', desired(['rotated']));
    expect((await new TenantMetaStore(store).get('late'))?.tokens).toEqual([grant('rotated')]);
    expect((await b.post('late', 'stale')).status).toBe(401);
  });

  it('restores a copy that exists when its creation is asked again after a handover, not copy it again over what was written since', async () => {
    const store = new MemoryObjectStore();
    const a = await startNode(store, { cluster: { ...lease('a', 1).cluster, shipElsewhere: async () => true } });
    await a.directory.ensure('source', desired(['tok-src']));
    await a.client('source', 'tok-src').batch(['CREATE TABLE t (name TEXT)', "INSERT INTO t VALUES ('copied')"], 'write');
    await a.directory.ship('source');
    const copy = desired(['tok-copy'], { restoreFrom: { tenant: 'source', at: Date.now() } });
    await a.directory.ensure('copy', copy);
    await a.client('copy', 'tok-copy').execute("INSERT INTO t VALUES ('written to the copy')");
    await a.directory.release('copy', 'handover');
    // The operator's PUT, its answer lost, is asked again and takes the lease the handover freed.
    expect(await a.directory.ensure('copy', copy)).toEqual({ created: true });
    expect(await names(a.client('copy', 'tok-copy'))).toEqual(['copied', 'written to the copy']);
  });

  /**
   * a restores 'alpha' in place to `before` (its rows then: 'kept'; with `deleteAfter`, deleted after that point) and
   * its write of `held` waits until b has taken the database over at epoch 2; answers the restore's outcome.
   */
  async function restoreRacedByTakeover(held: (key: string) => boolean, deleteAfter: boolean) {
    const store = new MemoryObjectStore();
    let holding = false;
    const gate = new GateStore(store, (key) => holding && held(key));
    const first = lease('a', 1);
    const a = await startNode(gate, { cluster: first.cluster });
    await a.directory.ensure('alpha', desired(['tok']));
    const alpha = a.client('alpha', 'tok');
    await alpha.batch(['CREATE TABLE t (name TEXT)', "INSERT INTO t VALUES ('kept')"], 'write');
    await a.directory.ship('alpha');
    const before = Date.now();
    await expect.poll(() => Date.now(), { timeout: 1_000 }).toBeGreaterThan(before);
    if (deleteAfter) {
      await alpha.execute('DELETE FROM t');
      await a.directory.ship('alpha');
    }
    holding = true;
    const restoring = a.directory.restoreInPlace('alpha', before, 'req-1');
    restoring.catch(() => {});
    await gate.reached;
    first.pause();
    const b = await startNode(store, { cluster: lease('b', 2).cluster });
    expect(await b.directory.adopt('alpha', lease('b', 2).fencing)).toBe(true);
    gate.release();
    return { store, before, restoring };
  }

  it('does not answer an in-place restore whose owner lost the database while it ran: no record, and the retry restores (review-178 R-A)', async () => {
    // The restored generation's base snapshot is held on its way (its owner paused); b restores the deletion.
    const { store, before, restoring } = await restoreRacedByTakeover((key) => key.startsWith('replicas/alpha/') && key.includes('/snapshots/0000000000-'), true);
    await expect(restoring).rejects.toThrow(NotOwnerError);
    const c = await startNode(store, { cluster: lease('c', 3).cluster });
    expect(await c.directory.adopt('alpha', lease('c', 3).fencing)).toBe(true);
    expect(await names(c.client('alpha', 'tok'))).toEqual([]);
    expect((await new TenantMetaStore(store).get('alpha'))?.lastInPlaceRestore).toBeUndefined();
    // The operator's retry restores (before, it answered the record a wrote, and restored nothing).
    await c.directory.restoreInPlace('alpha', before, 'req-1');
    expect(await names(c.client('alpha', 'tok'))).toEqual(['kept']);
  });

  it('does not answer an in-place restore whose record landed after its owner lost the database: the successor read the metadata before it (review-178 R-A)', async () => {
    // The restored generation landed (the first lease read passed); b takes over before the record lands.
    const { restoring } = await restoreRacedByTakeover((key) => key === 'tenants/alpha.json', false);
    await expect(restoring).rejects.toThrow(NotOwnerError);
  });

  it('removes what an adopt that failed after its restore left on the disk (review-164 F12)', async () => {
    const bucket = new MemoryObjectStore();
    const a = await startNode(bucket, { cluster: lease('a', 1).cluster });
    await a.directory.ensure('failing', desired(['tok']));
    await a.client('failing', 'tok').execute('CREATE TABLE t (name TEXT)');
    await a.directory.release('failing', 'handover');
    // Restored, then its usage cannot be read: the opening fails, and a next owner here restores again.
    const b = await startNode(new ReadFails(bucket, 'tenants/failing.usage.json'), { cluster: lease('b', 2).cluster });
    await expect(b.directory.adopt('failing', lease('b', 2).fencing)).rejects.toThrow(/did not answer/);
    expect(existsSync(b.engine.databasePath('failing'))).toBe(false);
  });

  it('creates a database only with its lease, and forgets a tenant adopted after its deletion', async () => {
    const store = new MemoryObjectStore();
    const taken = lease('a', 1);
    taken.lose();
    const a = await startNode(store, { cluster: taken.cluster });
    await expect(a.directory.ensure('elsewhere', desired(['tok']))).rejects.toThrow(/Another replica owns/);
    expect(await keys(store, 'tenants/')).toEqual([]);
    expect(await a.directory.adopt('gone', lease('a', 2).fencing)).toBe(false);
  });
});
