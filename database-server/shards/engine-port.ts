import type { HranaStreamResult } from '../hrana/hrana-types.ts';
import type { StatementCounts } from '../hrana/stream.ts';
import type { GrowthFreeze } from '../sql/growth-freeze.ts';
import type { QuotaRefusal } from '../sql/quota-refusal.ts';
import type { SqlMode } from '../sql/sandbox.ts';
import type { DatabaseLimits } from '../sql/sql-limits.ts';

/** One pipeline request's statements, for one stream of one tenant. */
export interface PipelineRun {
  tenant: string;
  /** The database's project (the shards' stored SQL is bounded by project); absent: the database is its own. */
  project?: string;
  /** The stream's id (not its baton: batons stay in the main process). */
  stream: string;
  mode: SqlMode;
  /**
   * The stream left a transaction open at its last request: an engine that does not know the stream lost it (its
   * shard restarted), and answers the requests STREAM_CLOSED rather than run them outside that transaction.
   */
  inTransaction?: boolean;
  /** A daily quota the tenant reached: what its statements are refused (absent: nothing is). */
  refusal?: QuotaRefusal;
  /** Why the tenant's database may not grow now (absent: it may, up to its size quota). */
  freeze?: GrowthFreeze;
  /** What a VACUUM may write on the volume (a temporary copy and the WAL, each up to the database's size); absent: unbounded. */
  vacuumRoomBytes?: number;
  /** Hrana stream requests, as the client sent them (checked where they run). */
  requests: unknown[];
}

/** What a pipeline did: a result per request, and where it left the stream. */
export interface PipelineOutcome {
  results: HranaStreamResult[];
  /** False when the stream left a transaction open (its tenant's lock must stay with it). */
  autocommit: boolean;
  /** The transaction left open began in this pipeline (the stream was outside one at some point of it). */
  transactionBegan?: boolean;
  /** True when a `close` request (or a failure to open the database) ended the stream. */
  closed: boolean;
  counts: StatementCounts;
}

/**
 * Where tenants' SQL runs, as cw-db's main process drives it: in shard processes (shard-pool.ts), or in this
 * process (local-engine.ts, which is also what each shard process runs). Calls for one tenant are serialised by
 * the caller (the tenant lock); calls for different tenants may overlap.
 */
export interface DatabaseEngine {
  /** The path of `tenant`'s database file (its WAL is beside it, with `-wal`). */
  databasePath(tenant: string): string;
  /** Opens `tenant`'s database (creating it) under `limits`; called again to change its limits. */
  open(tenant: string, limits: DatabaseLimits): Promise<void>;
  /**
   * Runs a pipeline's requests. Rejects (`EngineUnavailableError`) only when the engine itself failed meanwhile, or
   * (`RunNotStartedError`) when `cancel` was aborted while the run still waited for a place to run: none of it ran.
   */
  run(run: PipelineRun, cancel?: AbortSignal): Promise<PipelineOutcome>;
  /** Ends a stream, rolling back the transaction it left open. */
  closeStream(tenant: string, stream: string): Promise<void>;
  /**
   * `PRAGMA wal_checkpoint(TRUNCATE)` of the tenant's database; only under the tenant lock. A large WAL's runs off
   * the shard's thread, one at a time for `project` (default: the tenant).
   */
  checkpoint(tenant: string, project?: string): Promise<void>;
  /** Closes `tenant`'s connection (the next call opens it again). */
  closeTenant(tenant: string): Promise<void>;
  /**
   * Calls `listener` after the engine lost the connections (and open transactions) of some tenants, with a test
   * for which: a shard process that died and was started again. Their streams are gone and their replicas must
   * start anew from the file.
   */
  onRestart(listener: (affected: (tenant: string) => boolean) => void): void;
  close(): Promise<void>;
}

/** The run was cancelled before any of it ran (its stream closed while it waited for a place in its shard). */
export class RunNotStartedError extends Error {
  override readonly name = 'RunNotStartedError';
  constructor() {
    super('The run was cancelled before it started');
  }
}

/**
 * The engine could not run the request (a shard process died or is starting again); retrying later may work.
 * `sent`: the request reached its shard, which may have committed some of it before it died; otherwise nothing ran.
 */
export class EngineUnavailableError extends Error {
  override readonly name = 'EngineUnavailableError';
  readonly sent: boolean;
  constructor(message: string, options: { sent: boolean }) {
    super(message);
    this.sent = options.sent;
  }
}
