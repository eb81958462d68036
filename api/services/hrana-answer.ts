// cw-db's Hrana answer to the query route's pipeline, read into the route's D1-style results. Pure, with no import
// of the API's errors, so that a worker thread can run it (`answer-thread.ts`): parsing and writing again a large
// answer is the costliest work of the query route.

/** A JSON value as the query route takes it: numbers, text, null, booleans (0/1), and `{base64}` for a blob. */
export type JsonSqlValue = number | string | boolean | null | { base64: string };

/** One statement's outcome, D1-style. */
export interface QueryResult {
  columns: string[];
  rows: JsonSqlValue[][];
  rows_read: number;
  rows_written: number;
  changes: number;
  last_insert_id: number | string | null;
}

export type HranaValue = { type: 'null' } | { type: 'integer'; value: string } | { type: 'float'; value: number } | { type: 'text'; value: string } | { type: 'blob'; base64: string };

interface HranaStmtResult {
  cols: { name: string | null }[];
  rows: HranaValue[][];
  affected_row_count: number;
  last_insert_rowid: string | null;
  rows_read?: number;
  rows_written?: number;
}

/** A statement's error as the engine gives it. */
export interface HranaError {
  readonly message: string;
  readonly code: string;
}

/**
 * What an answer says: the results; a statement that failed (`statement`: its index among the caller's, or 0 for
 * the transaction's own steps); an answer with no results (the engine refused the statements); not JSON at all.
 */
export type AnswerOutcome =
  | { readonly results: QueryResult[] }
  | { readonly failed: { readonly error: HranaError | null | undefined; readonly statement: number } }
  | { readonly refused: true }
  | { readonly notJson: true };

interface PipelineBody {
  results?: { type: string; response?: { result: unknown }; error?: HranaError }[];
}

/**
 * The outcome of `statements` statements from the bytes of the engine's answer: one `execute` for a single
 * statement, else one `batch` of BEGIN, the statements, COMMIT and ROLLBACK (`runQuery`).
 */
export function interpretAnswer(bytes: Uint8Array, statements: number): AnswerOutcome {
  let body: PipelineBody;
  try {
    body = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as PipelineBody;
  } catch {
    return { notJson: true };
  }
  if (!body?.results) return { refused: true };
  const first = body.results[0];
  if (first?.type === 'error') return { failed: { error: first.error, statement: 0 } };
  if (statements === 1) return { results: [fromHranaResult(first?.response?.result as HranaStmtResult)] };
  const batch = first?.response?.result as { step_results: (HranaStmtResult | null)[]; step_errors: (HranaError | null)[] };
  const failed = batch.step_errors.findIndex((e, i) => e !== null && i > 0 && i <= statements);
  if (failed > 0) return { failed: { error: batch.step_errors[failed], statement: failed - 1 } };
  if (batch.step_errors[0] || batch.step_errors[statements + 1]) return { failed: { error: batch.step_errors[0] ?? batch.step_errors[statements + 1], statement: 0 } };
  return { results: batch.step_results.slice(1, statements + 1).map((r) => fromHranaResult(r as HranaStmtResult)) };
}

function fromHrana(value: HranaValue): JsonSqlValue {
  switch (value.type) {
    case 'null':
      return null;
    case 'integer': {
      // Integers beyond 2^53 stay exact as strings, as JSON numbers would round them.
      const n = Number(value.value);
      return Number.isSafeInteger(n) ? n : value.value;
    }
    case 'float':
      return value.value;
    case 'text':
      return value.value;
    case 'blob':
      return { base64: value.base64 };
  }
}

function fromHranaResult(result: HranaStmtResult): QueryResult {
  const lastId = result.last_insert_rowid === null ? null : Number(result.last_insert_rowid);
  return {
    columns: result.cols.map((c) => c.name ?? ''),
    rows: result.rows.map((row) => row.map(fromHrana)),
    rows_read: result.rows_read ?? result.rows.length,
    rows_written: result.rows_written ?? result.affected_row_count,
    changes: result.affected_row_count,
    last_insert_id: lastId === null ? null : Number.isSafeInteger(lastId) ? lastId : (result.last_insert_rowid as string),
  };
}
