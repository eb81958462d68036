import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'libsql';
import { hranaErrorCode, SqlError } from './sql-error.ts';
import type { SqlConnection, SqlDescription, SqlEngine, SqlResult } from './sql-engine.ts';
import type { SqlValue } from './sql-value.ts';

const READONLY_BEGIN = /^\s*BEGIN\s+(?:TRANSACTION\s+)?READONLY\b/i;

type LibsqlDatabase = InstanceType<typeof Database>;
type LibsqlStatement = ReturnType<LibsqlDatabase['prepare']>;

/** Prepared statements kept per connection (by SQL text). */
const STATEMENT_CACHE_SIZE = 128;

/** Tenant ids become file names, so only a safe, bounded alphabet is accepted. */
const TENANT_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/**
 * The `SqlEngine` on the `libsql` npm package (the only importer of it): one SQLite file per tenant in
 * `directory`, in WAL mode so readers on other connections are not blocked by a writer.
 */
export class LibsqlEngine implements SqlEngine {
  readonly #directory: string;
  readonly #manualCheckpoints: boolean;
  readonly #connections = new Map<string, LibsqlConnection>();

  /**
   * `manualCheckpoints`: SQLite never checkpoints by itself (`wal_autocheckpoint = 0`); the replication does,
   * once the frames are shipped. Without it, SQLite's default automatic checkpoints keep the WAL small.
   */
  constructor(options: { directory: string; manualCheckpoints?: boolean }) {
    this.#directory = options.directory;
    this.#manualCheckpoints = options.manualCheckpoints ?? false;
    mkdirSync(this.#directory, { recursive: true });
  }

  databasePath(tenant: string): string {
    if (!TENANT_ID.test(tenant)) throw new SqlError('TENANT_INVALID', `Invalid tenant id: ${tenant}`);
    return path.join(this.#directory, `${tenant}.db`);
  }

  connection(tenant: string): SqlConnection {
    let connection = this.#connections.get(tenant);
    if (connection === undefined || connection.closed) {
      connection = new LibsqlConnection(this.#open(tenant));
      this.#connections.set(tenant, connection);
    }
    return connection;
  }

  closeTenant(tenant: string): void {
    this.#connections.get(tenant)?.close();
    this.#connections.delete(tenant);
  }

  closeAll(): void {
    for (const tenant of this.#connections.keys()) this.closeTenant(tenant);
  }

  #open(tenant: string): LibsqlDatabase {
    const db = wrap(() => new Database(this.databasePath(tenant)));
    try {
      // busy_timeout 0: the engine is synchronous, so waiting for a lock inside SQLite would block the event loop
      // (and the very holder that could release it). Streams take turns under an async mutex per tenant instead.
      db.pragma('busy_timeout = 0');
      db.pragma('journal_mode = WAL');
      if (this.#manualCheckpoints) db.pragma('wal_autocheckpoint = 0');
      db.pragma('foreign_keys = ON');
      db.defaultSafeIntegers(true);
    } catch (error) {
      db.close();
      throw toSqlError(error);
    }
    return db;
  }
}

class LibsqlConnection implements SqlConnection {
  readonly #db: LibsqlDatabase;
  #closed = false;
  // query_only is on while either holds: a read-only transaction, or a read-only caller's pipeline.
  #readonlyTransaction = false;
  #readsOnly = false;
  readonly #statements = new Map<string, LibsqlStatement>();
  #countersStmt: LibsqlStatement | undefined;

  constructor(db: LibsqlDatabase) {
    this.#db = db;
  }

  get closed(): boolean {
    return this.#closed;
  }

  execute(sql: string, params: SqlValue[], options: { wantRows: boolean }): SqlResult {
    return wrap(() => {
      try {
        return this.#execute(sql, params, options);
      } finally {
        // A read-only transaction ends with COMMIT, ROLLBACK or an error that rolled it back.
        if (this.#readonlyTransaction && !this.#db.inTransaction) {
          this.#readonlyTransaction = false;
          this.#applyQueryOnly();
        }
      }
    });
  }

  #execute(sql: string, params: SqlValue[], options: { wantRows: boolean }): SqlResult {
    // The client's transaction('read') sends sqld's BEGIN TRANSACTION READONLY; libsql accepts it but does
    // not enforce it, so query_only does, until the transaction ends.
    if (READONLY_BEGIN.test(sql) && !this.#db.inTransaction) {
      this.#readonlyTransaction = true;
      this.#applyQueryOnly();
    }
    const before = this.#counters();
    const stmt = this.#prepare(sql);
    let columns: SqlResult['columns'] = [];
    let rows: SqlValue[][] = [];
    if (stmt.reader) {
      stmt.raw(true);
      columns = stmt.columns().map((c) => ({ name: c.name, decltype: c.type }));
      // Always one array argument: the package takes a lone object (a Buffer, null) for a map of named values.
      rows = stmt.all(params) as SqlValue[][];
    } else {
      stmt.run(params);
    }
    const after = this.#counters();
    // changes() keeps the count of the last INSERT/UPDATE/DELETE even across a SELECT or DDL; only when the
    // total moved did this statement change rows (sqld reports 0 for a read, as here).
    const affectedRowCount = after.total === before.total ? 0 : Number(after.changes);
    return {
      columns,
      rows: options.wantRows ? rows : [],
      rowsReturned: rows.length,
      affectedRowCount,
      // Only a statement that inserted has a rowid to report: the connection is shared by the tenant's streams,
      // and its last rowid may be another stream's (or a rolled-back one's).
      lastInsertRowid: after.total !== before.total && after.lastInsertRowid !== before.lastInsertRowid ? after.lastInsertRowid : null,
    };
  }

  executeScript(sql: string): void {
    wrap(() => this.#db.exec(sql));
  }

  describe(sql: string): SqlDescription {
    return wrap(() => {
      const stmt = this.#db.prepare(sql);
      const columns = stmt.reader ? stmt.columns().map((c) => ({ name: c.name, decltype: c.type })) : [];
      // The package does not expose sqlite3_stmt_readonly; a statement that returns rows and is not DML with
      // RETURNING is the closest honest answer.
      const isReadonly = stmt.reader && !/^\s*(insert|update|delete|replace|with)\b/i.test(sql);
      return { columns, isReadonly };
    });
  }

  isAutocommit(): boolean {
    return !this.#db.inTransaction;
  }

  restrictToReads(on: boolean): void {
    if (this.#readsOnly === on) return;
    this.#readsOnly = on;
    wrap(() => this.#applyQueryOnly());
  }

  checkpoint(): void {
    wrap(() => this.#db.pragma('wal_checkpoint(TRUNCATE)'));
  }

  #applyQueryOnly(): void {
    this.#db.pragma(`query_only = ${this.#readonlyTransaction || this.#readsOnly ? 'ON' : 'OFF'}`);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#db.close();
  }

  /**
   * A prepared statement, from a small per-connection cache by SQL text: the connection lives as long as its
   * tenant is open, and applications repeat the same statements (the profile showed preparing at a tenth of a read).
   */
  #prepare(sql: string): LibsqlStatement {
    let stmt = this.#statements.get(sql);
    if (stmt !== undefined) {
      // Most recently used last: a Map iterates in insertion order, so the first key is the one to evict.
      this.#statements.delete(sql);
    } else {
      stmt = this.#db.prepare(sql);
      if (this.#statements.size >= STATEMENT_CACHE_SIZE) this.#statements.delete(this.#statements.keys().next().value as string);
    }
    this.#statements.set(sql, stmt);
    return stmt;
  }

  #counters(): { changes: bigint; lastInsertRowid: bigint; total: bigint } {
    this.#countersStmt ??= this.#db.prepare('SELECT changes(), last_insert_rowid(), total_changes()').raw(true);
    const row = this.#countersStmt.get([]) as [bigint, bigint, bigint];
    return { changes: row[0], lastInsertRowid: row[1], total: row[2] };
  }
}

function wrap<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw toSqlError(error);
  }
}

function toSqlError(error: unknown): SqlError {
  if (error instanceof SqlError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : undefined;
  return new SqlError(hranaErrorCode(code, message), message);
}
