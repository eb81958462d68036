import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Action, Authorization, Connection, type Statement } from './libsql-native.ts';
import { answerBytes, boundedColumn, columnsBytes } from './answer-size.ts';
import { attachesFiles, createsInTempSchema } from './statement-guards.ts';
import { hasStatementAfterFirst } from './statement-tail.ts';
import { scriptStatements } from '../../src/sql/script-statements.ts';
import type { GrowthFreeze } from './growth-freeze.ts';
import { runsUnderRefusal, type QuotaRefusal } from './quota-refusal.ts';
import { ALLOWED_PRAGMAS, ALLOWED_VIRTUAL_TABLE_MODULES, DENIED_FUNCTIONS, DENIED_TABLES, type SqlMode } from './sandbox.ts';
import { engineFailure, NOT_AUTHORIZED, SqlError } from './sql-error.ts';
import type { ExecuteOptions, SqlConnection, SqlDescription, SqlEngine, SqlResult } from './sql-engine.ts';
import { DEFAULT_DATABASE_LIMITS, formatBytes, type DatabaseLimits } from './sql-limits.ts';
import type { SqlValue } from './sql-value.ts';

/** Statements that may write and return rows; a false match (a column so named) costs only a savepoint. */
const RETURNING = /\breturning\b/i;
/** The savepoint a writing statement that returns rows runs under. */
const STATEMENT_SAVEPOINT = 'cw_returning';

const READONLY_BEGIN = /^\s*BEGIN\s+(?:TRANSACTION\s+)?READONLY\b/i;

/** A plain VACUUM of the tenant's own database (not VACUUM INTO a file, not of another schema). */
const OWN_VACUUM = /^\s*VACUUM(?:\s+main)?\s*;?\s*$/i;
/**
 * How often a database may be vacuumed: each VACUUM rewrites the whole database, which its replication then ships
 * to the bucket, and is counted as no rows written; one a minute is plenty to make room, a loop of them is not.
 */
export const VACUUM_INTERVAL_MS = 60_000;

/** Prepared statements kept per connection (by SQL text). */
const STATEMENT_CACHE_SIZE = 128;
/**
 * The SQL text the cache keeps per connection at most, and a statement's longest text it keeps: a compiled statement
 * holds memory of its shard's SQLite heap, which every tenant of the shard shares, for as long as it is cached
 * (128 statements of 5 MiB each starved a shard's other databases: SQLITE_NOMEM). Applications' repeated
 * statements are far shorter; longer ones are prepared each time and let go.
 */
const STATEMENT_CACHE_CHARS = 256 * 1024;
const CACHED_STATEMENT_MAX_CHARS = 16 * 1024;
/**
 * What a connection's kept statements took to compile, one at most and all together: their text does not bound their
 * programs (a 33-character SELECT over views nested by UNION ALL compiled to thousands of copies of the innermost one,
 * megabytes each, and 32 of them cached left the shard's other databases SQLITE_NOMEM), but the time to build them
 * follows their size (about 450 KiB a program at 3.6 ms, 230 KiB at 0.8 ms: found in review). Applications'
 * statements compile in a fraction of a millisecond; one past these is prepared each time and let go.
 */
const CACHED_STATEMENT_MAX_COMPILE_MS = 2;
const STATEMENT_CACHE_COMPILE_MS = 20;

/** A statement kept prepared, with what it took to compile (the cache's bound). */
interface CachedStatement {
  readonly statement: Statement;
  readonly compileMs: number;
}

/**
 * The extension every tenant connection loads first (database-server/sql/bounds/cw-sqlite-bounds.c, built by
 * scripts/setup/sqlite-bounds.sh): a value of at most 8 MiB, a LIKE/GLOB pattern of at most 4 KiB, and instr,
 * replace, LIKE, GLOB and trim that cannot run for long in one call, which a statement's deadline cannot interrupt
 * (review-184 H1). cw-db does not open a database without it.
 */
export const BOUNDS_EXTENSION = path.resolve(import.meta.dirname, '../../.tools/lib/cw-sqlite-bounds.so');

/** Tenant ids become file names, so only a safe, bounded alphabet is accepted. */
const TENANT_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** sandbox.ts as the engine's authorizer rules: the first rule that matches decides; anything else is allowed. */
const SANDBOX = {
  rules: [
    { action: [Action.ATTACH, Action.DETACH], policy: Authorization.DENY },
    { action: [Action.CREATE_TEMP_TABLE, Action.CREATE_TEMP_INDEX, Action.CREATE_TEMP_VIEW, Action.CREATE_TEMP_TRIGGER], policy: Authorization.DENY },
    ...ALLOWED_PRAGMAS.map((name) => ({ action: Action.PRAGMA, entity: name, policy: Authorization.ALLOW })),
    { action: Action.PRAGMA, policy: Authorization.DENY },
    ...DENIED_FUNCTIONS.map((name) => ({ action: Action.FUNCTION, entity: { glob: name }, policy: Authorization.DENY })),
    ...DENIED_TABLES.map((table) => ({ table, policy: Authorization.DENY })),
    ...ALLOWED_VIRTUAL_TABLE_MODULES.map((module) => ({ action: Action.CREATE_VTABLE, entity: module, policy: Authorization.ALLOW })),
    { action: Action.CREATE_VTABLE, policy: Authorization.DENY },
  ],
  defaultPolicy: Authorization.ALLOW,
};

