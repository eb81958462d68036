/**
 * The JSON shapes of Hrana 2 over HTTP (`POST .../v2/pipeline`), as the official `@libsql/client` sends and reads
 * them. Only what we serve is modelled; field names stay snake_case because they are the wire format.
 */

/** A value on the wire: integers travel as decimal strings (64 bits do not fit a JSON number), blobs as base64. */
export type HranaValue = { type: 'null' } | { type: 'integer'; value: string } | { type: 'float'; value: number } | { type: 'text'; value: string } | { type: 'blob'; base64: string };

/** One statement: its SQL inline or by a `store_sql` id, with positional and/or named arguments. */
export interface HranaStmt {
  sql?: string | null;
  sql_id?: number | null;
  args?: HranaValue[];
  named_args?: { name: string; value: HranaValue }[];
  want_rows?: boolean;
}

/** Whether a batch step runs, decided from earlier steps' outcomes (and, in Hrana 3, the autocommit state). */
export type HranaCondition =
  | { type: 'ok'; step: number }
  | { type: 'error'; step: number }
  | { type: 'not'; cond: HranaCondition }
  | { type: 'and'; conds: HranaCondition[] }
  | { type: 'or'; conds: HranaCondition[] }
  | { type: 'is_autocommit' };

/** A step of a batch; without a condition it always runs. */
export interface HranaBatchStep {
  condition?: HranaCondition | null;
  stmt: HranaStmt;
}

/** An error as Hrana reports it; `code` is what the client exposes as `LibsqlError.code`. */
export interface HranaError {
  message: string;
  code?: string;
}

/** The result of one statement. */
export interface HranaStmtResult {
  cols: { name: string | null; decltype: string | null }[];
  rows: HranaValue[][];
  affected_row_count: number;
  last_insert_rowid: string | null;
  rows_read?: number;
  rows_written?: number;
}

/** Steps that did not run have `null` in both arrays. */
export interface HranaBatchResult {
  step_results: (HranaStmtResult | null)[];
  step_errors: (HranaError | null)[];
}

/** What `describe` tells about a statement without running it. */
export interface HranaDescribeResult {
  params: { name: string | null }[];
  cols: { name: string; decltype: string | null }[];
  is_explain: boolean;
  is_readonly: boolean;
}

/** The requests a pipeline may carry. */
export type HranaStreamRequest =
  | { type: 'execute'; stmt: HranaStmt }
  | { type: 'batch'; batch: { steps: HranaBatchStep[] } }
  | { type: 'sequence'; sql?: string | null; sql_id?: number | null }
  | { type: 'describe'; sql?: string | null; sql_id?: number | null }
  | { type: 'store_sql'; sql_id: number; sql: string }
  | { type: 'close_sql'; sql_id: number }
  | { type: 'get_autocommit' }
  | { type: 'close' };

/** The answer to one request. */
export type HranaStreamResponse =
  | { type: 'execute'; result: HranaStmtResult }
  | { type: 'batch'; result: HranaBatchResult }
  | { type: 'sequence' }
  | { type: 'describe'; result: HranaDescribeResult }
  | { type: 'store_sql' }
  | { type: 'close_sql' }
  | { type: 'get_autocommit'; is_autocommit: boolean }
  | { type: 'close' };

/** One entry of `results`, in the order of the requests. */
export type HranaStreamResult = { type: 'ok'; response: HranaStreamResponse } | { type: 'error'; error: HranaError };

/** The body of `POST .../v2/pipeline`. */
export interface HranaPipelineRequest {
  baton: string | null;
  requests: HranaStreamRequest[];
}

/** The answer; `base_url` is always null: clients stay on the URL they used. */
export interface HranaPipelineResponse {
  baton: string | null;
  base_url: null;
  results: HranaStreamResult[];
}
