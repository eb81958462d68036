// The replica's behaviour against one ObjectStore: run on MemoryObjectStore (unit) and on MinIO (integration).
import { readdirSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { listAll } from '../../../src/object-store/list-all.ts';
import type { ObjectStore } from '../../../src/object-store/object-store.ts';
import { CountingObjectStore } from '../../../src/object-store/testing/counting-object-store.ts';
import { FaultObjectStore } from '../../../src/object-store/testing/fault-object-store.ts';
import { ForwardingObjectStore } from '../../../src/object-store/testing/forwarding-object-store.ts';
import type { PutBody, PutOptions, PutResult } from '../../../src/object-store/object-store.ts';
import { deleteReplica, pruneReplica, restoreWindow } from '../replica-admin.ts';
import { restoreDatabase, RestorePointUnavailableError } from '../restore.ts';
import { recordTakeover } from '../history.ts';
import { tenantRoot } from '../bucket-layout.ts';
import { walSize } from '../wal-file.ts';
import { copyDatabaseFile } from '../snapshot-file.ts';
import { openTenantDb, TenantFixture } from './tenant-fixture.ts';

async function keysUnder(store: ObjectStore, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const { key } of listAll(store, prefix)) keys.push(key);
  return keys;
}

export function describeReplicaSuite(name: string, makeStore: () => ObjectStore): void {
  describe(name, () => {
    const fixtures: TenantFixture[] = [];
    /** A tenant with its generation started, on `store` (default: a new store of the suite's). */
    const fixture = async (options: ConstructorParameters<typeof TenantFixture>[1] = {}, store = makeStore()): Promise<TenantFixture> => {
      const f = new TenantFixture(store, options);
      fixtures.push(f);
      await (
        await f.replica.startGeneration(f.checkpoint)
      ).upload;
      return f;
    };
    afterEach(() => {
      for (const f of fixtures.splice(0)) f.close();
    });
    /**
     * What a successor owner does: restores what the bucket holds of `stale`'s tenant, records where it took over,
     * and starts writing under epoch 2 (its clock at 2,000,000); answers it and where its restore reached.
     */
    const takeOver = async (stale: TenantFixture): Promise<{ successor: TenantFixture; nextSeq: number | undefined }> => {
      const successor = new TenantFixture(stale.store, { prefix: stale.prefix, epoch: 2 });
      fixtures.push(successor);
      successor.db.close();
      const restored = await restoreDatabase({ store: stale.store, prefix: stale.prefix, tenant: stale.tenant, targetPath: successor.dbPath });
      await recordTakeover(stale.store, tenantRoot(stale.prefix, stale.tenant), { epoch: 2, follows: restored?.reached ?? null });
      successor.db = openTenantDb(successor.dbPath);
      successor.clock.time = 2_000_000;
      await successor.startGeneration({ epoch: 2 });
      return { successor, nextSeq: restored?.reached.nextSeq };
    };

    it('never restores what a stale owner wrote after its successor took the tenant over', async () => {
      const stale = await fixture({ epoch: 1 });
      await stale.run('CREATE TABLE t (v TEXT)');
      await stale.run("INSERT INTO t VALUES ('first owner')");
      await stale.replica.flush();

      // The successor restores what the bucket holds, records where it took over, and writes under epoch 2.
      const { successor, nextSeq } = await takeOver(stale);
      expect(nextSeq).toBe(1);
      await successor.run("INSERT INTO t VALUES ('second owner')");
      await successor.replica.flush();

      // The stale owner, not knowing, goes on: a segment in its generation, then a whole new generation.
      stale.clock.tick(60_000);
      await stale.run("INSERT INTO t VALUES ('stale segment')");
      await stale.replica.flush();
      await stale.startGeneration({ epoch: 1 });
      await stale.run("INSERT INTO t VALUES ('stale generation')");
      await stale.replica.flush();

      expect((await successor.restoreRows()).rows).toEqual(['first owner', 'second owner']);
      // A time before the successor's base (and after the stale segment): the first owner's state as the successor
      // took it over, without the stale segment.
      expect((await successor.restoreRows({ at: 1_500_000 })).rows).toEqual(['first owner']);
    });

    it('uploads nothing once its guard refuses (a lease no longer surely held)', async () => {
      let held = true;
      const f = await fixture({
        guard: () => {
          if (!held) throw new Error('lease lost');
        },
      });
      await f.run('CREATE TABLE t (v TEXT)');
      await f.replica.flush();
      held = false;
      await f.run("INSERT INTO t VALUES ('unshipped')");
      await expect(f.replica.flush()).rejects.toThrow('lease lost');
      expect((await f.restoreRows()).rows).toEqual([]);
    });

    it('round-trips committed rows through the bucket into a fresh file', async () => {
      const f = await fixture();
      f.clock.tick();
      expect(await f.run('CREATE TABLE t (v TEXT)')).toBe(true);
      for (let i = 0; i < 20; i++) await f.run(`INSERT INTO t VALUES ('row ${i}')`);
      const last = f.clock.tick();
      await f.run("INSERT INTO t VALUES ('last')");
      expect(await f.replica.capture()).toBeUndefined();
      await f.replica.flush();
      expect(f.replica.pendingBytes).toBe(0);

      const restored = await f.restoreRows();
      expect(restored.rows).toEqual([...Array.from({ length: 20 }, (_, i) => `row ${i}`), 'last']);
      expect(restored.restoredTo).toBe(last);
    });

    it('restores to a time between two commits: the first only', async () => {
      const f = await fixture();
      await f.run('CREATE TABLE t (v TEXT)');
      const first = f.clock.tick();
      await f.run("INSERT INTO t VALUES ('a')");
      f.clock.tick();
      await f.run("INSERT INTO t VALUES ('b')");
      await f.replica.flush();

      expect(await f.restoreRows({ at: first + 500 })).toEqual({ restoredTo: first, rows: ['a'] });
      expect((await f.restoreRows()).rows).toEqual(['a', 'b']);
    });

    it('never ships a rolled-back transaction that spilled into the WAL', async () => {
      const f = await fixture();
      await f.run('CREATE TABLE t (v TEXT)');
      await f.replica.flush();
      f.db.pragma('cache_size = 10');
      const before = walSize(`${f.dbPath}-wal`);
      f.db.exec('BEGIN');
      const insert = f.db.prepare('INSERT INTO t VALUES (?)');
      for (let i = 0; i < 2000; i++) insert.run([`doomed ${i} ${'x'.repeat(200)}`]);
      expect(walSize(`${f.dbPath}-wal`)).toBeGreaterThan(before); // it did spill
      f.db.exec('ROLLBACK');
      expect(await f.replica.capture()).toBeUndefined();
      expect(f.replica.pendingBytes).toBe(0);

      // The next commit overwrites part of the spilled frames; only it is shipped.
      await f.run("INSERT INTO t VALUES ('kept')");
      await f.replica.flush();
      expect((await f.restoreRows()).rows).toEqual(['kept']);
    });

    it('keeps shipping across checkpoints', async () => {
      const f = await fixture({ checkpointBytes: 1 });
      await f.run('CREATE TABLE t (v TEXT)');
      await f.run("INSERT INTO t VALUES ('before')");
      await f.replica.flush();
      await (
        await f.replica.maintain(f.checkpoint)
      ).upload;
      expect(walSize(`${f.dbPath}-wal`)).toBe(0);

      await f.run("INSERT INTO t VALUES ('after 1')");
      await (
        await f.replica.maintain(f.checkpoint)
      ).upload; // captured, shipped, then checkpointed
      await f.run("INSERT INTO t VALUES ('after 2')");
      await f.replica.flush();
      expect((await f.restoreRows()).rows).toEqual(['before', 'after 1', 'after 2']);
    });

    it('restores from the latest snapshot, reading only the segments after it', async () => {
      const counting = new CountingObjectStore(makeStore());
      const f = new TenantFixture(counting, { snapshotEveryBytes: 1 });
      fixtures.push(f);
      await (
        await f.replica.startGeneration(f.checkpoint)
      ).upload;
      await f.run('CREATE TABLE t (v TEXT)');
      await f.replica.flush();
      const early = f.clock.tick();
      await f.run("INSERT INTO t VALUES ('one')");
      await f.replica.flush();
      f.clock.tick();
      await (
        await f.replica.maintain(f.checkpoint)
      ).upload; // snapshot 2: both segments are in it
      f.clock.tick();
      await f.run("INSERT INTO t VALUES ('two')");
      await f.replica.flush();

      counting.reset();
      expect((await f.restoreRows({ store: counting })).rows).toEqual(['one', 'two']);
      const segmentReads = counting.calls.filter((c) => c.op === 'get' && c.key.includes('/segments/'));
      expect(segmentReads.map((c) => c.key.split('/segments/')[1]?.slice(0, 10))).toEqual(['0000000002']);

      // Before that snapshot, the base and the early segments still serve.
      expect(await f.restoreRows({ at: early })).toEqual({ restoredTo: early, rows: ['one'] });
    });

    it('stops the restore at a gap in the segments', async () => {
      const f = await fixture();
      await f.run('CREATE TABLE t (v TEXT)');
      await f.replica.flush();
      const first = f.clock.tick();
      await f.run("INSERT INTO t VALUES ('a')");
      await f.replica.flush();
      f.clock.tick();
      await f.run("INSERT INTO t VALUES ('b')");
      await f.replica.flush();
      f.clock.tick();
      await f.run("INSERT INTO t VALUES ('c')");
      await f.replica.flush();

      const segments = (await keysUnder(f.store, f.prefix)).filter((k) => k.includes('/segments/'));
      expect(segments).toHaveLength(4);
      await f.store.delete(segments[2] as string);
      expect(await f.restoreRows()).toEqual({ restoredTo: first, rows: ['a'] });
    });

    it('cuts a transaction bigger than a segment into parts, one per segment, and restores it whole', async () => {
      const f = await fixture({ maxSegmentBytes: 64 * 1024 });
      await f.run('CREATE TABLE t (v TEXT)');
      const before = f.clock.tick();
      await f.run("INSERT INTO t VALUES ('before')");
      const big = f.clock.tick();
      await f.run(
        "INSERT INTO t SELECT 'big ' || value || ' ' || hex(randomblob(500)) FROM json_each((SELECT json_group_array(0) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400) SELECT i FROM n)))",
      );
      f.clock.tick();
      await f.run("INSERT INTO t VALUES ('after')");
      await f.replica.flush();

      const segments = (await keysUnder(f.store, f.prefix)).filter((k) => k.includes('/segments/'));
      expect(segments.length).toBeGreaterThan(6); // ~420 KiB of frames in 64 KiB segments
      const restored = await f.restoreRows();
      expect(restored.rows).toHaveLength(402);
      expect(restored.rows[0]).toBe('before');
      expect(restored.rows.at(-1)).toBe('after');
      expect(await f.restoreRows({ at: big - 1 })).toEqual({ restoredTo: before, rows: ['before'] });
      expect((await f.restoreRows({ at: big })).rows).toHaveLength(401);

      // The last part's segment lost (an upload cut short): the restore ends before the transaction, never in it.
      const parts = segments.slice(1, -1);
      await f.store.delete(parts.at(-1) as string);
      expect(await f.restoreRows()).toEqual({ restoredTo: before, rows: ['before'] });
    });

    it('a takeover that stops before a cut commit records where its earlier commits were applied from (found in review)', async () => {
      const stale = await fixture({ epoch: 1, maxSegmentBytes: 64 * 1024 });
      await stale.run('CREATE TABLE t (v TEXT)');
      await stale.replica.flush();
      stale.clock.tick();
      await stale.run("INSERT INTO t VALUES ('small')"); // queued with the big one: they share a segment
      stale.clock.tick();
      await stale.run("INSERT INTO t SELECT 'big ' || value || ' ' || hex(randomblob(500)) FROM generate_series(1, 400)");
      await stale.replica.flush();
      // The stale owner's upload of the big commit's last part never happened (it lost the lease mid-way).
      const segments = (await keysUnder(stale.store, stale.prefix)).filter((k) => k.includes('/segments/'));
      await stale.store.delete(segments.at(-1) as string);

      const { successor } = await takeOver(stale);
      expect(successor.db.prepare('SELECT v FROM t').pluck().all()).toEqual(['small']); // the successor serves 'small'
      await successor.run("INSERT INTO t VALUES ('second owner')");
      await successor.replica.flush();

      expect((await successor.restoreRows()).rows).toEqual(['small', 'second owner']);
      // Between 'small' and the successor's base: the state the successor took over, which holds 'small'.
      expect((await successor.restoreRows({ at: 1_500_000 })).rows).toEqual(['small']);
    });

    it('writes segments without a part of a cut commit as version 1 (read by cw-db before parts), the others as 2', async () => {
      const f = await fixture({ maxSegmentBytes: 64 * 1024 });
      await f.run('CREATE TABLE t (v TEXT)');
      await f.replica.flush();
      await f.run('INSERT INTO t SELECT hex(randomblob(500)) FROM generate_series(1, 400)');
      await f.run("INSERT INTO t VALUES ('after')");
      await f.replica.flush();
      const versions: number[] = [];
      for (const key of (await keysUnder(f.store, f.prefix)).filter((k) => k.includes('/segments/')).sort()) {
        const object = await f.store.get(key);
        if (object?.kind === 'object') versions.push(gunzipSync(object.body).readUInt32BE(4));
      }
      expect(versions[0]).toBe(1);
      expect(versions.slice(1).every((v) => v === 2)).toBe(true);
      expect(versions.length).toBeGreaterThan(3);
    });

    it("reads a big transaction's WAL a chunk at a time, serving the event loop between chunks, and queues all of it", async () => {
      // cw-db's main process serves every tenant: a gigabyte written at once is about a second of checksums.
      const f = await fixture({ maxSegmentBytes: 64 * 1024 * 1024 });
      await f.run('CREATE TABLE t (v BLOB)');
      f.db.exec('INSERT INTO t SELECT randomblob(100000) FROM generate_series(1, 200)'); // some 20 MB of WAL
      let turns = 0;
      const ticker = setInterval(() => (turns += 1), 0);
      try {
        expect(await f.replica.capture()).toBeDefined();
      } finally {
        clearInterval(ticker);
      }
      expect(turns).toBeGreaterThanOrEqual(3); // 4 MiB chunks: the loop ran between them
      await f.replica.flush();
      expect((await f.restoreRows()).rows).toHaveLength(200);
    });

    it('runs captures one after another: two asked at once queue each commit once', async () => {
      // A WebSocket stream closed while its request runs frees the tenant's lock before that request's capture ends.
      const f = await fixture({ maxSegmentBytes: 64 * 1024 * 1024 });
      await f.run('CREATE TABLE t (v BLOB)');
      await f.replica.flush();
      f.db.exec('INSERT INTO t SELECT randomblob(100000) FROM generate_series(1, 100)'); // some 10 MB of WAL
      const [first, second] = await Promise.all([f.replica.capture(), f.replica.capture()]);
      expect(first).toBeDefined();
      expect(second).toBeUndefined(); // nothing new by then
      expect(f.replica.pendingBytes).toBeLessThan(walSize(`${f.dbPath}-wal`));
      await f.replica.flush();
      expect((await f.restoreRows()).rows).toHaveLength(100);
    });

    it('leaves the checkpoint for later when more than a segment waits to upload, shipping it without the lock first', async () => {
      const f = await fixture({ maxSegmentBytes: 64 * 1024, checkpointBytes: 1 });
      await f.run('CREATE TABLE t (v TEXT)');
      await f.run('INSERT INTO t SELECT hex(randomblob(500)) FROM generate_series(1, 400)');
      const pending = f.replica.pendingBytes;
      expect(pending).toBeGreaterThan(64 * 1024);
      await f.replica.maintain(f.checkpoint);
      expect(f.replica.pendingBytes).toBe(pending); // nothing uploaded under the lock
      expect(walSize(`${f.dbPath}-wal`)).toBeGreaterThan(0);
      await f.replica.flush();
      await f.replica.maintain(f.checkpoint);
      expect(walSize(`${f.dbPath}-wal`)).toBe(0);
      expect((await f.restoreRows()).rows).toHaveLength(400);
    });

    it('ends a flush once what was pushed before it is in the bucket, while its tenant goes on writing faster than it uploads (found by a hostile run)', async () => {
      // Each upload takes a while: the writer below queues a segment faster than one goes up.
      class SlowStore extends ForwardingObjectStore {
        override async put(key: string, body: PutBody, options?: PutOptions): Promise<PutResult> {
          await new Promise((resolve) => setTimeout(resolve, 20));
          return super.put(key, body, options);
        }
      }
      const f = await fixture({ maxSegmentBytes: 64 * 1024 }, new SlowStore(makeStore()));
      await f.run('CREATE TABLE t (v TEXT)');
      await f.run('INSERT INTO t SELECT hex(randomblob(500)) FROM generate_series(1, 400)');
      let flushed = false;
      const flushing = f.replica.flush().then(() => (flushed = true));
      let writes = 0;
      for (; writes < 200 && !flushed; writes++) {
        await f.run('INSERT INTO t SELECT hex(randomblob(500)) FROM generate_series(1, 200)');
        await new Promise((resolve) => setTimeout(resolve, 5)); // the next request, over the network
      }
      expect(flushed).toBe(true);
      expect(writes).toBeLessThan(200);
      await flushing;
      await f.replica.flush();
      expect((await f.restoreRows()).rows).toHaveLength(400 + 200 * writes);
    });

    it('ships what waits under the lock and checkpoints once the WAL is past its bound, so a writer faster than its uploads cannot fill the disk (found by a hostile run)', async () => {
      const f = await fixture({ maxSegmentBytes: 64 * 1024, checkpointBytes: 1, maxWalBytes: 1024 * 1024 });
      await f.run('CREATE TABLE t (v TEXT)');
      await f.run('INSERT INTO t SELECT hex(randomblob(500)) FROM generate_series(1, 2000)');
      expect(f.replica.pendingBytes).toBeGreaterThan(64 * 1024);
      expect(walSize(`${f.dbPath}-wal`)).toBeGreaterThan(1024 * 1024);
      await f.replica.maintain(f.checkpoint);
      expect(f.replica.pendingBytes).toBe(0);
      expect(walSize(`${f.dbPath}-wal`)).toBe(0);
      expect((await f.restoreRows()).rows).toHaveLength(2000);
    });

    it('bounds the WAL at the commit that passes its bound, not at the next round (found by a hostile run)', async () => {
      const f = await fixture({ maxSegmentBytes: 64 * 1024, maxWalBytes: 1024 * 1024 });
      await f.run('CREATE TABLE t (v TEXT)');
      await f.run('INSERT INTO t SELECT hex(randomblob(500)) FROM generate_series(1, 500)');
      // Below the bound: a stat, nothing shipped, nothing checkpointed.
      const below = walSize(`${f.dbPath}-wal`);
      expect(below).toBeLessThan(1024 * 1024);
      await f.replica.bound(f.checkpoint);
      expect(walSize(`${f.dbPath}-wal`)).toBe(below);
      expect(f.replica.pendingBytes).toBeGreaterThan(0);
      // The commit that passes it ships what waits and empties the WAL before its lock is let go.
      await f.run('INSERT INTO t SELECT hex(randomblob(500)) FROM generate_series(1, 1500)');
      expect(walSize(`${f.dbPath}-wal`)).toBeGreaterThan(1024 * 1024);
      await f.replica.bound(f.checkpoint);
      expect([f.replica.pendingBytes, walSize(`${f.dbPath}-wal`)]).toEqual([0, 0]);
      await f.run("INSERT INTO t VALUES ('after')");
      await f.replica.flush();
      expect((await f.restoreRows()).rows).toHaveLength(2001);
    });

    /** A fixture snapshotting at every maintain whose copies wait, once `hold()` is called, until it is resolved. */
    const heldCopies = async () => {
      let held: PromiseWithResolvers<void> | undefined;
      const f = await fixture({
        checkpointBytes: 1,
        snapshotEveryBytes: 1,
        copy: async (dbPath) => {
          await held?.promise;
          return copyDatabaseFile(dbPath);
        },
      });
      return { f, hold: () => (held = Promise.withResolvers<void>()) };
    };

    it('copies a snapshot after the lock is let go, checkpointing nothing into the file until the copy is done (found in review)', async () => {
      const { f, hold } = await heldCopies();
      await f.run('CREATE TABLE t (v TEXT)');
      await f.run("INSERT INTO t VALUES ('before')");
      const held = hold();
      // maintain() is what runs under the lock: it ends with the checkpoint, not with the copy.
      const { upload } = await f.replica.maintain(f.checkpoint);
      expect(upload).toBeDefined();
      let copied = false;
      void f.replica.whenCopied().then(() => (copied = true));
      await f.run("INSERT INTO t VALUES ('during')");
      await f.replica.flush();
      await f.replica.maintain(f.checkpoint);
      expect(walSize(`${f.dbPath}-wal`)).toBeGreaterThan(0); // left for after the copy
      expect(copied).toBe(false);
      held.resolve();
      await upload;
      expect(copied).toBe(true);
      // The copy done, the WAL is checkpointed (and, a snapshot being due again, another taken).
      await (
        await f.replica.maintain(f.checkpoint)
      ).upload;
      expect(walSize(`${f.dbPath}-wal`)).toBe(0);
      expect((await f.restoreRows()).rows).toEqual(['before', 'during']);
    });

    it('rests at once with an empty WAL while a snapshot is being copied, and waits for the copy with commits to move (found in review)', async () => {
      const { f, hold } = await heldCopies();
      await f.run('CREATE TABLE t (v TEXT)');
      const held = hold();
      const { upload } = await f.replica.maintain(f.checkpoint);
      expect(f.replica.copying).toBe(true);
      await f.replica.rest(f.checkpoint); // a start's rest right after its generation: nothing to checkpoint
      expect(f.replica.copying).toBe(true);
      await f.run("INSERT INTO t VALUES ('after')");
      let rested = false;
      const rest = f.replica.rest(f.checkpoint).then(() => (rested = true));
      await f.replica.flush();
      expect(rested).toBe(false);
      held.resolve();
      await Promise.all([upload, rest]);
      expect(walSize(`${f.dbPath}-wal`)).toBe(0);
      expect((await f.restoreRows()).rows).toEqual(['after']);
    });

    it('leaves no copy behind when its guard refuses a snapshot after the copy', async () => {
      let held = true;
      let loseAtCopy = false;
      const f = await fixture({
        checkpointBytes: 1,
        snapshotEveryBytes: 1,
        guard: () => {
          if (!held) throw new Error('lease lost');
        },
        copy: async (dbPath) => {
          const copy = await copyDatabaseFile(dbPath);
          held = !loseAtCopy;
          return copy;
        },
      });
      await f.run('CREATE TABLE t (v TEXT)');
      loseAtCopy = true;
      const { upload } = await f.replica.maintain(f.checkpoint);
      await expect(upload).rejects.toThrow('lease lost');
      expect(readdirSync(f.dir).filter((name) => name.includes('.snapshot-'))).toEqual([]);
    });

    it('ships nothing read from a WAL emptied behind its back while commits were queued', async () => {
      const f = await fixture();
      await f.run('CREATE TABLE t (v TEXT)');
      await f.replica.flush();
      await f.run("INSERT INTO t VALUES ('queued')");
      f.db.pragma('wal_checkpoint(TRUNCATE)');
      f.db.exec("INSERT INTO t VALUES ('other')");
      await expect(f.replica.flush()).rejects.toThrow(/changed under commits not yet shipped/);
      expect((await keysUnder(f.store, f.prefix)).filter((k) => k.includes('/segments/'))).toHaveLength(1);
    });

    it('retries a failed segment upload under the same key, keeping the order', async () => {
      const faults = new FaultObjectStore(makeStore());
      const f = await fixture({}, faults);
      await f.run('CREATE TABLE t (v TEXT)');
      await f.run("INSERT INTO t VALUES ('a')");
      // The store takes the write but the answer is lost: the flush fails, the commits stay queued.
      faults.inject({ match: (key) => key.includes('/segments/'), fault: 'lost-response' });
      await expect(f.replica.flush()).rejects.toThrow(/was not written/);
      expect(f.replica.pendingBytes).toBeGreaterThan(0);
      await f.run("INSERT INTO t VALUES ('b')");
      await f.replica.flush();

      const segments = (await keysUnder(f.store, f.prefix)).filter((k) => k.includes('/segments/'));
      expect(segments.map((k) => k.split('/segments/')[1]?.slice(0, 10))).toEqual(['0000000000', '0000000001']);
      expect((await f.restoreRows()).rows).toEqual(['a', 'b']);
    });

    it('refuses to go on when the WAL was checkpointed behind its back', async () => {
      const f = await fixture();
      await f.run('CREATE TABLE t (v TEXT)');
      for (let i = 0; i < 50; i++) await f.run(`INSERT INTO t VALUES ('row ${i}')`);
      f.db.pragma('wal_checkpoint(TRUNCATE)');
      f.db.exec("INSERT INTO t VALUES ('unseen')");
      await expect(f.replica.capture()).rejects.toThrow(/checkpointed outside maintain|restarted behind the replica/);
    });

    it('refuses a restore point before the oldest snapshot', async () => {
      const f = await fixture();
      await f.run('CREATE TABLE t (v TEXT)');
      await f.replica.flush();
      const before = f.clock.time - 1;
      await expect(restoreDatabase({ store: f.store, prefix: f.prefix, tenant: f.tenant, targetPath: `${f.dir}/early.db`, at: before })).rejects.toBeInstanceOf(RestorePointUnavailableError);
    });

    it('answers the restore window and deletes every key', async () => {
      const f = await fixture();
      const start = f.clock.time;
      expect(await restoreWindow({ store: f.store, prefix: f.prefix, tenant: 'nobody' })).toBeNull();
      expect(await restoreDatabase({ store: f.store, prefix: f.prefix, tenant: 'nobody', targetPath: `${f.dir}/nobody.db` })).toBeNull();
      f.clock.tick();
      await f.run('CREATE TABLE t (v TEXT)');
      const last = f.clock.tick();
      await f.run("INSERT INTO t VALUES ('a')");
      await f.replica.flush();
      expect(await restoreWindow({ store: f.store, prefix: f.prefix, tenant: f.tenant })).toEqual({ earliest: start, latest: last });

      await deleteReplica({ store: f.store, prefix: f.prefix, tenant: f.tenant });
      expect(await keysUnder(f.store, f.prefix)).toEqual([]);
      expect(await restoreWindow({ store: f.store, prefix: f.prefix, tenant: f.tenant })).toBeNull();
    });

    it('prunes old generations and keeps the latest state restorable', async () => {
      const f = await fixture();
      await f.run('CREATE TABLE t (v TEXT)');
      await f.run("INSERT INTO t VALUES ('old generation')");
      await f.replica.flush();
      const oldKeys = await keysUnder(f.store, f.prefix);

      f.clock.tick(60_000);
      await f.startGeneration(); // a process restart
      const second = f.clock.time;
      f.clock.tick();
      await f.run("INSERT INTO t VALUES ('new generation')");
      await f.replica.flush();

      await pruneReplica({ store: f.store, prefix: f.prefix, tenant: f.tenant, retentionMs: 30_000, now: f.clock.time });
      const left = await keysUnder(f.store, f.prefix);
      expect(left.filter((k) => oldKeys.includes(k))).toEqual([]);
      expect(left.length).toBeGreaterThan(0);
      expect((await restoreWindow({ store: f.store, prefix: f.prefix, tenant: f.tenant }))?.earliest).toBe(second);

      // Even a retention of nothing keeps what the latest state needs.
      await pruneReplica({ store: f.store, prefix: f.prefix, tenant: f.tenant, retentionMs: 0, now: f.clock.time + 1e9 });
      expect((await f.restoreRows()).rows).toEqual(['old generation', 'new generation']);
    });
  });
}