/**
 * How every database is opened (before its sandbox, which keeps tenants from changing these): WAL, so readers are
 * not blocked by a writer and the replication can follow commits; FULL, so a commit is on the local disk before
 * it is acknowledged.
 */
export const ENGINE_SETTINGS = { journalMode: 'wal', synchronous: 'FULL' } as const;

/** Options of a `LibsqlEngine`. */
export interface LibsqlEngineOptions {
  directory: string;
  /**
   * SQLite never checkpoints by itself (`wal_autocheckpoint = 0`); the replication does, once the frames are
   * shipped. Without it, SQLite's default automatic checkpoints keep the WAL small.
   */
  manualCheckpoints?: boolean;
  /** Limits of tenants without their own (`setLimits`). */
  defaultLimits?: DatabaseLimits;
  /**
   * The most memory SQLite may allocate in this process (`hard_heap_limit`), over every connection: a statement that
   * would need more fails with SQLITE_NOMEM instead of growing the process. Process-wide, so set only where one
   * process is one shard of tenants.
   */
  memoryLimitBytes?: number;
  /**
   * Called when a prepared statement is let go (too long to cache, or pushed out of the cache): the addon frees it
   * only once it is garbage-collected, so its SQLite memory stays taken until then (local-engine.ts collects soon).
   */
  onStatementDropped?: () => void;
}

/**
 * The `SqlEngine` on the `libsql` npm package (the only importer of it): one SQLite file per tenant in
 * `directory`, in WAL mode, each connection sandboxed by an authorizer the tenant's SQL cannot change.
 */
export class LibsqlEngine implements SqlEngine {
  readonly #options: LibsqlEngineOptions;
  readonly #connections = new Map<string, LibsqlConnection>();
  readonly #limits = new Map<string, DatabaseLimits>();
  /** When each database was last vacuumed, kept by the engine: a connection closed and opened again starts afresh. */
  readonly #vacuumed = new Map<string, number>();
  #memoryLimitSet = false;

  constructor(options: LibsqlEngineOptions) {
    if (!existsSync(BOUNDS_EXTENSION)) throw new Error(`cw-db's SQLite extension is not built (${BOUNDS_EXTENSION}): run make setup (scripts/setup/sqlite-bounds.sh)`);
    this.#options = options;
    mkdirSync(options.directory, { recursive: true });
  }

