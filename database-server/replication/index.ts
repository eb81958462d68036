// The replication module's public surface: continuous WAL shipping of tenant databases to the bucket.
export { TenantReplica, type TenantReplicaOptions } from './tenant-replica.ts';
export { restoreDatabase, RestorePointUnavailableError, type RestoreOptions, type Restored } from './restore.ts';
export { historyEnd, recordTakeover } from './history.ts';
export { deleteReplica, pruneReplica, restoreWindow, type ReplicaLocation } from './replica-admin.ts';
