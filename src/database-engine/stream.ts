import { evaluateCondition } from './batch-conditions.ts';
import type { HranaBatchResult, HranaDescribeResult, HranaError, HranaStmt, HranaStmtResult, HranaStreamRequest, HranaStreamResponse } from './hrana-types.ts';
import { fromHrana, toHrana } from './hrana-values.ts';
import { bindingArray, sqlParameters } from './sql-parameters.ts';
import type { SqlConnection, SqlEngine } from './sql-engine.ts';
import { SqlError } from './sql-error.ts';

// Bounds from the Hrana spec's spirit: a client cannot make a stream hold unbounded SQL text.
const MAX_STORED_SQL = 150;
const MAX_SQL_BYTES = 5 * 1024 * 1024;

/**
 * A Hrana stream: one connection to one tenant's database, opened on first use, plus the SQL texts stored with
 * `store_sql`. It outlives a single HTTP request (its baton names it in the next one), which is what lets a
 * transaction span requests.
 */
export class Stream {
  readonly tenant: string;
  readonly #engine: SqlEngine;
  #connection: SqlConnection | null = null;
  readonly #storedSql = new Map<number, string>();
  #closed = false;

  constructor(tenant: string, engine: SqlEngine) {
    this.tenant = tenant;
    this.#engine = engine;
  }

  /** True once a `close` request (or expiry) closed it; its baton is then gone. */
  get closed(): boolean {
    return this.#closed;
  }

  /** True unless the connection is inside a transaction; a stream that never connected is in autocommit. */
  isAutocommit(): boolean {
    return this.#connection?.isAutocommit() ?? true;
  }

  /** Runs one request of a pipeline; a failure is thrown as a `SqlError` and answered for that request only. */
  run(request: HranaStreamRequest): HranaStreamResponse {
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
        return { type: 'get_autocommit', is_autocommit: this.isAutocommit() };
      case 'close':
        this.close();
        return { type: 'close' };
    }
    throw new SqlError('HRANA_PROTO_ERROR', `Unknown request type: ${String((request as { type?: unknown })?.type)}`);
  }

  /** Closes the connection (rolling back an open transaction). */
  close(): void {
    this.#closed = true;
    this.#storedSql.clear();
    this.#connection?.close();
    this.#connection = null;
  }

  #connect(): SqlConnection {
    this.#connection ??= this.#engine.open(this.tenant);
    return this.#connection;
  }

  #execute(stmt: HranaStmt): HranaStmtResult {
    if (typeof stmt !== 'object' || stmt === null) throw new SqlError('HRANA_PROTO_ERROR', 'Missing stmt');
    const sql = this.#sql(stmt.sql, stmt.sql_id);
    const args = (stmt.args ?? []).map(fromHrana);
    const named = (stmt.named_args ?? []).map(({ name, value }) => ({ name, value: fromHrana(value) }));
    const result = this.#connect().execute(sql, bindingArray(sql, args, named), { wantRows: stmt.want_rows ?? true });
    return {
      cols: result.columns,
      rows: result.rows.map((row) => row.map(toHrana)),
      affected_row_count: result.affectedRowCount,
      last_insert_rowid: result.lastInsertRowid?.toString() ?? null,
    };
  }

  #batch(steps: unknown): HranaBatchResult {
    if (!Array.isArray(steps)) throw new SqlError('HRANA_PROTO_ERROR', 'Batch without steps');
    const results: HranaBatchResult = { step_results: [], step_errors: [] };
    const outcomes = {
      ok: (i: number) => results.step_results[i] != null,
      failed: (i: number) => results.step_errors[i] != null,
      isAutocommit: () => this.isAutocommit(),
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
