// Repository maintenance: checkpoints, compaction, garbage collection and fsck of repositories in the bucket
// (docs/repository-maintenance.md), and the overview of a repository's operational state.
export * from './operation.ts';
export * from './status.ts';
export * from './lease.ts';
export * from './heartbeat.ts';
export * from './overview.ts';
export * from './context.ts';
export { RepoMaintenance, LeaseHeldError, type MaintenanceOp } from './maintenance.ts';
export { dropIdleWorkingCopies } from './working-copy.ts';
