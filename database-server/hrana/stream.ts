import { evaluateCondition } from './batch-conditions.ts';
import type { HranaBatchResult, HranaDescribeResult, HranaError, HranaStmt, HranaStmtResult, HranaStreamRequest, HranaStreamResponse } from './hrana-types.ts';
import { fromHrana, toHrana } from './hrana-values.ts';
import { bindingArray, sqlParameters } from './sql-parameters.ts';
import type { SqlConnection, SqlEngine } from '../sql/sql-engine.ts';
import { columnsBytes, cutText } from '../sql/answer-size.ts';
import { SqlError } from '../sql/sql-error.ts';
import { formatBytes, type AnswerLimits } from '../sql/sql-limits.ts';
import type { ProjectMemory } from './project-memory.ts';

// A client cannot make a stream hold unbounded SQL text: at most this many stored texts, this much text in all.
const MAX_STORED_SQL = 150;
/**
 * One statement's text at most. SQLite compiles a statement whole before it can be interrupted, so its length bounds
 * what a tenant can hold a shard for unbound by the statement cap: 1 MiB takes about 80 ms here (4 MiB took 280 ms,
 * past the 250 ms a contended statement may run: a hostile run). Large values go as parameters; D1 allows 100 KB.
 */
const MAX_SQL_BYTES = 1024 * 1024;
const MAX_STORED_SQL_BYTES = 10 * 1024 * 1024;
/**
 * An error's message at most, in UTF-16 code units; longer ones are cut. SQLite's messages quote the statement's
 * names ("no such table: …"), which may be as long as its text: a stored 900 KB name run by 100 batch steps
 * answered 90 MB (review). The code says what failed; the message's first 4 Ki characters say where.
 */
export const MAX_ERROR_MESSAGE_CHARS = 4096;
// The fixed part of an error's (or a describe parameter's) Hrana JSON.
const ERROR_OVERHEAD = 64;
const PARAM_OVERHEAD = 16;

/** What a stream is opened with. */
export interface StreamOptions {
  tenant: string;
  engine: SqlEngine;
  /** Where its stored SQL text is charged, with the other streams of its project in this process; absent: only the stream's own bound. */
  storedSql?: { memory: ProjectMemory; project: string };
}

/**
 * What one pipeline request may answer: each statement at most `statement`, all of them together at most
 * `totalBytes` (`usedBytes` counts up as statements answer). Past either the statement fails.
 */
export interface AnswerBudget {
  statement: AnswerLimits;
  totalBytes: number;
  usedBytes: number;
}

/** What a pipeline's statements did, for the usage figures. */
export interface StatementCounts {
  rowsRead: number;
  rowsWritten: number;
}

/**
 * A Hrana stream: a turn at its tenant's shared connection plus the SQL texts stored with `store_sql`. It
 * outlives a single HTTP request (its baton names it in the next one), which is what lets a transaction span
 * requests. Statements run only while the tenant's lock is held for the stream (the main process holds it).
 * Between statements the stream awaits `turn`, so the other tenants of its shard get theirs.
 */
export class Stream {
  readonly tenant: string;
  readonly #engine: SqlEngine;
  readonly #budget: StreamOptions['storedSql'];
  readonly #storedSql = new Map<number, string>();
  #storedBytes = 0;
  #inTransaction = false;
  #closed = false;

  constructor(options: StreamOptions) {
    this.tenant = options.tenant;
    this.#engine = options.engine;
    this.#budget = options.storedSql;
  }

  /** True once a `close` request (or expiry) closed it. */
  get closed(): boolean {
    return this.#closed;
  }

  /** True unless this stream has a transaction open on the tenant's connection. */
  isAutocommit(): boolean {
    return !this.#inTransaction;
  }

