// Restoring a served tenant in place: the past rebuilt beside the live file while it serves, then swapped in under
// the tenant lock, open transactions rolled back, and a new generation started from the restored file.
import { randomBytes } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../src/logging/log.ts';
import type { StreamRegistry } from './hrana/stream-registry.ts';
import { engineLimits } from './limit-policy.ts';
import type { Replication, TenantReplicaPort } from './replication-port.ts';
import type { DatabaseEngine } from './shards/engine-port.ts';
import type { TenantLimits } from './sql/sql-limits.ts';
import { RestorePointUnavailableError, type InPlaceRestore } from './tenant-admin-types.ts';
import type { Entry } from './tenant-entry.ts';
import type { TenantMeta } from './tenant-meta.ts';
import { writeMeta, type RecordFence } from './fenced-records.ts';

/**
 * How far ahead of this clock a restore point is waited for rather than refused: another machine's "now" (the
 * operator's, copying a database for a preview as of its creation) may be a little ahead of cw-db's.
 */
const CLOCK_SKEW_MS = 5000;

/** What a transaction open across a restore answers next: it was rolled back, and why. */
const RESTORED = { code: 'DATABASE_RESTORED', message: 'The database was restored in place to an earlier time; this transaction was rolled back. Start it again.' };

/** What the directory lends an in-place restore. */
export interface InPlaceContext {
  readonly engine: DatabaseEngine;
  readonly replication: Replication;
  readonly streams: StreamRegistry;
  /** How its metadata is written (fenced-records.ts). */
  readonly fence: RecordFence;
  readonly log: Logger;
  readonly now: () => number;
  readonly limitsOf: (meta: TenantMeta) => TenantLimits;
  /** A replica of the tenant's file, not started. */
  readonly newReplica: () => TenantReplicaPort;
}

/**
 * Waits until `now` is past `at` when `at` is at most CLOCK_SKEW_MS ahead (a time further ahead is left to the
 * caller's refusal). Past it, every commit stamped at or before `at` was captured, so the flush that follows
 * ships it: a restore point "now" on a clock a little ahead holds every commit acknowledged before it.
 */
export async function clockPassed(at: number, now: () => number): Promise<void> {
  if (at > now() + CLOCK_SKEW_MS) return;
  while (now() <= at) await delay(Math.floor(at - now()) + 1);
}

/** The directory's restoreInPlace for a served `entry`, under its change lock (see TenantDirectory.restoreInPlace). */
export async function restoreEntryInPlace(entry: Entry, at: number, request: string | undefined, context: InPlaceContext): Promise<InPlaceRestore> {
  const tenant = entry.meta.tenant;
  const done = entry.meta.lastInPlaceRestore;
  if (request !== undefined && done?.request === request) return { restoredTo: done.restoredTo, undoPoint: done.undoPoint };
  const { engine, replication, now } = context;
  await clockPassed(at, now);
  await entry.replica?.flush();
  const window = await replication.window(tenant);
  const iso = (ms: number) => new Date(ms).toISOString();
  const span = window ? `${iso(window.earliest)} to ${iso(window.latest)}` : 'none yet';
  if (window === null || at < window.earliest || at > now()) throw new RestorePointUnavailableError(`The restore time is outside the restore window (${span})`);

  const path = engine.databasePath(tenant);
  const staged = `${path}.in-place-${randomBytes(4).toString('hex')}`;
  // A round of the timer still running would maintain the old replica on the new file.
  entry.restoring = true;
  try {
    await entry.shipping;
    await entry.snapshotUpload;
    // The past is immutable: it is rebuilt without the lock, while the database keeps serving.
    if ((await replication.restore(tenant, staged, at, { asked: true })) === null) throw new RestorePointUnavailableError(`Nothing of ${tenant} is in the bucket`);
    const { undoPoint, upload } = await context.streams.takeOver(tenant, RESTORED, async () => {
      const previous = entry.replica;
      await previous?.capture();
      await previous?.flush();
      await previous?.whenCopied();
      const undoPoint = Math.floor(now());
      // The new generation must start after the undo point, so a restore to it reads the old generation.
      while (Math.floor(now()) <= undoPoint) await delay(1);
      await engine.closeTenant(tenant);
      await Promise.all([rm(`${path}-wal`, { force: true }), rm(`${path}-shm`, { force: true })]);
      await rename(staged, path);
      await engine.open(tenant, engineLimits(context.limitsOf(entry.meta)));
      const replica = context.newReplica();
      const { upload } = await replica.startGenerationLocked();
      entry.replica = replica;
      return { undoPoint, upload };
    });
    await upload;
    // Answered, and recorded, only if this replica still owns the database once the restored generation landed (the
    // lease read again, as for a synchronous commit): a successor that took it over meanwhile lists the bucket after
    // that read and restores the generation. Without it, a paused owner answered a restore its successor never held,
    // and its record made the operator's retry answer "done" without restoring (review-178 R-A).
    await context.fence.confirmOwner(entry);
    if (request !== undefined) {
      await writeMeta(entry, (meta) => ({ ...meta, lastInPlaceRestore: { request, restoredTo: at, undoPoint } }), context.fence);
      // The record too: a successor reads the metadata after its takeover, so after this read.
      await context.fence.confirmOwner(entry);
    }
    context.log.info('restored a tenant in place', { tenant, restoredTo: iso(at), undoPoint: iso(undoPoint) });
    return { restoredTo: at, undoPoint };
  } finally {
    entry.restoring = false;
    await Promise.all([staged, `${staged}-wal`].map((file) => rm(file, { force: true })));
  }
}
