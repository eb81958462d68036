import { evaluateCondition } from './batch-conditions.ts';
import type { HranaBatchResult, HranaDescribeResult, HranaError, HranaStmt, HranaStmtResult, HranaStreamRequest, HranaStreamResponse } from './hrana-types.ts';
import { fromHrana, toHrana } from './hrana-values.ts';
import { bindingArray, sqlParameters } from './sql-parameters.ts';
import type { SqlConnection, SqlEngine } from './sql-engine.ts';
import { SqlError } from './sql-error.ts';
import type { UsageMeter } from './usage-meter.ts';

// Bounds from the Hrana spec's spirit: a client cannot make a stream hold unbounded SQL text.
const MAX_STORED_SQL = 150;
const MAX_SQL_BYTES = 5 * 1024 * 1024;

/** What a stream is opened with. */
export interface StreamOptions {
  tenant: string;
  engine: SqlEngine;
  /** Opened with a read-only token: every statement that would write fails. */
  readOnly?: boolean;
  meter?: UsageMeter;
}

/**
 * A Hrana stream: a turn at its tenant's shared connection plus the SQL texts stored with `store_sql`. It
 * outlives a single HTTP request (its baton names it in the next one), which is what lets a transaction span
 * requests: while its transaction is open the stream keeps the tenant's lock, so the connection is its alone.
 * Statements run only while the stream holds that lock (pipeline.ts).
 */
export class Stream {
  readonly tenant: string;
  readonly readOnly: boolean;
  readonly #engine: SqlEngine;
  readonly #meter: UsageMeter | undefined;
  readonly #storedSql = new Map<number, string>();
  #inTransaction = false;
  #closed = false;

  constructor(options: StreamOptions) {
    this.tenant = options.tenant;
    this.readOnly = options.readOnly ?? false;
    this.#engine = options.engine;
    this.#meter = options.meter;
  }

  /** True once a `close` request (or expiry) closed it; its baton is then gone. */
  get closed(): boolean {
    return this.#closed;
  }

  /** True unless this stream has a transaction open on the connection. */
  isAutocommit(): boolean {
    return !this.#inTransaction;
  }

