// The repository store's public surface (docs/repository-storage.md).
export { RepoStore, type CreateRepoOptions, type LogPage, type RepoStoreOptions } from './repo-store.ts';
export type { PackUpload, PublishRequest, PublishResult } from './publish.ts';
export type { RepoHead } from './head-cache.ts';
export type { Manifest, CheckpointRef, HeadAmendment } from './manifest.ts';
export type { EntryKind, LogEntry, PackRef } from './log-entry.ts';
export { logEntryJson } from './log-entry.ts';
export type { LivePack, RepoState } from './state.ts';
export { DEFAULT_MAX_REFS, zeroOid, isValidRefName, type ObjectFormat, type RefResult, type RefRejection, type RefUpdate } from './refs.ts';
export { parseRepoPath, parseUrlRepoPath, InvalidRepoNameError, type RepoPath } from './repo-path.ts';
export * from './layout.ts';
export * from './pack-object.ts';
export * from './errors.ts';
export type { PendingMarker, MaintenanceReason } from './pending.ts';
