// Applies a build's (or `cw db migrate`'s) migrations to a database over Hrana with the libSQL client: the only
// importer of `@libsql/client` outside tests. Each file runs in a transaction of its own whose first statement
// records it in `_cw_migrations`, so a file is applied whole or not at all, and two appliers racing on one
// file cannot both apply it (the second's record fails on the unique name and rolls it back).
import { createClient, LibsqlBatchError, LibsqlError, type Client } from '@libsql/client';
import type { MigrationFailure, MigrationFile } from '../../../apis/v1alpha1/migrations.ts';
import { scriptStatements } from '../../../sql/script-statements.ts';

/** The table of applied migrations, in the migrated database (as D1's `d1_migrations`). */
export const MIGRATIONS_TABLE = '_cw_migrations';

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`;

/** A migration the database records as applied. */
export interface AppliedMigration {
  readonly name: string;
  readonly checksum: string;
  readonly appliedAt: string;
}

/** What applying answers: the files applied now, in order, and the one that failed (rolled back; none after it ran). */
export interface MigrationOutcome {
  readonly applied: string[];
  readonly failed?: MigrationFailure;
}

/** An applied migration whose file changed since: refused, as D1 refuses it (a new migration must make the change). */
export class MigrationChangedError extends Error {
  override readonly name = 'MigrationChangedError';
  /** The changed file. */
  readonly file: string;

  constructor(file: string, message: string) {
    super(message);
    this.file = file;
  }
}

/** The database could not be reached or refused the connection; nothing was decided. */
export class MigrationTargetError extends Error {
  override readonly name = 'MigrationTargetError';
  /** The engine refused the token (unknown, rotated, another database's) or has no such database. */
  readonly refused: boolean;

  constructor(message: string, refused: boolean) {
    super(message);
    this.refused = refused;
  }
}

/**
 * The files of `files` not yet recorded, in order.
 * @throws MigrationChangedError when a recorded one's checksum differs from its file's
 */
export function pendingOf(files: readonly MigrationFile[], applied: readonly AppliedMigration[]): MigrationFile[] {
  const recorded = new Map(applied.map((m) => [m.name, m.checksum]));
  for (const file of files) {
    const checksum = recorded.get(file.name);
    if (checksum !== undefined && checksum !== file.checksum) {
      throw new MigrationChangedError(
        file.name,
        `${file.name} was applied with other content (checksum ${checksum.slice(0, 12)}…, now ${file.checksum.slice(0, 12)}…): add a new migration instead of changing an applied one`,
      );
    }
  }
  return files.filter((f) => !recorded.has(f.name));
}

/** A connection to one database for applying migrations. */
export class Migrator {
  readonly #client: Client;

  constructor(connection: { url: string; token: string }) {
    this.#client = createClient({ url: connection.url, authToken: connection.token });
  }

  /** The migrations the database records, in the order they were applied (none before the first). */
  async applied(): Promise<AppliedMigration[]> {
    const exists = await this.#run(() => this.#client.execute({ sql: "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", args: [MIGRATIONS_TABLE] }));
    if (exists.rows.length === 0) return [];
    const rows = await this.#run(() => this.#client.execute(`SELECT name, checksum, applied_at FROM ${MIGRATIONS_TABLE} ORDER BY id`));
    return rows.rows.map((r) => ({ name: text(r.name), checksum: text(r.checksum), appliedAt: text(r.applied_at) }));
  }

  /**
   * Applies the files not yet recorded, in order, each in its own transaction, stopping at the first that fails.
   * @throws MigrationChangedError, MigrationTargetError
   */
  async apply(files: readonly MigrationFile[], now: () => Date = () => new Date()): Promise<MigrationOutcome> {
    const pending = pendingOf(files, await this.applied());
    if (pending.length === 0) return { applied: [] };
    await this.#run(() => this.#client.execute(CREATE_TABLE));
    const applied: string[] = [];
    for (const file of pending) {
      // SQLite ends a script at a NUL: what follows one would be left out, and the file still recorded as applied.
      if (file.sql.includes('\0')) return { applied, failed: { file: file.name, statement: '', message: 'the file holds a NUL byte; remove it (SQLite would end the file there)' } };
      const statements = scriptStatements(file.sql);
      const record = { sql: `INSERT INTO ${MIGRATIONS_TABLE} (name, checksum, applied_at) VALUES (?, ?, ?)`, args: [file.name, file.checksum, now().toISOString()] };
      try {
        await this.#client.batch([record, ...statements], 'write');
      } catch (err) {
        if (!(err instanceof LibsqlError) || isConnectionError(err)) throw targetError(err);
        const index = err instanceof LibsqlBatchError ? err.statementIndex : -1;
        const statement = index <= 0 ? (index === 0 ? record.sql : '') : (statements[index - 1] ?? '');
        return { applied, failed: { file: file.name, statement: cut(statement), message: cut(sqliteMessage(err)) } };
      }
      applied.push(file.name);
    }
    return { applied };
  }

  close(): void {
    this.#client.close();
  }

  async #run<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      throw targetError(err);
    }
  }
}

/** cw-db's refusals of the caller (tenant-directory.ts), and the client's code for an HTTP status it could not parse. */
const REFUSALS = new Set(['UNAUTHORIZED', 'FORBIDDEN', 'TENANT_NOT_FOUND']);

/** Errors of the transport or the token, not of a statement. */
function isConnectionError(err: LibsqlError): boolean {
  return REFUSALS.has(err.code) || /^(HRANA_WEBSOCKET_ERROR|SERVER_ERROR|HTTP|PROTOCOL|STREAM_)/.test(err.code) || /\b(401|403|404)\b/.test(err.message);
}

function targetError(err: unknown): MigrationTargetError {
  const refused = err instanceof LibsqlError && (REFUSALS.has(err.code) || /\b(401|403|404)\b/.test(err.message));
  return new MigrationTargetError(`the database ${refused ? 'refused the connection' : 'cannot be reached'}: ${(err as Error).message}`, refused);
}

/** SQLite's own words: the client prefixes its code (`SQLITE_ERROR: no such table: x`). */
function sqliteMessage(err: LibsqlError): string {
  return err.message.replace(/^([A-Z_]+: )+/, '');
}

/** A TEXT column's value (the table holds nothing else). */
function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function cut(text: string): string {
  return text.length <= 1024 ? text : `${text.slice(0, 1021)}...`;
}
