// What the maintenance units share: the bucket, this maintainer's identity and work directory, and the
// retention rules (docs/repository-maintenance.md).
import type { ObjectStore } from '../object-store/object-store.ts';
import type { RepoStore } from '../repo-store/repo-store.ts';

export interface MaintenanceOptions {
  readonly repos: RepoStore;
  readonly store: ObjectStore;
  /** This maintainer's name in leases, heartbeats and task records. */
  readonly host: string;
  /** Where the maintainer keeps its working copies (one bare repository per repository it compacts). */
  readonly workDir: string;
  /** Log entries are retired only behind a checkpoint at least this old. Default 7 days. */
  readonly logRetentionMs?: number;
  /** A pack retired by compaction, or never referenced, stays in the bucket at least this long. Default 1 hour. */
  readonly graceMs?: number;
  /** How long a lease holds without renewal. Default 2 minutes (renewed every 40 s while a unit runs). */
  readonly leaseTtlMs?: number;
  readonly now?: () => Date;
}

export interface MaintenanceContext {
  readonly repos: RepoStore;
  readonly store: ObjectStore;
  readonly host: string;
  readonly workDir: string;
  readonly logRetentionMs: number;
  readonly graceMs: number;
  readonly leaseTtlMs: number;
  readonly now: () => Date;
}

export const DAY_MS = 24 * 60 * 60 * 1000;

export function maintenanceContext(options: MaintenanceOptions): MaintenanceContext {
  return {
    repos: options.repos,
    store: options.store,
    host: options.host,
    workDir: options.workDir,
    logRetentionMs: options.logRetentionMs ?? 7 * DAY_MS,
    graceMs: options.graceMs ?? 60 * 60 * 1000,
    leaseTtlMs: options.leaseTtlMs ?? 2 * 60 * 1000,
    now: options.now ?? (() => new Date()),
  };
}
