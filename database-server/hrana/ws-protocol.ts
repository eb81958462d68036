/**
 * The JSON messages of Hrana 2 and 3 over WebSocket (subprotocols `hrana2`, `hrana3`), as the official
 * `@libsql/hrana-client` sends and reads them. Field names stay snake_case: they are the wire format.
 */
import type { HranaBatchStep, HranaDescribeResult, HranaError, HranaStmt, HranaStmtResult, HranaBatchResult, HranaValue } from './hrana-types.ts';

export type WsClientMsg = { type: 'hello'; jwt?: string | null } | { type: 'request'; request_id: number; request: WsRequest };

export type WsRequest =
  | { type: 'open_stream'; stream_id: number }
  | { type: 'close_stream'; stream_id: number }
  | { type: 'execute'; stream_id: number; stmt: HranaStmt }
  | { type: 'batch'; stream_id: number; batch: { steps: HranaBatchStep[] } }
  | { type: 'sequence'; stream_id: number; sql?: string | null; sql_id?: number | null }
  | { type: 'describe'; stream_id: number; sql?: string | null; sql_id?: number | null }
  | { type: 'store_sql'; sql_id: number; sql: string }
  | { type: 'close_sql'; sql_id: number }
  | { type: 'get_autocommit'; stream_id: number }
  | { type: 'open_cursor'; stream_id: number; cursor_id: number; batch: { steps: HranaBatchStep[] } }
  | { type: 'close_cursor'; cursor_id: number }
  | { type: 'fetch_cursor'; cursor_id: number; max_count: number };

export type WsResponse =
  | { type: 'open_stream' }
  | { type: 'close_stream' }
  | { type: 'execute'; result: HranaStmtResult }
  | { type: 'batch'; result: HranaBatchResult }
  | { type: 'sequence' }
  | { type: 'describe'; result: HranaDescribeResult }
  | { type: 'store_sql' }
  | { type: 'close_sql' }
  | { type: 'get_autocommit'; is_autocommit: boolean }
  | { type: 'open_cursor' }
  | { type: 'close_cursor' }
  | { type: 'fetch_cursor'; entries: CursorEntry[]; done: boolean };

/** A cursor's output: each batch step's columns, rows and end (or error), in order. */
export type CursorEntry =
  | { type: 'step_begin'; step: number; cols: HranaStmtResult['cols'] }
  | { type: 'step_end'; affected_row_count: number; last_insert_rowid: string | null }
  | { type: 'step_error'; step: number; error: HranaError }
  | { type: 'row'; row: HranaValue[] }
  | { type: 'error'; error: HranaError };

export type WsServerMsg =
  | { type: 'hello_ok' }
  | { type: 'hello_error'; error: HranaError }
  | { type: 'response_ok'; request_id: number; response: WsResponse }
  | { type: 'response_error'; request_id: number; error: HranaError };

/** The subprotocols served, best first: JSON only (`hrana3-protobuf` is not offered back). */
export const WS_SUBPROTOCOLS = ['hrana3', 'hrana2'] as const;

/** The cursor entries of a batch's result: what `fetch_cursor` hands out. */
export function cursorEntries(result: HranaBatchResult): CursorEntry[] {
  const entries: CursorEntry[] = [];
  result.step_results.forEach((step, i) => {
    const error = result.step_errors[i];
    if (error) entries.push({ type: 'step_error', step: i, error });
    if (!step) return;
    entries.push({ type: 'step_begin', step: i, cols: step.cols });
    for (const row of step.rows) entries.push({ type: 'row', row });
    entries.push({ type: 'step_end', affected_row_count: step.affected_row_count, last_insert_rowid: step.last_insert_rowid });
  });
  return entries;
}
