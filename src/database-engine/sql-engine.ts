import type { SqlValue } from './sql-value.ts';

/** The outcome of one statement, in engine values (the Hrana layer encodes them). */
export interface SqlResult {
  columns: { name: string; decltype: string | null }[];
  rows: SqlValue[][];
  /** Rows the statement returned, also when the caller did not want them. */
  rowsReturned: number;
  affectedRowCount: number;
  /** The rowid this statement inserted, or null when it inserted none. */
  lastInsertRowid: bigint | null;
}

/** What the engine knows of a statement without running it. */
export interface SqlDescription {
  columns: { name: string; decltype: string | null }[];
  isReadonly: boolean;
}

/**
 * One connection to one tenant's database. A Hrana stream owns one, so a transaction begun in one request is still
 * open in the next. Calls are synchronous: the engine runs in-process, and callers serialise per tenant.
 */
export interface SqlConnection {
  /** Runs one statement with values bound by index (1-based index i is `params[i - 1]`). */
  execute(sql: string, params: SqlValue[], options: { wantRows: boolean }): SqlResult;
  /** Runs several `;`-separated statements without arguments or results (Hrana's `sequence`). */
  executeScript(sql: string): void;
  describe(sql: string): SqlDescription;
  /** False while a transaction is open (after BEGIN, before COMMIT or ROLLBACK). */
  isAutocommit(): boolean;
  /** While on, every statement that would write fails (a read-only token's pipelines run so). */
  restrictToReads(on: boolean): void;
  /** Moves every WAL frame into the database file and empties the WAL (`wal_checkpoint(TRUNCATE)`). */
  checkpoint(): void;
  /** Closes the connection; an open transaction is rolled back. Closing twice is harmless. */
  close(): void;
}

/**
 * The database engine: a file per tenant. A tenant has one connection, opened on first use and shared by all
 * its streams, which take turns under the tenant's lock (tenant-lock.ts): the WAL then only grows when that
 * connection commits, which is what lets the replication read committed frames (replication/).
 */
export interface SqlEngine {
  /** `tenant`'s connection, opened (and the database created) on first use. */
  connection(tenant: string): SqlConnection;
  /** The path of `tenant`'s database file (its WAL is beside it, with `-wal`). */
  databasePath(tenant: string): string;
  /** Closes `tenant`'s connection if open; the next `connection` opens it again. */
  closeTenant(tenant: string): void;
  /** Closes every connection (shutdown). */
  closeAll(): void;
}
