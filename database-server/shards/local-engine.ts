import type { HranaStreamRequest, HranaStreamResult } from '../hrana/hrana-types.ts';
import { Stream, toHranaError, type AnswerBudget, type StatementCounts } from '../hrana/stream.ts';
import { LibsqlEngine, type LibsqlEngineOptions } from '../sql/libsql-engine.ts';
import { SqlError } from '../sql/sql-error.ts';
import { DEFAULT_ANSWER_LIMITS, type AnswerLimits, type DatabaseLimits } from '../sql/sql-limits.ts';
import type { DatabaseEngine, PipelineOutcome, PipelineRun } from './engine-port.ts';
import { FairTurns } from './fair-turns.ts';
import { ProjectMemory } from '../hrana/project-memory.ts';
import { BigCheckpoints, type BigCheckpointLimits } from './big-checkpoints.ts';
import type { SqlConnection } from '../sql/sql-engine.ts';
import { ShardTime } from './shard-time.ts';
import { DEFAULT_MAX_WAL_BYTES, walPastBound } from '../sql/wal-bound.ts';

/** Another project that took a turn this recently still contends for the shard (shard-time.ts), as does one with a database open here that had a turn (fair-turns.ts). */
const CONTENDED_WITHIN_MS = 1_000;

/** How long after a close the shard collects, so a round of idle databases closing costs one collection. */
const COLLECT_AFTER_CLOSE_MS = 100;

/** Options of a `LocalEngine`: the SQL engine's, and how much one pipeline request may answer. */
export interface LocalEngineOptions extends LibsqlEngineOptions {
  /** Each statement's result at most; default 10 MiB and a million rows. */
  answer?: AnswerLimits;
  /** All the results of one pipeline request together at most; default 16 MiB. */
  maxPipelineAnswerBytes?: number;
  /** After this long, one pipeline request starts no more statements; default 30 s. */
  maxPipelineMs?: number;
  /** The SQL text one project's streams may store here together (each stream 10 MiB at most); default 16 MiB. */
  maxStoredSqlPerProject?: number;
  /** The least a statement may run while other projects contend for the shard (shard-time.ts); 0: never cut. Default 250 ms. */
  contendedStatementMs?: number;
  /** Who used this shard's thread lately, and the cap on statements while others contend; default from `contendedStatementMs`. */
  shardTime?: ShardTime;
  /** Which checkpoints run on a thread of their own, and how many at once (big-checkpoints.ts). */
  bigCheckpoints?: BigCheckpointLimits;
  /** A writing request runs no more statements once its database's write-ahead log is past this; default 256 MiB. */
  maxWalBytes?: number;
}

/**
 * The `DatabaseEngine` in this process: the sandboxed SQL engine and the streams' state (stored SQL, open
 * transactions). Pipelines of different tenants take turns a statement at a time (fair-turns.ts), so one
 * tenant's long batch delays another's statement by at most one statement (itself bounded by its time limit),
 * not by the batch. It is what each shard process runs; tests and tools use it directly.
 */
export class LocalEngine implements DatabaseEngine {
  readonly #sql: LibsqlEngine;
  readonly #streams = new Map<string, Stream>();
  readonly #answer: AnswerLimits;
  readonly #maxPipelineAnswerBytes: number;
  readonly #maxPipelineMs: number;
  readonly #turns = new FairTurns();
  /** Stored SQL text by project: the shard's heap is shared, and a project may open many streams. */
  readonly #storedSql: ProjectMemory;
  readonly #time: ShardTime;
  readonly #bigCheckpoints: BigCheckpoints;
  readonly #maxWalBytes: number;
  #collecting: NodeJS.Timeout | undefined;

  constructor(options: LocalEngineOptions) {
    this.#sql = new LibsqlEngine({ ...options, onStatementDropped: () => this.#collectSoon() });
    this.#answer = options.answer ?? DEFAULT_ANSWER_LIMITS;
    this.#maxPipelineAnswerBytes = options.maxPipelineAnswerBytes ?? 16 * 1024 * 1024;
    this.#maxPipelineMs = options.maxPipelineMs ?? 30_000;
    this.#storedSql = new ProjectMemory({ limitBytes: options.maxStoredSqlPerProject ?? 16 * 1024 * 1024 });
    this.#time = options.shardTime ?? new ShardTime(options.contendedStatementMs === undefined ? {} : { capMs: options.contendedStatementMs });
    this.#bigCheckpoints = new BigCheckpoints(options.bigCheckpoints);
    this.#maxWalBytes = options.maxWalBytes ?? DEFAULT_MAX_WAL_BYTES;
  }

  databasePath(tenant: string): string {
    return this.#sql.databasePath(tenant);
  }

  async open(tenant: string, limits: DatabaseLimits): Promise<void> {
    this.#sql.setLimits(tenant, limits);
    this.#sql.connection(tenant);
  }