  databasePath(tenant: string): string {
    if (!TENANT_ID.test(tenant)) throw new SqlError('TENANT_INVALID', `Invalid tenant id: ${tenant}`);
    return path.join(this.#options.directory, `${tenant}.db`);
  }

  connection(tenant: string): SqlConnection {
    let connection = this.#connections.get(tenant);
    if (connection === undefined || connection.closed) {
      connection = new LibsqlConnection(this.#open(tenant), this.#limitsOf(tenant), this.#vacuumClock(tenant), this.#options.onStatementDropped);
      this.#connections.set(tenant, connection);
    }
    return connection;
  }

  setLimits(tenant: string, limits: DatabaseLimits): void {
    this.#limits.set(tenant, limits);
    this.#connections.get(tenant)?.setLimits(limits);
  }

  closeTenant(tenant: string): void {
    this.#connections.get(tenant)?.close();
    this.#connections.delete(tenant);
  }

  closeAll(): void {
    for (const tenant of this.#connections.keys()) this.closeTenant(tenant);
  }

  #vacuumClock(tenant: string): VacuumClock {
    return {
      last: () => this.#vacuumed.get(tenant) ?? -Infinity,
      ran: (at) => {
        for (const [other, when] of this.#vacuumed) if (when <= at - VACUUM_INTERVAL_MS) this.#vacuumed.delete(other);
        this.#vacuumed.set(tenant, at);
      },
    };
  }

  #limitsOf(tenant: string): DatabaseLimits {
    return this.#limits.get(tenant) ?? this.#options.defaultLimits ?? DEFAULT_DATABASE_LIMITS;
  }

  #open(tenant: string): Connection {
    const db = wrap(() => new Connection(this.databasePath(tenant)));
    try {
      db.loadExtension(BOUNDS_EXTENSION);
      if (this.#options.memoryLimitBytes !== undefined && !this.#memoryLimitSet) {
        db.pragma(`hard_heap_limit = ${this.#options.memoryLimitBytes}`);
        this.#memoryLimitSet = true;
      }
      // busy_timeout 0: the engine is synchronous, so waiting for a lock inside SQLite would block the shard (and
      // the very holder that could release it). Streams take turns under an async mutex per tenant instead.
      db.pragma('busy_timeout = 0');
      db.pragma(`journal_mode = ${ENGINE_SETTINGS.journalMode}`);
      db.pragma(`synchronous = ${ENGINE_SETTINGS.synchronous}`);
      if (this.#options.manualCheckpoints) db.pragma('wal_autocheckpoint = 0');
      db.pragma('foreign_keys = ON');
      // Functions in the schema (views, triggers, defaults) run only if innocuous; temporary tables and sorts stay
      // in memory, under the heap limit, instead of filling the disk.
      db.pragma('trusted_schema = OFF');
      db.pragma('temp_store = MEMORY');
      // No TEMP objects (sandbox.ts): the authorizer refuses CREATE TEMP …, statement-guards.ts one named into the
      // temp schema, and a temp schema of one page anything past both (SQLITE_FULL). A statement's own sorts and CTEs
      // are not in it.
      db.pragma('temp.max_page_count = 1');
      dropVectorIndexes(db);
      db.defaultSafeIntegers(true);
      db.authorizer(SANDBOX);
    } catch (error) {
      db.close();
      throw engineFailure(error);
    }
    return db;
  }
}

/**
 * Per-connection settings that allowed PRAGMAs change for every later caller of the connection, and that
 * query_only does not protect: a read-only caller's changes to them are undone (`setMode`).
 */
const CONNECTION_SETTINGS = ['foreign_keys', 'recursive_triggers', 'legacy_alter_table', 'automatic_index', 'analysis_limit'] as const;

/** When a database was last vacuumed, across its connections. */
interface VacuumClock {
  last(): number;
  ran(at: number): void;
}

class LibsqlConnection implements SqlConnection {
  readonly #db: Connection;
  #limits: DatabaseLimits;
  #pageSize = 4096;
  #closed = false;
  // query_only is on while either holds: a read-only transaction, or a read-only caller.
  #queryOnly = false;
  #readonlyTransaction = false;
  #mode: SqlMode = 'read-write';
  #refusal: QuotaRefusal | undefined;
  #freeze: GrowthFreeze | undefined;
  #vacuumRoomBytes: number | undefined;
  #capMs: number | undefined;
  /** The connection's settings before the read-only caller now running, restored after it. */
  #settingsBeforeReader: unknown[] | undefined;
  #settingsStmts: Statement[] | undefined;
  readonly #vacuumClock: VacuumClock;
  // Whether max_page_count is now the database's size (a freeze) rather than its quota: set only when that
  // changes, since the engine's PRAGMAs expire the prepared statements.
  #frozen = false;
  readonly #statements = new Map<string, CachedStatement>();
  /** The SQL text of the cached statements, in characters. */
  #cachedChars = 0;
  #cachedCompileMs = 0;
  /** What the last statement `#prepare` gave took to compile (0 from the cache): its time limit counts it. */
  #compiledMs = 0;
  #countersStmt: Statement | undefined;
  #programLimitStmt: Statement | undefined;
  #tablesStmt: Statement | undefined;

  readonly #onStatementDropped: () => void;

  constructor(db: Connection, limits: DatabaseLimits, vacuumClock: VacuumClock, onStatementDropped: () => void = () => {}) {
    this.#onStatementDropped = onStatementDropped;
    this.#db = db;
    this.#limits = limits;
    this.#vacuumClock = vacuumClock;
    this.#pageSize = Number(this.#internal(() => db.pragma('page_size')));
    this.#applySizeQuota();
  }

  get closed(): boolean {
    return this.#closed;
  }

  setLimits(limits: DatabaseLimits): void {
    this.#limits = limits;
    this.#applySizeQuota();
  }

  execute(sql: string, params: SqlValue[], options: ExecuteOptions): SqlResult {
    return this.#wrap(() => {
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

  #execute(sql: string, params: SqlValue[], options: ExecuteOptions): SqlResult {
    if (this.#refusal && !runsUnderRefusal(this.#refusal, sql)) throw refused(this.#refusal);
    // The client's transaction('read') sends sqld's BEGIN TRANSACTION READONLY; libsql accepts it but does
    // not enforce it, so query_only does, until the transaction ends.
    if (READONLY_BEGIN.test(sql) && !this.#db.inTransaction) {
      this.#readonlyTransaction = true;
      this.#applyQueryOnly();
    }
    // Short texts only: the pattern backtracks on a long run of spaces, and a VACUUM is a few characters.
    if (sql.length <= 64 && OWN_VACUUM.test(sql)) return this.#vacuum();
    const before = this.#counters();
    const stmt = this.#prepare(sql);
    // Compiling is part of the statement's time: SQLite cannot interrupt it (review-184 H2: a short text compiling
    // for seconds then ran its whole limit on top), so the limit left after it bounds the run, and none left ends it.
    const leftMs = Math.ceil(this.#statementTimeoutMs() - this.#compiledMs);
    if (leftMs <= 0) throw this.#explain(new SqlError('SQLITE_INTERRUPT', 'interrupted while compiling'));
    const timeout = { queryTimeout: leftMs };
    let columns: SqlResult['columns'] = [];
    const rows: SqlValue[][] = [];
    let rowsReturned = 0;
    let bytes = 0;
    let created = 0;
    if (stmt.reader) {
      stmt.raw(true);
      // Its columns are part of the answer too, charged before its rows: names are cut (answer-size.ts), but a
      // statement of thousands of columns still answers them whether its rows are wanted or not.
      columns = stmt.columns().map(boundedColumn);
      bytes = columnsBytes(columns);
      if (bytes > options.answer.maxBytes) throw tooLarge(options, 0, bytes);
      // A statement that writes and returns rows (… RETURNING) has made every change by its first row: if its answer
      // is then refused (too large, a later row failing), they are undone, so its error means nothing of it was kept.
      const undoable = RETURNING.test(sql);
      if (undoable) this.#internal(() => this.#db.exec(`SAVEPOINT ${STATEMENT_SAVEPOINT}`));
      let answered = false;
      // Always one array argument: the package takes a lone object (a Buffer, null) for a map of named values.
      const iterator = stmt.iterate(params, timeout) as Generator<SqlValue[], void, undefined>;
      try {
        for (const row of iterator) {
          rowsReturned++;
          if (!options.wantRows) continue;
          for (const value of row) bytes += answerBytes(value);
          if (rowsReturned > options.answer.maxRows || bytes > options.answer.maxBytes) throw tooLarge(options, rowsReturned, bytes);
          rows.push(row);
        }
        answered = true;
      } finally {
        iterator.return();
        if (undoable) this.#endSavepoint(answered);
      }
    } else {
      const tables = mayWriteTablesWhole(sql) ? this.#tables() : undefined;
      stmt.run(params, timeout);
      if (tables) created = this.#rowsWrittenWhole(tables, sql);
    }
    const after = this.#counters();
    // changes() keeps the count of the last INSERT/UPDATE/DELETE even across a SELECT or DDL; only when the
    // total moved did this statement change rows (sqld reports 0 for a read, as here).
    const affectedRowCount = after.total === before.total ? 0 : Number(after.changes);
    return {
      columns,
      rows,
      rowsReturned,
      affectedRowCount,
      // total_changes() counts the rows triggers change too, which changes() leaves out; neither counts the rows
      // of a CREATE TABLE … AS SELECT or those an ALTER TABLE … DROP COLUMN rewrites, counted apart.
      rowsWritten: Number(after.total - before.total) + created,
      answerBytes: bytes,
      // Only a statement that inserted has a rowid to report: the connection is shared by the tenant's streams,
      // and its last rowid may be another stream's (or a rolled-back one's).
      lastInsertRowid: after.total !== before.total && after.lastInsertRowid !== before.lastInsertRowid ? after.lastInsertRowid : null,
    };
  }

  /**
   * VACUUM gives the pages rows freed back to the disk: the way a tenant frozen by a storage bound makes room. The
   * sandbox would refuse it, since SQLite runs it through an ATTACH of a temporary database, so the engine runs it
   * with the authorizer off; query_only and the statement time limit still hold. That temporary copy goes to a
   * file (in memory, the shard's SQLite memory would bound the databases that can be vacuumed to a few hundred
   * MiB): on the data volume in a shard (SQLITE_TMPDIR), deleted as SQLite closes it.
   */
  #vacuum(): SqlResult {
    if (this.#refusal) throw refused(this.#refusal);
    const needs = 2 * Number(this.#internal(() => this.#db.pragma('page_count'))) * this.#pageSize;
    if (this.#vacuumRoomBytes !== undefined && needs > this.#vacuumRoomBytes) {
      throw new SqlError(
        'SQLITE_FULL',
        `VACUUM needs room for two copies of the database (${formatBytes(needs)}) and the server's disk has not that much to spare: delete rows (their pages are reused) or whole databases instead`,
      );
    }
    const wait = this.#vacuumClock.last() + VACUUM_INTERVAL_MS - Date.now();
    if (wait > 0) throw new SqlError('SQLITE_BUSY', `This database was vacuumed less than ${VACUUM_INTERVAL_MS / 1000} s ago; run VACUUM again in ${Math.ceil(wait / 1000)} s`);
    // A read-only caller's VACUUM is refused by SQLite (query_only), as is one inside a transaction: nothing rewritten.
    if (!this.#queryOnly && !this.#db.inTransaction) this.#vacuumClock.ran(Date.now());
    this.#internal(() => {
      this.#db.pragma('temp_store = FILE');
      try {
        // Not cut short for a database frozen for its storage: it is how such a tenant makes room (once a minute).
        this.#db.exec('VACUUM', { queryTimeout: this.#freeze ? this.#limits.statementTimeoutMs : this.#statementTimeoutMs() });
      } finally {
        // Changing temp_store closed the temp schema; the one opened next has no page bound until it is set again.
        this.#db.pragma('temp_store = MEMORY');
        this.#db.pragma('temp.max_page_count = 1');
      }
    });
    return { columns: [], rows: [], rowsReturned: 0, affectedRowCount: 0, rowsWritten: 0, answerBytes: 0, lastInsertRowid: null };
  }

  executeScript(sql: string, written: (rows: number) => void): void {
    refuseGuardedStatements(sql);
    if (this.#refusal?.blocks === 'all') throw refused(this.#refusal);
    this.#wrap(() => {
      const before = this.#counters().total;
      let wholeRows = 0;
      try {
        this.#runScript(sql, (rows) => (wholeRows += rows));
      } finally {
        // Also when a statement fails: those before it are done (committed, outside a transaction), their rows too.
        written(Number(this.#counters().total - before) + wholeRows);
      }
    });
  }

  /**
   * Runs a script one statement at a time, so that each CREATE TABLE … AS SELECT is told from the tables just before
   * it (`wroteWhole`: the rows of those it made, statement by statement). With one look before the whole script, a
   * table the script drops would give its root page to one it makes after, and one made under a dropped table's name
   * would look like the old one.
   */
  #runScript(sql: string, wroteWhole: (rows: number) => void): void {
    // The time limit of a statement holds for the whole script, not for each of its statements.
    const deadline = performance.now() + this.#statementTimeoutMs();
    for (const statement of scriptStatements(sql)) {
      const queryTimeout = Math.ceil(deadline - performance.now());
      if (queryTimeout <= 0) throw this.#explain(new SqlError('SQLITE_INTERRUPT', 'interrupted'));
      const tables = scriptStatementMayWriteTablesWhole(statement) ? this.#tables() : undefined;
      this.#boundProgram(statement);
      this.#db.exec(statement, { queryTimeout });
      // The count runs past the deadline by at most one scan of what the statement wrote within it.
      if (tables) wroteWhole(this.#rowsWrittenWhole(tables, statement));
    }
  }

  /**
   * The tables and indexes of the database now (just before one statement that may write a table whole), by name,
   * with their root page (and a table's schema text, an index's table): a table renamed keeps its page, so a rename
   * whose text says "create" and "as" (in a comment) is no new table to count (counting it scanned every row of a
   * table of any size, on demand, with no deadline). One statement cannot both free a root page and create a table
   * or an index, so a page new since then is a new one's.
   */
  #tables(): SchemaObjects {
    this.#tablesStmt ??= this.#db.prepare("SELECT type, name, tbl_name, rootpage, sql FROM main.sqlite_schema WHERE type IN ('table', 'index')").raw(true);
    const objects: SchemaObjects = { tables: new Map(), indexes: new Map() };
    for (const [type, name, table, page, sql] of this.#tablesStmt.all([]) as [string, string, string, number | bigint, string | null][]) {
      if (type === 'table') objects.tables.set(name, { page: Number(page), sql: sql ?? '' });
      else objects.indexes.set(name, { table, page: Number(page) });
    }
    return objects;
  }

  /**
   * The rows of the tables `statement` wrote whole (`before`: the schema until then), which do not move
   * `total_changes()` and would otherwise write any number of rows past the daily quota: those it created
   * (`CREATE TABLE … AS SELECT`), those whose columns it dropped (`ALTER TABLE … DROP COLUMN` rewrites every row;
   * adding or renaming a column changes the schema text too, but rewrites none), and those it indexed anew
   * (`CREATE INDEX`, `REINDEX`: an entry for every row).
   */
  #rowsWrittenWhole(before: SchemaObjects, statement: string): number {
    const after = this.#tables();
    const written = new Set<string>();
    const tablePages = new Set([...before.tables.values()].map((t) => t.page));
    const dropping = mayDropColumn(statement);
    for (const [name, { page, sql }] of after.tables) {
      if (!tablePages.has(page) || (dropping && before.tables.has(name) && before.tables.get(name)?.sql !== sql)) written.add(name);
    }
    const indexPages = new Set([...before.indexes.values()].map((i) => i.page));
    for (const { table, page } of after.indexes.values()) if (!indexPages.has(page)) written.add(table);
    for (const table of reindexed(statement, after)) written.add(table);
    let rows = 0;
    for (const name of written) {
      const count = this.#db
        .prepare(`SELECT count(*) FROM main."${name.replaceAll('"', '""')}"`)
        .pluck(true)
        .get([]);
      rows += Number(count);
    }
    return rows;
  }

  describe(sql: string): SqlDescription {
    return this.#wrap(() => {
      refuseGuardedStatements(sql);
      refuseStatementTail(sql);
      this.#boundProgram(sql);
      const stmt = this.#db.prepare(sql);
      const columns = stmt.reader ? stmt.columns().map(boundedColumn) : [];
      // The package does not expose sqlite3_stmt_readonly; a statement that returns rows and is not DML with
      // RETURNING is the closest honest answer.
      const isReadonly = stmt.reader && !/^\s*(insert|update|delete|replace|with)\b/i.test(sql);
      return { columns, isReadonly };
    });
  }

  isAutocommit(): boolean {
    return !this.#db.inTransaction;
  }

  setStatementCap(capMs: number | undefined): void {
    this.#capMs = capMs !== undefined && capMs < this.#limits.statementTimeoutMs ? capMs : undefined;
  }

  #statementTimeoutMs(): number {
    return this.#capMs ?? this.#limits.statementTimeoutMs;
  }