  /** Runs one request of a pipeline; a failure is thrown as a `SqlError` and answered for that request only. */
  async run(request: HranaStreamRequest, context: { budget: AnswerBudget; counts: StatementCounts; turn: () => Promise<void> }): Promise<HranaStreamResponse> {
    try {
      return await this.#run(request, context);
    } catch (error) {
      // Its error is answered too, and counted with the request's answers.
      context.budget.usedBytes += errorBytes(error);
      throw error;
    } finally {
      if (!this.#closed) this.#inTransaction = !this.#connect().isAutocommit();
    }
  }

  async #run(request: HranaStreamRequest, context: { budget: AnswerBudget; counts: StatementCounts; turn: () => Promise<void> }): Promise<HranaStreamResponse> {
    if (this.#closed) throw new SqlError('STREAM_CLOSED', 'The stream is closed');
    switch (request?.type) {
      case 'execute':
        return { type: 'execute', result: this.#execute(request.stmt, context) };
      case 'batch':
        return { type: 'batch', result: await this.#batch(request.batch?.steps, context) };
      case 'sequence':
        this.#connect().executeScript(this.#sql(request.sql, request.sql_id), (rows) => (context.counts.rowsWritten += rows));
        return { type: 'sequence' };
      case 'describe':
        return { type: 'describe', result: this.#describe(this.#sql(request.sql, request.sql_id), context.budget) };
      case 'store_sql':
        this.#store(request.sql_id, request.sql);
        return { type: 'store_sql' };
      case 'close_sql':
        this.#unstore(request.sql_id);
        return { type: 'close_sql' };
      case 'get_autocommit':
        return { type: 'get_autocommit', is_autocommit: this.#connect().isAutocommit() };
      case 'close':
        this.close();
        return { type: 'close' };
    }
    throw new SqlError('HRANA_PROTO_ERROR', `Unknown request type: ${String((request as { type?: unknown })?.type)}`);
  }

  /** Ends the stream, rolling back its open transaction (the connection is shared: only one it opened). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#storedSql.clear();
    this.#budget?.memory.release(this.#budget.project, this.#storedBytes);
    this.#storedBytes = 0;
    if (!this.#inTransaction) return;
    this.#inTransaction = false;
    try {
      this.#connect().execute('ROLLBACK', [], { wantRows: false, answer: { maxRows: 0, maxBytes: 0 } });
    } catch {
      // The transaction is gone already (SQLite rolls back on some errors); nothing is left to undo.
    }
  }

  #connect(): SqlConnection {
    return this.#engine.connection(this.tenant);
  }

  #execute(stmt: HranaStmt, context: { budget: AnswerBudget; counts: StatementCounts }): HranaStmtResult {
    if (typeof stmt !== 'object' || stmt === null) throw new SqlError('HRANA_PROTO_ERROR', 'Missing stmt');
    const sql = this.#sql(stmt.sql, stmt.sql_id);
    const args = (stmt.args ?? []).map(fromHrana);
    const named = (stmt.named_args ?? []).map(({ name, value }) => ({ name, value: fromHrana(value) }));
    const { budget } = context;
    const left = leftOf(budget);
    const answer = { maxRows: budget.statement.maxRows, maxBytes: Math.min(budget.statement.maxBytes, left) };
    const result = this.#connect().execute(sql, bindingArray(sql, args, named), { wantRows: stmt.want_rows ?? true, answer });
    context.counts.rowsRead += result.rowsReturned;
    context.counts.rowsWritten += result.rowsWritten;
    const encoded: HranaStmtResult = {
      cols: result.columns,
      rows: result.rows.map((row) => row.map(toHrana)),
      affected_row_count: result.affectedRowCount,
      last_insert_rowid: result.lastInsertRowid?.toString() ?? null,
      // sqld's usage fields; the client ignores them.
      rows_read: result.rowsReturned,
      rows_written: result.rowsWritten,
    };
    budget.usedBytes += result.answerBytes;
    return encoded;
  }

  async #batch(steps: unknown, context: { budget: AnswerBudget; counts: StatementCounts; turn: () => Promise<void> }): Promise<HranaBatchResult> {
    if (!Array.isArray(steps)) throw new SqlError('HRANA_PROTO_ERROR', 'Batch without steps');
    const results: HranaBatchResult = { step_results: [], step_errors: [] };
    const outcomes = {
      ok: (i: number) => results.step_results[i] != null,
      failed: (i: number) => results.step_errors[i] != null,
      isAutocommit: () => this.#connect().isAutocommit(),
    };
    for (const [i, step] of (steps as { condition?: unknown; stmt: HranaStmt }[]).entries()) {
      if (i > 0) await context.turn();
      let result: HranaStmtResult | null = null;
      let error: HranaError | null = null;
      try {
        const runs = step?.condition == null || evaluateCondition(step.condition as never, i, outcomes);
        if (runs) result = this.#execute(step?.stmt, context);
      } catch (e) {
        error = toHranaError(e);
        context.budget.usedBytes += errorBytes(e);
      }
      results.step_results.push(result);
      results.step_errors.push(error);
    }
    return results;
  }

  /** What `sql` takes and answers, charged to the request's answers as a statement's columns are. */
  #describe(sql: string, budget: AnswerBudget): HranaDescribeResult {
    const left = leftOf(budget);
    const description = this.#connect().describe(sql);
    const params = sqlParameters(sql).map((p) => ({ name: p.name === null ? null : cutText(p.name, MAX_ERROR_MESSAGE_CHARS) }));
    let bytes = columnsBytes(description.columns);
    for (const { name } of params) bytes += PARAM_OVERHEAD + (name === null ? 0 : Buffer.byteLength(name));
    if (bytes > Math.min(budget.statement.maxBytes, left))
      throw new SqlError('RESPONSE_TOO_LARGE', `The description is too large (about ${formatBytes(bytes)} of columns and parameters): describe a shorter statement`);
    budget.usedBytes += bytes;
    return {
      params,
      cols: description.columns,
      is_explain: /^\s*explain\b/i.test(sql),
      is_readonly: description.isReadonly,
    };
  }

  #store(id: unknown, sql: unknown): void {
    if (!Number.isInteger(id) || typeof sql !== 'string') throw new SqlError('HRANA_PROTO_ERROR', 'Invalid store_sql');
    if (this.#storedSql.has(id as number)) throw new SqlError('HRANA_PROTO_ERROR', `SQL id ${String(id)} is in use`);
    if (this.#storedSql.size >= MAX_STORED_SQL) throw new SqlError('SQL_STORE_FULL', `Too many stored SQL texts (at most ${MAX_STORED_SQL} a stream)`);
    const bytes = Buffer.byteLength(sql);
    if (bytes > MAX_SQL_BYTES) throw new SqlError('SQL_TOO_LONG', `SQL text too long (at most ${formatBytes(MAX_SQL_BYTES)})`);
    if (this.#storedBytes + bytes > MAX_STORED_SQL_BYTES) throw new SqlError('SQL_STORE_FULL', `Too much stored SQL text (at most ${formatBytes(MAX_STORED_SQL_BYTES)} a stream)`);
    if (this.#budget && !this.#budget.memory.tryCharge(this.#budget.project, bytes)) {
      const limit = formatBytes(this.#budget.memory.limitBytes);
      throw new SqlError('SQL_STORE_FULL', `This project's streams store ${limit} of SQL text already (at most ${limit} together): close some stored SQL or streams`);
    }
    this.#storedSql.set(id as number, sql);
    this.#storedBytes += bytes;
  }

  #unstore(id: number): void {
    const sql = this.#storedSql.get(id);
    if (sql === undefined) return;
    this.#storedSql.delete(id);
    this.#storedBytes -= Buffer.byteLength(sql);
    this.#budget?.memory.release(this.#budget.project, Buffer.byteLength(sql));
  }

  #sql(sql: string | null | undefined, sqlId: number | null | undefined): string {
    if (typeof sql === 'string' && sqlId == null) {
      if (sql.length > MAX_SQL_BYTES) throw new SqlError('SQL_TOO_LONG', `SQL text too long (at most ${formatBytes(MAX_SQL_BYTES)})`);
      return sql;
    }
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
  if (error instanceof SqlError) return { message: cutText(error.message, MAX_ERROR_MESSAGE_CHARS), code: cutText(error.code, 64) };
  return { message: 'Internal error', code: 'INTERNAL_ERROR' };
}

/** About how many bytes `error` takes in a Hrana answer (toHranaError's, message cut). */
function errorBytes(error: unknown): number {
  const { message, code } = toHranaError(error);
  return ERROR_OVERHEAD + Buffer.byteLength(message) + Buffer.byteLength(code ?? '');
}

/** What `budget` lets the request still answer; none left fails the statement. */
function leftOf(budget: AnswerBudget): number {
  const left = budget.totalBytes - budget.usedBytes;
  if (left <= 0)
    throw new SqlError('RESPONSE_TOO_LARGE', `The results of this request reached the limit of ${formatBytes(budget.totalBytes)} in all: send the remaining statements in another request`);
  return left;
}