  async run(run: PipelineRun): Promise<PipelineOutcome> {
    const counts: StatementCounts = { rowsRead: 0, rowsWritten: 0 };
    let stream = this.#streams.get(run.stream);
    if (stream === undefined && run.inTransaction) {
      const lost: HranaStreamResult = { type: 'error', error: { message: 'The stream was closed by the server (its database restarted): its transaction was rolled back', code: 'STREAM_CLOSED' } };
      return { results: run.requests.map(() => lost), autocommit: true, closed: true, counts };
    }
    if (stream === undefined) {
      stream = new Stream({ tenant: run.tenant, engine: this.#sql, storedSql: { memory: this.#storedSql, project: run.project ?? run.tenant } });
      this.#streams.set(run.stream, stream);
    } else if (stream.tenant !== run.tenant) {
      throw new SqlError('HRANA_PROTO_ERROR', 'The stream belongs to another database');
    }
    const project = run.project ?? run.tenant;
    let connection: SqlConnection;
    try {
      connection = this.#sql.connection(run.tenant);
      connection.setMode(run.mode, run.refusal, run.freeze, run.vacuumRoomBytes);
    } catch (error) {
      // The database could not even be opened: every request gets that error, and the stream ends.
      this.#end(run.stream, stream);
      const failed: HranaStreamResult = { type: 'error', error: toHranaError(error) };
      return { results: run.requests.map(() => failed), autocommit: true, closed: true, counts };
    }
    const budget: AnswerBudget = { statement: this.#answer, totalBytes: this.#maxPipelineAnswerBytes, usedBytes: 0 };
    const results: HranaStreamResult[] = [];
    // A request holds one of its shard's few slots while it runs (shard-pool.ts): past its time it starts no more
    // statements, so many long batches cannot keep every other database of the shard waiting for a slot.
    const deadline = Date.now() + this.#maxPipelineMs;
    let overran: SqlError | undefined;
    // The shard's time this request takes is counted to its project, a turn at a time; a project that took much of
    // it lately while others share the shard has its statements cut short (shard-time.ts), decided at each turn.
    // This thread's CPU time, or half the wall clock's when that is more: what other processes of the machine take
    // is not the tenant's, but a statement waiting on the disk holds the shard too.
    let since = { cpu: 0, wall: 0 };
    const clocks = () => {
      const { user, system } = process.threadCpuUsage();
      return { cpu: (user + system) / 1000, wall: performance.now() };
    };
    const take = async () => {
      await this.#turns.acquire(run.tenant, project);
      since = clocks();
      connection.setStatementCap(this.#time.capFor(project, this.#turns.contenders(project, CONTENDED_WITHIN_MS)));
    };
    const give = () => {
      const now = clocks();
      this.#time.add(project, Math.max(now.cpu - since.cpu, (now.wall - since.wall) / 2));
      this.#turns.release();
    };
    // A writer's log is looked at between its statements (those of a batch too): one request adds at most one
    // statement's pages past the bound, and the replica checkpoints after it.
    const databasePath = this.#sql.databasePath(run.tenant);
    const turn = async () => {
      if (Date.now() > deadline) {
        overran ??= new SqlError(
          'SQLITE_INTERRUPT',
          `The request ran past the ${this.#maxPipelineMs / 1000} s one request may run: its stream was closed (an open transaction rolled back); send the rest in another request`,
        );
        throw overran;
      }
      if (run.mode === 'read-write') {
        overran ??= walPastBound(databasePath, this.#maxWalBytes);
        if (overran) throw overran;
      }
      give();
      await take();
    };
    await take();
    // Outside a transaction at some point: the one it may leave open began here (its time limit counts from now).
    let wasAutocommit = stream.isAutocommit();
    try {
      for (const [i, request] of run.requests.entries()) {
        try {
          if (overran) throw overran;
          if (i > 0) await turn();
          results.push({ type: 'ok', response: await stream.run(request as HranaStreamRequest, { budget, counts, turn }) });
        } catch (error) {
          results.push({ type: 'error', error: toHranaError(error) });
        }
        if (!wasAutocommit && !stream.closed) wasAutocommit = stream.isAutocommit();
      }
      // What the request left half done (a batch's transaction) is undone, as a stream that expired is.
      if (overran) this.#end(run.stream, stream);
    } finally {
      give();
    }
    const autocommit = stream.isAutocommit();
    if (stream.closed) this.#streams.delete(run.stream);
    return { results, autocommit, ...(!autocommit && wasAutocommit ? { transactionBegan: true } : {}), closed: stream.closed, counts };
  }

  async closeStream(_tenant: string, id: string): Promise<void> {
    const stream = this.#streams.get(id);
    if (stream) this.#end(id, stream);
  }

  async checkpoint(tenant: string, project = tenant): Promise<void> {
    const connection = this.#sql.connection(tenant);
    const databasePath = this.#sql.databasePath(tenant);
    if (this.#bigCheckpoints.isBig(databasePath)) await this.#bigCheckpoints.run(databasePath, project);
    else connection.checkpoint();
  }

  async closeTenant(tenant: string): Promise<void> {
    for (const [id, stream] of this.#streams) if (stream.tenant === tenant) this.#end(id, stream);
    this.#sql.closeTenant(tenant);
    this.#turns.forget(tenant);
    this.#collectSoon();
  }

  /**
   * A closed connection, or a prepared statement let go, is finalized by the addon only when it is garbage-collected,
   * which an idle shard might not do for a long while: its SQLite memory would stay taken. Where the process may ask
   * for a collection (a shard runs with --expose-gc), one runs shortly after, one for any number of them.
   */
  #collectSoon(): void {
    const gc = (globalThis as { gc?: () => void }).gc;
    if (!gc || this.#collecting) return;
    this.#collecting = setTimeout(() => {
      this.#collecting = undefined;
      gc();
    }, COLLECT_AFTER_CLOSE_MS);
    this.#collecting.unref();
  }

  onRestart(): void {
    // Nothing here restarts: this process holds the connections for as long as it lives.
  }

  async close(): Promise<void> {
    for (const [id, stream] of this.#streams) this.#end(id, stream);
    this.#sql.closeAll();
  }

  #end(id: string, stream: Stream): void {
    stream.close();
    this.#streams.delete(id);
  }
}