  setMode(mode: SqlMode, refusal?: QuotaRefusal, freeze?: GrowthFreeze, vacuumRoomBytes?: number): void {
    this.#mode = mode;
    this.#refusal = refusal;
    this.#freeze = freeze;
    this.#vacuumRoomBytes = vacuumRoomBytes;
    this.#wrap(() => {
      // What a read-only caller changed of the connection's settings is undone before the next request, and what
      // they are is noted before a read-only caller's: query_only does not stop these PRAGMAs. Not inside a
      // transaction, where setting them does nothing: what was noted waits until it ends.
      if (this.#settingsBeforeReader && !this.#db.inTransaction) {
        this.#restoreSettings(this.#settingsBeforeReader);
        this.#settingsBeforeReader = undefined;
      }
      if (mode === 'read-only') this.#settingsBeforeReader ??= this.#readSettings();
      this.#applyQueryOnly();
      if ((freeze !== undefined) !== this.#frozen) this.#applySizeQuota();
    });
  }

  /** The values of CONNECTION_SETTINGS, in order, through statements prepared once (a read-only request's hot path). */
  #readSettings(): unknown[] {
    this.#settingsStmts ??= CONNECTION_SETTINGS.map((name) => this.#db.prepare(`PRAGMA ${name}`).raw(true));
    return this.#settingsStmts.map((stmt) => (stmt.get([]) as unknown[])[0]);
  }

  #restoreSettings(before: readonly unknown[]): void {
    const now = this.#readSettings();
    CONNECTION_SETTINGS.forEach((name, i) => {
      if (now[i] !== before[i]) this.#db.pragma(`${name} = ${Number(before[i])}`);
    });
  }

  checkpoint(): void {
    this.#wrap(() => this.#internal(() => this.#db.pragma('wal_checkpoint(TRUNCATE)')));
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#db.close();
    // The addon's statements hold the SQLite connection: it is closed (its memory freed, its WAL checkpointed and
    // removed) once they are collected, so none is kept from the collector here (local-engine.ts collects).
    this.#statements.clear();
    this.#cachedChars = 0;
    this.#cachedCompileMs = 0;
    this.#countersStmt = undefined;
    this.#programLimitStmt = undefined;
    this.#tablesStmt = undefined;
    this.#settingsStmts = undefined;
  }

  #applyQueryOnly(): void {
    const on = this.#readonlyTransaction || this.#mode === 'read-only' || this.#refusal !== undefined;
    if (on === this.#queryOnly) return;
    this.#internal(() => this.#db.pragma(`query_only = ${on ? 'ON' : 'OFF'}`));
    this.#queryOnly = on;
  }

  /**
   * The quota as SQLite's page limit: a write that would grow the database past it fails with SQLITE_FULL. Under
   * a freeze the limit is 1 page, which SQLite raises to the pages the database has: it cannot grow at all.
   */
  #applySizeQuota(): void {
    const frozen = this.#freeze !== undefined;
    const pages = frozen ? 1 : Math.max(1, Math.floor(this.#limits.maxSizeBytes / this.#pageSize));
    this.#internal(() => this.#db.pragma(`max_page_count = ${pages}`));
    // Only once it holds: a PRAGMA that failed (out of memory) is tried again at the next request.
    this.#frozen = frozen;
  }

  /**
   * Keeps (`RELEASE`) or undoes what the statement under {@link STATEMENT_SAVEPOINT} did. Outside a transaction the
   * `RELEASE` is the commit: when it fails (a deferred foreign key, a full disk) the statement's changes are undone and
   * the failure is the statement's, never an answer for rows not stored.
   */
  #endSavepoint(keep: boolean): void {
    if (keep) {
      try {
        this.#internal(() => this.#db.exec(`RELEASE ${STATEMENT_SAVEPOINT}`));
        return;
      } catch (err) {
        this.#undoSavepoint();
        throw err;
      }
    }
    this.#undoSavepoint();
  }

  #undoSavepoint(): void {
    try {
      this.#internal(() => this.#db.exec(`ROLLBACK TO ${STATEMENT_SAVEPOINT}; RELEASE ${STATEMENT_SAVEPOINT}`));
    } catch {
      // No such savepoint: the failure that ended the statement ended its transaction, and its changes, too.
    }
  }

  /**
   * Runs the engine's own PRAGMAs, which the sandbox refuses to tenants. Setting the authorizer again expires
   * the prepared statements, which SQLite prepares anew (under the sandbox) on their next run.
   */
  #internal<T>(run: () => T): T {
    this.#db.authorizer(null);
    try {
      return run();
    } finally {
      this.#db.authorizer(SANDBOX);
    }
  }

  /** Runs `run`, turning the engine's failures into the tenant's errors, worded with its limits. */
  #wrap<T>(run: () => T): T {
    try {
      return run();
    } catch (error) {
      // The engine's own refusals say what they mean already; only SQLite's errors are worded with the limits.
      if (error instanceof SqlError) throw error;
      throw this.#explain(engineFailure(error));
    }
  }

  #explain(error: SqlError): SqlError {
    switch (error.code) {
      case 'SQLITE_INTERRUPT':
        if (this.#capMs !== undefined) {
          return new SqlError(
            'SQLITE_INTERRUPT',
            `The statement was interrupted after ${this.#capMs / 1000} s: other databases wait for its shard, and while they do a project's statements are cut short once it has used about a second of the shard's recent time; retry later, or split the work into shorter statements`,
          );
        }
        return new SqlError('SQLITE_INTERRUPT', `The statement was interrupted: it ran longer than this database's statement time limit of ${this.#limits.statementTimeoutMs / 1000} s`);
      case 'SQLITE_READONLY':
        // Writes are refused for the quota (query_only): the client is told which, and until when.
        return this.#refusal ? refused(this.#refusal) : error;
      case 'SQLITE_FULL':
        if (this.#freeze) return new SqlError('SQLITE_FULL', this.#freeze.message);
        return new SqlError(
          'SQLITE_FULL',
          `The database is full: the write would take it past its size quota of ${formatBytes(this.#limits.maxSizeBytes)} (or it creates a TEMP object, which a database may not have)`,
        );
      default:
        return error;
    }
  }

  /**
   * A prepared statement, from a small per-connection cache by SQL text: the connection lives as long as its
   * tenant is open, and applications repeat the same statements (the profile showed preparing at a tenth of a read).
   */
  #prepare(sql: string): Statement {
    this.#compiledMs = 0;
    let stmt = this.#statements.get(sql);
    if (stmt !== undefined) {
      // Most recently used last: a Map iterates in insertion order, so the first key is the one to evict.
      this.#statements.delete(sql);
    } else {
      refuseGuardedStatements(sql);
      refuseStatementTail(sql);
      this.#boundProgram(sql);
      const started = performance.now();
      const prepared = this.#db.prepare(sql);
      const compileMs = performance.now() - started;
      this.#compiledMs = compileMs;
      if (sql.length > CACHED_STATEMENT_MAX_CHARS || compileMs > CACHED_STATEMENT_MAX_COMPILE_MS) {
        this.#onStatementDropped();
        return prepared;
      }
      stmt = { statement: prepared, compileMs };
      this.#cachedChars += sql.length;
      this.#cachedCompileMs += compileMs;
      while (this.#statements.size > 0 && (this.#statements.size >= STATEMENT_CACHE_SIZE || this.#cachedChars > STATEMENT_CACHE_CHARS || this.#cachedCompileMs > STATEMENT_CACHE_COMPILE_MS)) {
        const [oldest, kept] = this.#statements.entries().next().value as [string, CachedStatement];
        this.#statements.delete(oldest);
        this.#cachedChars -= oldest.length;
        this.#cachedCompileMs -= kept.compileMs;
        this.#onStatementDropped();
      }
    }
    this.#statements.set(sql, stmt);
    return stmt.statement;
  }

  /**
   * Bounds the program `sql` may compile to by its length (cw-sqlite-bounds.c, `cw_set_vdbe_limit`): text that copies
   * no CTE or view compiles to at most about 1.5 instructions a byte, one that does to as many as its copies (review-184 H2).
   */
  #boundProgram(sql: string): void {
    this.#programLimitStmt ??= this.#db.prepare('SELECT cw_set_vdbe_limit(?)').raw(true);
    this.#programLimitStmt.get([2 * sql.length]);
  }

  #counters(): { changes: bigint; lastInsertRowid: bigint; total: bigint } {
    this.#countersStmt ??= this.#db.prepare('SELECT changes(), last_insert_rowid(), total_changes()').raw(true);
    const row = this.#countersStmt.get([]) as [bigint, bigint, bigint];
    return { changes: row[0], lastInsertRowid: row[1], total: row[2] };
  }
}

