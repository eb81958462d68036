import type { GrowthFreeze } from './growth-freeze.ts';
import type { QuotaRefusal } from './quota-refusal.ts';
import type { SqlMode } from './sandbox.ts';
import type { AnswerLimits, DatabaseLimits } from './sql-limits.ts';
import type { SqlValue } from './sql-value.ts';

/** The outcome of one statement, in engine values (the Hrana layer encodes them). */
export interface SqlResult {
  columns: { name: string; decltype: string | null }[];
  rows: SqlValue[][];
  /** Rows the statement returned, also when the caller did not want them. */
  rowsReturned: number;
  affectedRowCount: number;
  /** Rows the statement changed, those its triggers changed included: what the daily rows-written quota counts. */
  rowsWritten: number;
  /** About how many bytes `rows` take on the wire (answer-size.ts). */
  answerBytes: number;
  /** The rowid this statement inserted, or null when it inserted none. */
  lastInsertRowid: bigint | null;
}

/** What the engine knows of a statement without running it. */
export interface SqlDescription {
  columns: { name: string; decltype: string | null }[];
  isReadonly: boolean;
}

/** How one statement runs: whether its rows are wanted, and how many of them may come back. */
export interface ExecuteOptions {
  wantRows: boolean;
  answer: AnswerLimits;
}

/**
 * One connection to one tenant's database. A Hrana stream owns one, so a transaction begun in one request is still
 * open in the next. Calls are synchronous: the engine runs in a shard process, and callers serialise per tenant.
 * Every statement runs sandboxed (sandbox.ts) under the tenant's limits (sql-limits.ts).
 */
export interface SqlConnection {
  /** Runs one statement with values bound by index (1-based index i is `params[i - 1]`). */
  execute(sql: string, params: SqlValue[], options: ExecuteOptions): SqlResult;
  /**
   * Runs several `;`-separated statements without arguments or results (Hrana's `sequence`), and tells `written` the
   * rows they changed, once, also when one fails: the statements before it stay done.
   */
  executeScript(sql: string, written: (rows: number) => void): void;
  describe(sql: string): SqlDescription;
  /** False while a transaction is open (after BEGIN, before COMMIT or ROLLBACK). */
  isAutocommit(): boolean;
  /**
   * Sets who the next statements run for; in `read-only` every statement that would write fails, whatever came
   * before. Under a `refusal` (a daily quota reached) what it blocks fails with its error; under a `freeze` a
   * write that needs new pages fails with SQLITE_FULL and the freeze's message; a VACUUM that would need more than
   * `vacuumRoomBytes` of the disk is refused.
   */
  setMode(mode: SqlMode, refusal?: QuotaRefusal, freeze?: GrowthFreeze, vacuumRoomBytes?: number): void;
  /**
   * Cuts the next statements at `capMs` when that is below the database's statement time limit (other projects
   * contend for a shared shard: shard-time.ts); `undefined` lifts the cap.
   */
  setStatementCap(capMs: number | undefined): void;
  /** Moves every WAL frame into the database file and empties the WAL (`wal_checkpoint(TRUNCATE)`). */
  checkpoint(): void;
  /** Closes the connection; an open transaction is rolled back. Closing twice is harmless. */
  close(): void;
}

/**
 * The database engine: a file per tenant. A tenant has one connection, opened on first use and shared by all
 * its streams, which take turns under the tenant's lock (hrana/tenant-lock.ts): the WAL then only grows when that
 * connection commits, which is what lets the replication read committed frames (replication/).
 */
export interface SqlEngine {
  /** `tenant`'s connection, opened (and the database created) on first use. */
  connection(tenant: string): SqlConnection;
  /** Sets `tenant`'s limits, for its open connection and the next ones; unset tenants run under the engine's defaults. */
  setLimits(tenant: string, limits: DatabaseLimits): void;
  /** The path of `tenant`'s database file (its WAL is beside it, with `-wal`). */
  databasePath(tenant: string): string;
  /** Closes `tenant`'s connection if open; the next `connection` opens it again. */
  closeTenant(tenant: string): void;
  /** Closes every connection (shutdown). */
  closeAll(): void;
}