  /** Runs one request of a pipeline; a failure is thrown as a `SqlError` and answered for that request only. */
  run(request: HranaStreamRequest): HranaStreamResponse {
    try {
      return this.#run(request);
    } finally {
      if (!this.#closed) this.#inTransaction = !this.#connect().isAutocommit();
    }
  }

  #run(request: HranaStreamRequest): HranaStreamResponse {
    if (this.#closed) throw new SqlError('STREAM_CLOSED', 'The stream is closed');
    switch (request?.type) {
      case 'execute':
        return { type: 'execute', result: this.#execute(request.stmt) };
      case 'batch':
        return { type: 'batch', result: this.#batch(request.batch?.steps) };
      case 'sequence':
        this.#connect().executeScript(this.#sql(request.sql, request.sql_id));
        return { type: 'sequence' };
      case 'describe':
        return { type: 'describe', result: this.#describe(this.#sql(request.sql, request.sql_id)) };
      case 'store_sql':
        this.#store(request.sql_id, request.sql);
        return { type: 'store_sql' };
      case 'close_sql':
        this.#storedSql.delete(request.sql_id);
        return { type: 'close_sql' };
      case 'get_autocommit':
        return { type: 'get_autocommit', is_autocommit: this.#connect().isAutocommit() };
      case 'close':
        this.close();
        return { type: 'close' };
    }
    throw new SqlError('HRANA_PROTO_ERROR', `Unknown request type: ${String((request as { type?: unknown })?.type)}`);
  }

  /** Ends the stream, rolling back its open transaction (it still holds the tenant's lock then). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#storedSql.clear();
    if (!this.#inTransaction) return;
    this.#inTransaction = false;
    try {
      this.#engine.connection(this.tenant).execute('ROLLBACK', [], { wantRows: false });
    } catch {
      // The transaction is gone already (SQLite rolls back on some errors); nothing is left to undo.
    }
  }

  #connect(): SqlConnection {
    return this.#engine.connection(this.tenant);
  }

  #execute(stmt: HranaStmt): HranaStmtResult {
    if (typeof stmt !== 'object' || stmt === null) throw new SqlError('HRANA_PROTO_ERROR', 'Missing stmt');
    const sql = this.#sql(stmt.sql, stmt.sql_id);
    const args = (stmt.args ?? []).map(fromHrana);
    const named = (stmt.named_args ?? []).map(({ name, value }) => ({ name, value: fromHrana(value) }));
    const result = this.#connect().execute(sql, bindingArray(sql, args, named), { wantRows: stmt.want_rows ?? true });
    this.#meter?.record(this.tenant, result.rowsReturned, result.affectedRowCount);
    return {
      cols: result.columns,
      rows: result.rows.map((row) => row.map(toHrana)),
      affected_row_count: result.affectedRowCount,
      last_insert_rowid: result.lastInsertRowid?.toString() ?? null,
      // sqld's usage fields; the client ignores them.
      rows_read: result.rowsReturned,
      rows_written: result.affectedRowCount,
    };
  }

  #batch(steps: unknown): HranaBatchResult {
    if (!Array.isArray(steps)) throw new SqlError('HRANA_PROTO_ERROR', 'Batch without steps');
    const results: HranaBatchResult = { step_results: [], step_errors: [] };
    const outcomes = {
      ok: (i: number) => results.step_results[i] != null,
      failed: (i: number) => results.step_errors[i] != null,
      isAutocommit: () => this.#connect().isAutocommit(),
    };
    steps.forEach((step: { condition?: unknown; stmt: HranaStmt }, i) => {
      let result: HranaStmtResult | null = null;
      let error: HranaError | null = null;
      try {
        const runs = step.condition == null || evaluateCondition(step.condition as never, i, outcomes);
        if (runs) result = this.#execute(step.stmt);
      } catch (e) {
        error = toHranaError(e);
      }
      results.step_results.push(result);
      results.step_errors.push(error);
    });
    return results;
  }

  #describe(sql: string): HranaDescribeResult {
    const description = this.#connect().describe(sql);
    return {
      params: sqlParameters(sql).map((p) => ({ name: p.name })),
      cols: description.columns,
      is_explain: /^\s*explain\b/i.test(sql),
      is_readonly: description.isReadonly,
    };
  }

  #store(id: unknown, sql: unknown): void {
    if (!Number.isInteger(id) || typeof sql !== 'string') throw new SqlError('HRANA_PROTO_ERROR', 'Invalid store_sql');
    if (this.#storedSql.has(id as number)) throw new SqlError('HRANA_PROTO_ERROR', `SQL id ${String(id)} is in use`);
    if (this.#storedSql.size >= MAX_STORED_SQL) throw new SqlError('SQL_STORE_FULL', 'Too many stored SQL texts');
    if (Buffer.byteLength(sql) > MAX_SQL_BYTES) throw new SqlError('SQL_TOO_LONG', 'SQL text too long');
    this.#storedSql.set(id as number, sql);
  }

  #sql(sql: string | null | undefined, sqlId: number | null | undefined): string {
    if (typeof sql === 'string' && sqlId == null) return sql;
    if (sql == null && sqlId != null) {
      const stored = this.#storedSql.get(sqlId);
      if (stored === undefined) throw new SqlError('SQL_NOT_FOUND', `No SQL stored with id ${sqlId}`);
      return stored;
    }
    throw new SqlError('HRANA_PROTO_ERROR', 'Exactly one of sql and sql_id must be given');
  }
}

/** The Hrana error for anything thrown while running a request; only `SqlError` messages reach the client. */
export function toHranaError(error: unknown): HranaError {
  if (error instanceof SqlError) return { message: error.message, code: error.code };
  return { message: 'Internal error', code: 'INTERNAL_ERROR' };
}