function refused(refusal: QuotaRefusal): SqlError {
  return new SqlError(refusal.code, refusal.message);
}

function tooLarge(options: ExecuteOptions, rows: number, bytes: number): SqlError {
  if (rows === 0)
    return new SqlError(
      'RESPONSE_TOO_LARGE',
      `The result is too large (the names of its columns alone take more than ${formatBytes(options.answer.maxBytes)}): select fewer columns, or name them shorter`,
    );
  const over = rows > options.answer.maxRows ? `more than ${options.answer.maxRows} rows` : `more than ${formatBytes(options.answer.maxBytes)}`;
  return new SqlError('RESPONSE_TOO_LARGE', `The result is too large (${over} at row ${rows}, about ${formatBytes(bytes)}): select fewer rows or columns, or page with LIMIT and OFFSET`);
}

function wrap<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw engineFailure(error);
  }
}

/** Refuses what the authorizer cannot tell apart (statement-guards.ts): ATTACH and DETACH, objects named into temp. */
function refuseGuardedStatements(sql: string): void {
  if (attachesFiles(sql) || createsInTempSchema(sql)) throw new SqlError('SQLITE_AUTH', NOT_AUTHORIZED);
}

/** One statement per `execute` or batch step, as sqld has it (`sequence` runs several): see statement-tail.ts. */
function refuseStatementTail(sql: string): void {
  if (hasStatementAfterFirst(sql))
    throw new SqlError('SQL_MANY_STATEMENTS', 'SQL string contains more than one statement: send one per execute, several as a batch, or a script as a sequence (executeMultiple)');
}

