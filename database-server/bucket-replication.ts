import { Semaphore } from '../src/collections/semaphore.ts';
import type { ObjectStore } from '../src/object-store/object-store.ts';
import { deleteReplica, historyEnd, pruneReplica, recordTakeover, restoreDatabase, RestorePointUnavailableError, restoreWindow, TenantReplica } from './replication/index.ts';
import { highestEpoch, tenantRoot } from './replication/bucket-layout.ts';
import type { Replication } from './replication-port.ts';
import { tenantKeys } from './tenant-meta.ts';
import { DEFAULT_RESTORE_CONCURRENCY } from './config.ts';
import { RestorePointUnavailableError as DirectoryRestoreError } from './tenant-admin-types.ts';

/**
 * The {@link Replication} on the bucket (database-server/replication): what must run under the tenant lock
 * (a generation's checkpoint and copy, maintain's seal and checkpoint) does, and the uploads run after it.
 * At most `restores` restores run at once, the others wait their turn: a start that lost its disk, or a replica
 * taking over a dead one's databases, restores thousands, each holding its read-ahead of segments in memory.
 * Restores a tenant asked for (a copy, an in-place restore) wait in a queue of their own, half as wide: however
 * many a tenant asks for, they never hold up databases coming back after a failover.
 */
export function bucketReplication(store: ObjectStore, prefix = tenantKeys.replicaPrefix, restores = DEFAULT_RESTORE_CONCURRENCY, wal: { maxWalBytes?: number } = {}): Replication {
  const at = (tenant: string) => ({ store, prefix, tenant });
  const restoring = new Semaphore(restores);
  const asked = new Semaphore(Math.max(1, Math.floor(restores / 2)));
  return {
    replica(tenant, databasePath, host, fencing) {
      const replica = new TenantReplica({ store, prefix, tenant, dbPath: databasePath, ...wal, ...(fencing ? { epoch: fencing.epoch, guard: () => fencing.guard() } : {}) });
      const checkpoint = () => host.checkpoint();
      return {
        // The checkpoint under the lock; the copy and the upload go on after it is released.
        startGeneration: () => host.locked(() => replica.startGeneration(checkpoint)),
        startGenerationLocked: () => replica.startGeneration(checkpoint),
        capture: () => replica.capture(),
        flush: () => replica.flush(),
        maintain: async () => {
          const { upload } = await host.locked(() => replica.maintain(checkpoint));
          return upload ? { snapshot: upload } : {};
        },
        boundLocked: () => replica.bound(checkpoint),
        restLocked: () => replica.rest(checkpoint),
        whenCopied: () => replica.whenCopied(),
        get pendingBytes() {
          return replica.pendingBytes;
        },
        get copying() {
          return replica.copying;
        },
        get pastWalBound() {
          return replica.pastWalBound;
        },
      };
    },
    async restore(tenant, targetPath, time, options = {}) {
      const release = await (options.asked ? asked : restoring).acquire();
      try {
        return await restoreDatabase({ ...at(tenant), targetPath, ...(time === undefined ? {} : { at: time }) });
      } catch (err) {
        if (err instanceof RestorePointUnavailableError) throw new DirectoryRestoreError(err.message);
        throw err;
      } finally {
        release();
      }
    },
    historyEnd: (tenant) => historyEnd(store, tenantRoot(prefix, tenant)),
    highestEpoch: (tenant) => highestEpoch(store, tenantRoot(prefix, tenant)),
    recordTakeover: (tenant, epoch, reached) => recordTakeover(store, tenantRoot(prefix, tenant), { epoch, follows: reached }),
    window: (tenant) => restoreWindow(at(tenant)),
    delete: (tenant) => deleteReplica(at(tenant)),
    prune: (tenant, retentionMs) => pruneReplica({ ...at(tenant), retentionMs }),
  };
}
