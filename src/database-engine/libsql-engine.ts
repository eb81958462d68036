import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'libsql';
import { hranaErrorCode, SqlError } from './sql-error.ts';
import type { SqlConnection, SqlDescription, SqlEngine, SqlResult } from './sql-engine.ts';
import type { SqlValue } from './sql-value.ts';

const READONLY_BEGIN = /^\s*BEGIN\s+(?:TRANSACTION\s+)?READONLY\b/i;

type LibsqlDatabase = InstanceType<typeof Database>;

/** Tenant ids become file names, so only a safe, bounded alphabet is accepted. */
const TENANT_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/**
 * The `SqlEngine` on the `libsql` npm package (the only importer of it): one SQLite file per tenant in
 * `directory`, in WAL mode so readers on other connections are not blocked by a writer.
 */
export class LibsqlEngine implements SqlEngine {
  readonly #directory: string;

  constructor(options: { directory: string }) {
    this.#directory = options.directory;
    mkdirSync(this.#directory, { recursive: true });
  }

  open(tenant: string): SqlConnection {
    if (!TENANT_ID.test(tenant)) throw new SqlError('TENANT_INVALID', `Invalid tenant id: ${tenant}`);
    const db = wrap(() => new Database(path.join(this.#directory, `${tenant}.db`)));
    try {
      // busy_timeout 0: the engine is synchronous, so waiting for a lock inside SQLite would block the event loop
      // (and the very holder that could release it). Writers are queued by an async mutex per tenant instead.
      db.pragma('busy_timeout = 0');
      db.pragma('journal_mode = WAL');
      db.pragma('foreign_keys = ON');
      db.defaultSafeIntegers(true);
    } catch (error) {
      db.close();
      throw toSqlError(error);
    }
    return new LibsqlConnection(db);
  }
}

class LibsqlConnection implements SqlConnection {
  readonly #db: LibsqlDatabase;
  #closed = false;
  #queryOnly = false;

  constructor(db: LibsqlDatabase) {
    this.#db = db;
  }

  execute(sql: string, params: SqlValue[], options: { wantRows: boolean }): SqlResult {
    return wrap(() => {
      try {
        return this.#execute(sql, params, options);
      } finally {
        // A read-only transaction ends with COMMIT, ROLLBACK or an error that rolled it back.
        if (this.#queryOnly && !this.#db.inTransaction) {
          this.#db.pragma('query_only = OFF');
          this.#queryOnly = false;
        }
      }
    });
  }

  #execute(sql: string, params: SqlValue[], options: { wantRows: boolean }): SqlResult {
    // The client's transaction('read') sends sqld's BEGIN TRANSACTION READONLY; libsql accepts it but does
    // not enforce it, so query_only does, until the transaction ends.
    if (READONLY_BEGIN.test(sql) && !this.#db.inTransaction) {
      this.#db.pragma('query_only = ON');
      this.#queryOnly = true;
    }
    const before = this.#counters();
    const stmt = this.#db.prepare(sql);
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
      affectedRowCount,
      lastInsertRowid: after.lastInsertRowid === 0n ? null : after.lastInsertRowid,
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

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#db.close();
  }

  #counters(): { changes: bigint; lastInsertRowid: bigint; total: bigint } {
    const row = this.#db.prepare('SELECT changes(), last_insert_rowid(), total_changes()').raw(true).get() as [bigint, bigint, bigint];
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