/**
 * Drops the database's libSQL vector indexes (DiskANN), which the sandbox no longer lets a tenant create: their nodes
 * are rows of plain tables the tenant can write, and libSQL trusts them, so one made before the refusal let a tenant's
 * UPDATE of a node and a DELETE crash the shard (every database of it) again after every restart. Their searches
 * (`vector_top_k`) are refused too; the vectors themselves stay in their tables.
 */
function dropVectorIndexes(db: Connection): void {
  const names = db.prepare("SELECT name FROM main.sqlite_schema WHERE type = 'index' AND sql LIKE '%libsql_vector_idx%'").pluck(true).all([]) as string[];
  for (const name of names) db.exec(`DROP INDEX main."${name.replaceAll('"', '""')}"`);
}

/**
 * Whether a statement may create a table from a query (`CREATE TABLE … AS SELECT`): the words `create` and `as`
 * anywhere in it, comments included, so nothing in front of them hides one; a statement that only looks like it
 * costs one read of the schema. Two linear searches, not one pattern that could backtrack on long text.
 */
export function mayCreateTableAs(sql: string): boolean {
  return /create/i.test(sql) && /\bas\b/i.test(sql);
}

/** Whether `sql` may drop a column (SQLite then rewrites every row of its table); a false match costs a read of the schema. */
function mayDropColumn(sql: string): boolean {
  return /alter/i.test(sql) && /\bdrop\b/i.test(sql);
}

