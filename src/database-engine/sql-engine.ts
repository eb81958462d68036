import type { SqlValue } from './sql-value.ts';

/** The outcome of one statement, in engine values (the Hrana layer encodes them). */
export interface SqlResult {
  columns: { name: string; decltype: string | null }[];
  rows: SqlValue[][];
  affectedRowCount: number;
  /** The connection's last inserted rowid, or null when it never inserted. */
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
  /** Closes the connection; an open transaction is rolled back. Closing twice is harmless. */
  close(): void;
}

/** The database engine: a file per tenant, opened (and created) on demand. */
export interface SqlEngine {
  /** Opens a new connection to `tenant`'s database, creating the database on first use. */
  open(tenant: string): SqlConnection;
}
