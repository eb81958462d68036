// The libSQL engine as its native addon exposes it (npm `libsql-linux-x64-gnu`, the platform package of `libsql`
// 0.6): the only importer of it. The `libsql` wrapper package is not used because it lists an optional dependency
// per platform, several of which the registry this project installs from does not carry, so `npm ci` could not
// install it; its JavaScript is a thin layer over these same calls (as workerd is used through its platform package).
import { createRequire } from 'node:module';

/** SQLite authorizer decisions. */
export const Authorization = { ALLOW: 0, DENY: 1 } as const;

/** SQLite authorizer action codes (sqlite3.h), the ones the sandbox names. */
export const Action = {
  CREATE_TEMP_INDEX: 3,
  CREATE_TEMP_TABLE: 4,
  CREATE_TEMP_TRIGGER: 5,
  CREATE_TEMP_VIEW: 6,
  PRAGMA: 19,
  ATTACH: 24,
  DETACH: 25,
  FUNCTION: 31,
  CREATE_VTABLE: 29,
} as const;

/** A value as the addon binds and returns it (with safe integers on: 64-bit integers as bigints). */
export type NativeValue = null | bigint | number | string | Uint8Array;

interface QueryOptions {
  queryTimeout?: number;
}
interface NativeStatement {
  raw(on?: boolean): NativeStatement;
  pluck(on?: boolean): NativeStatement;
  columns(): { name: string; type: string | null }[];
}
interface NativeRows {
  close(): void;
}
interface NativeDatabase {
  inTransaction(): boolean;
  authorizer(config: unknown): void;
  defaultSafeIntegers(on?: boolean): void;
  loadExtension(path: string): void;
  close(): void;
}
interface Addon {
  Database: new (path: string, options?: Record<string, unknown>) => NativeDatabase;
  databasePrepareSync(db: NativeDatabase, sql: string): NativeStatement;
  databaseExecSync(db: NativeDatabase, sql: string, options?: QueryOptions): void;
  statementRunSync(stmt: NativeStatement, params?: unknown, options?: QueryOptions): { changes: number; lastInsertRowid: number };
  statementGetSync(stmt: NativeStatement, params?: unknown, options?: QueryOptions): unknown;
  statementIterateSync(stmt: NativeStatement, params?: unknown, options?: QueryOptions): NativeRows;
  iteratorNextSync(rows: NativeRows): { value: unknown; done: boolean };
}

const addon = createRequire(import.meta.url)('libsql-linux-x64-gnu') as Addon;

/** A prepared statement. Parameters are always one array, bound by index. */
export class Statement {
  readonly #stmt: NativeStatement;

  constructor(stmt: NativeStatement) {
    this.#stmt = stmt;
  }

  /** True when it returns rows (has result columns), as SELECT and RETURNING do. */
  get reader(): boolean {
    return this.#stmt.columns().length > 0;
  }

  columns(): { name: string; type: string | null }[] {
    return this.#stmt.columns();
  }

  /** Rows come back as arrays rather than objects. */
  raw(on = true): this {
    this.#stmt.raw(on);
    return this;
  }

  /** A row's first value only (with `get`). */
  pluck(on = true): this {
    this.#stmt.pluck(on);
    return this;
  }

  run(params: NativeValue[] = [], options?: QueryOptions): { changes: number } {
    return addon.statementRunSync(this.#stmt, params, options);
  }

  get(params: NativeValue[] = [], options?: QueryOptions): unknown {
    return addon.statementGetSync(this.#stmt, params, options);
  }

  /** The rows one at a time; `return()` (a `for … of` that stops early) ends the statement. */
  *iterate(params: NativeValue[] = [], options?: QueryOptions): Generator<unknown, void, undefined> {
    const rows = addon.statementIterateSync(this.#stmt, params, options);
    try {
      for (let next = addon.iteratorNextSync(rows); !next.done; next = addon.iteratorNextSync(rows)) yield next.value;
    } finally {
      rows.close();
    }
  }

  all(params: NativeValue[] = [], options?: QueryOptions): unknown[] {
    return [...this.iterate(params, options)];
  }
}

/** One connection to one database file. */
export class Connection {
  readonly #db: NativeDatabase;

  constructor(path: string) {
    this.#db = new addon.Database(path, {});
  }

  get inTransaction(): boolean {
    return this.#db.inTransaction();
  }

  prepare(sql: string): Statement {
    return new Statement(addon.databasePrepareSync(this.#db, sql));
  }

  exec(sql: string, options?: QueryOptions): void {
    addon.databaseExecSync(this.#db, sql, options);
  }

  /** `PRAGMA source`, answering the first value of its first row (or undefined). */
  pragma(source: string): unknown {
    const stmt = this.prepare(`PRAGMA ${source}`);
    if (!stmt.reader) {
      stmt.run();
      return undefined;
    }
    const row = stmt.raw().get() as unknown[] | undefined;
    return row?.[0];
  }

  /** Rules `{rules: [{action, table?, entity?, policy}], defaultPolicy}` (first match decides), or null for none. */
  authorizer(config: unknown): void {
    this.#db.authorizer(config);
  }

  defaultSafeIntegers(on: boolean): void {
    this.#db.defaultSafeIntegers(on);
  }

  /** Loads a SQLite extension into this connection (the addon allows loading only for this call: SQL cannot). */
  loadExtension(path: string): void {
    this.#db.loadExtension(path);
  }

  close(): void {
    this.#db.close();
  }
}