/** Whether `sql` may write a table whole without moving `total_changes()`: create one from a query, drop a column, index one. */
function mayWriteTablesWhole(sql: string): boolean {
  return mayCreateTableAs(sql) || mayDropColumn(sql) || /index/i.test(sql);
}

/** A database's tables (root page, schema text) and indexes (table, root page), by name. */
interface SchemaObjects {
  readonly tables: Map<string, { page: number; sql: string }>;
  readonly indexes: Map<string, { table: string; page: number }>;
}

/**
 * The tables a `REINDEX` rebuilds the indexes of (in place: their root pages stay): the one it names, or the
 * table of the index it names; for none, or a collation, every table with an index.
 */
function reindexed(statement: string, schema: SchemaObjects): string[] {
  const target = /^(?:\s+|--[^\n]*\n?|\/\*[\s\S]*?\*\/)*reindex\b\s*(?:"?main"?\s*\.\s*)?["`[]?([^"`\];\s]*)/i.exec(statement);
  if (!target) return [];
  const named = (target[1] ?? '').toLowerCase();
  const table = [...schema.tables.keys()].find((name) => name.toLowerCase() === named);
  if (table) return [table];
  const index = [...schema.indexes].find(([name]) => name.toLowerCase() === named);
  if (index) return [index[1].table];
  return [...new Set([...schema.indexes.values()].map((i) => i.table))];
}

/**
 * Whether one statement of a script (as scriptStatements cuts it, from its first word) may write a table whole: it
 * starts with CREATE and says "table" or "index" too, or with ALTER or REINDEX, so a migration's views and triggers
 * cost no read of the schema.
 */
function scriptStatementMayWriteTablesWhole(statement: string): boolean {
  if (/^create\b/i.test(statement)) return (/\btable\b/i.test(statement) && mayCreateTableAs(statement)) || /\bindex\b/i.test(statement);
  return (/^alter\b/i.test(statement) && mayDropColumn(statement)) || /^reindex\b/i.test(statement);
}
