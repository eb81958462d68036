import type { AnswerLimits, DatabaseLimits } from '../sql/sql-limits.ts';
import type { PipelineRun } from './engine-port.ts';

/** What a shard process is started with (in `CW_DB_SHARD_CONFIG`, as JSON: a shard gets no other environment). */
export interface ShardConfig {
  directory: string;
  manualCheckpoints: boolean;
  defaultLimits: DatabaseLimits;
  /** SQLite's heap limit in the shard (`hard_heap_limit`). */
  memoryLimitBytes: number;
  answer: AnswerLimits;
  maxPipelineAnswerBytes: number;
  maxPipelineMs: number;
  /** The least a statement may run while other projects contend for the shard (shard-time.ts; 0: never cut). */
  contendedStatementMs: number;
}

export const SHARD_CONFIG_VARIABLE = 'CW_DB_SHARD_CONFIG';

/** A call of the main process to a shard: the `DatabaseEngine` methods, and a ping for the watchdog. */
export type ShardCall =
  | { op: 'open'; tenant: string; limits: DatabaseLimits }
  | { op: 'run'; run: PipelineRun }
  | { op: 'close-stream'; tenant: string; stream: string }
  | { op: 'checkpoint'; tenant: string; project?: string }
  | { op: 'close-tenant'; tenant: string }
  | { op: 'ping' };

export interface ShardRequest {
  id: number;
  call: ShardCall;
}

/** A shard's answer to request `id`, or its first message once it can take calls. */
export type ShardReply = { id: number; value: unknown } | { id: number; error: { code?: string; message: string } } | { ready: true };
