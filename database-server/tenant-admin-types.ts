// What the admin API asks of the tenant directory, what it answers, and the refusals it names.
import type { ReachedQuota } from './daily-quota.ts';
import type { GrowthFreeze } from './sql/growth-freeze.ts';
import type { TenantLimits } from './sql/sql-limits.ts';
import type { DayUsage, Durability, RequestedLimits, RestoreSource, TokenGrant } from './tenant-meta.ts';

/** What the operator asks a tenant to be (the admin API's PUT). */
export interface DesiredTenant {
  tokens: TokenGrant[];
  durability: Durability;
  /**
   * Whose share it uses: shard slots, open databases, memory and the storage quota are shared out by this key. The
   * platform's operator sends the project's account (the user who created it, else the project's name).
   */
  project?: string;
  /** Only for a tenant that does not exist yet: start from another tenant's data as it was at a time. */
  restoreFrom?: RestoreSource;
  /** What the database asks for; cw-db's defaults for the rest. */
  limits?: RequestedLimits;
}

/** A tenant's figures (the admin API's GET). */
export interface TenantDescription {
  tenant: string;
  createdAt: number;
  durability: Durability;
  sizeBytes: number;
  rowsRead: number;
  rowsWritten: number;
  lastWriteAt: number | null;
  restoreWindow: { earliest: number; latest: number } | null;
  restoredFrom?: RestoreSource;
  /** Several replicas: the one that owns it (holds its lease) and answered. */
  replica?: string;
  /** Whose share of cw-db it uses (`DesiredTenant.project`), if it was told. */
  project?: string;
  /** The limits it runs under. */
  limits: TenantLimits;
  /** The current UTC day's counts, which the daily quotas count. */
  today: DayUsage;
  /** The quota it reached (the most refusing one), or null. */
  limitReached: ReachedQuota | null;
  /** Why it may not grow now though under its own size quota: its project's or the disk's storage bound. */
  growthFreeze?: GrowthFreeze;
  /** Whether its connection is open now: one idle for `CW_DB_IDLE_CLOSE_TIMEOUT` is closed until its next request. */
  open?: boolean;
}

/** A restore was asked for a time the source's retained copies do not reach (or a source with none). */
export class RestorePointUnavailableError extends Error {
  override readonly name: string = 'RestorePointUnavailableError';
}

/**
 * A copy whose making did not finish (its process died) can no longer be made: its source point left the bucket (the
 * source deleted, or pruned past it). For good: only a deletion ends it (review-178 L3).
 */
export class CopyUnavailableError extends RestorePointUnavailableError {
  override readonly name = 'CopyUnavailableError';
}

/**
 * SQLite's memory in the database's shard (`CW_DB_SHARD_MEMORY_MIB`) has no room to open another database: each
 * open one holds about 200 KiB of it (docs/scale.md). Nothing of the database is kept.
 */
export class NoCapacityError extends Error {
  override readonly name = 'NoCapacityError';
}

/** No tenant of that name (an in-place restore of a database that is not here). */
export class TenantNotFoundError extends Error {
  override readonly name = 'TenantNotFoundError';
}

/** What an in-place restore did: the state it brought back, and the restore point that undoes it. */
export interface InPlaceRestore {
  /** The time asked for: the database now holds what was committed up to it. */
  restoredTo: number;
  /** The state just before the restore, as a restore point: restoring in place to it undoes the restore. */
  undoPoint: number;
}
