// Rebuilding a database file from its replica: a snapshot, then segments' commits applied page by page, the
// way SQLite's own checkpoint moves WAL frames into the file.
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { tenantRoot, type HistoryPoint } from './bucket-layout.ts';
import { readHistory } from './history.ts';
import { planRestore } from './restore-plan.ts';
import { decodeSegment } from './segment-codec.ts';
import { PageBatch } from './page-batch.ts';
import { downloadSnapshot } from './snapshot-file.ts';

export interface RestoreOptions {
  readonly store: ObjectStore;
  readonly prefix: string;
  readonly tenant: string;
  /** The database file to (re)create; its `-wal` and `-shm` are removed. Nothing may have it open. */
  readonly targetPath: string;
  /** Restore the state as of this time (ms since the epoch): commits stamped later are left out. Default: the latest. */
  readonly at?: number;
}

/** `at` is before the oldest snapshot the bucket still holds. */
export class RestorePointUnavailableError extends Error {
  override readonly name = 'RestorePointUnavailableError';
}

/** What a restore rebuilt: up to which commit's time, and the point of the chain it reached (a takeover records it). */
export interface Restored {
  readonly restoredTo: number;
  readonly reached: HistoryPoint;
}

/**
 * Rebuilds `targetPath` from the bucket. Answers null when the tenant has nothing there, else the time of the last
 * commit applied (the snapshot's time when none was) and the first segment not applied. Works in a temp file
 * renamed over the target at the end, so a crash never leaves half a database.
 */
export async function restoreDatabase(options: RestoreOptions): Promise<Restored | null> {
  const { store, targetPath, at } = options;
  const generations = await readHistory(store, tenantRoot(options.prefix, options.tenant));
  const plan = planRestore(generations, at);
  if (!plan) {
    if (generations.some((g) => g.snapshots.length > 0)) throw new RestorePointUnavailableError(`no snapshot of ${options.tenant} at or before ${at}`);
    return null;
  }
  const temp = `${targetPath}.restore-${randomBytes(4).toString('hex')}.tmp`;
  try {
    // Segments are fetched and inflated a few ahead of the one being applied, the first ones while the snapshot
    // downloads: a restore is bound by the bucket's round trips and by inflating, which runs off the main thread.
    const fetched = prefetched(
      plan.segments.map((ref) => async () => {
        const object = await store.get(ref.key);
        return object?.kind === 'object' ? decodeSegment(object.body) : undefined;
      }),
      SEGMENTS_AHEAD,
    );
    await downloadSnapshot(store, plan.snapshot.key, temp);
    let restoredTo = plan.snapshot.time;
    let nextSeq = plan.snapshot.seq;
    const lastSeq = plan.snapshot.seq + plan.segments.length - 1;
    /** Set while a commit cut into parts is half applied: the file is not a database state until its last part. */
    let partial = false;
    const file = await open(temp, 'r+');
    try {
      restore: for (const next of fetched) {
        const segment = await next;
        // Pruned or deleted meanwhile: as a gap, stop here, unless that would leave half a transaction.
        if (!segment) {
          if (partial) throw new Error(`segment ${nextSeq} of ${options.tenant} went missing in the middle of a transaction; retry the restore`);
          break;
        }
        const batch = new PageBatch(segment.pageSize);
        for (const commit of segment.commits) {
          const partsAfter = commit.partsAfter ?? 0;
          // Past the time asked for, or a transaction whose last part the bucket does not hold (its upload was cut
          // short: it was never acknowledged): the restore ends before it.
          if ((at !== undefined && commit.ts > at) || (!partial && nextSeq + partsAfter > lastSeq)) {
            await batch.writeTo(file);
            break restore;
          }
          batch.add(commit);
          partial = partsAfter > 0;
          if (!partial) restoredTo = commit.ts;
        }
        await batch.writeTo(file);
        nextSeq++;
      }
      if (partial) throw new Error(`the restore of ${options.tenant} ended in the middle of a transaction`);
      await file.sync();
    } finally {
      await file.close();
    }
    // A WAL left beside the target would be replayed over the restored file by the next open.
    await Promise.all([rm(`${targetPath}-wal`, { force: true }), rm(`${targetPath}-shm`, { force: true })]);
    await rename(temp, targetPath);
    return { restoredTo, reached: { generation: plan.snapshot.generation, nextSeq } };
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Segment downloads in flight ahead of the one being applied. */
const SEGMENTS_AHEAD = 8;

/**
 * The results of `tasks` in order. The first `ahead` start at once, each later one when the consumer is at most
 * `ahead` places behind it (a rejected one that is never consumed is not reported as unhandled).
 */
function prefetched<T>(tasks: ReadonlyArray<() => Promise<T>>, ahead: number): Iterable<Promise<T>> {
  const started: Promise<T>[] = [];
  const start = (i: number) => {
    const task = tasks[i];
    if (task && started[i] === undefined) {
      started[i] = task();
      started[i].catch(() => {});
    }
  };
  for (let j = 0; j < Math.min(tasks.length, ahead); j++) start(j);
  return {
    *[Symbol.iterator]() {
      for (let i = 0; i < tasks.length; i++) {
        for (let j = i; j < Math.min(tasks.length, i + ahead); j++) start(j);
        yield started[i] as Promise<T>;
      }
    },
  };
}
