import type { HranaPipelineRequest, HranaPipelineResponse, HranaStreamResult } from './hrana-types.ts';
import { SqlError } from '../sql/sql-error.ts';
import { DurabilityUnconfirmedError } from '../durability-unconfirmed.ts';
import type { UsageMeter } from '../sql/usage-meter.ts';
import type { GrowthFreeze } from '../sql/growth-freeze.ts';
import type { QuotaRefusal } from '../sql/quota-refusal.ts';
import { EngineUnavailableError, RunNotStartedError, type DatabaseEngine, type PipelineOutcome } from '../shards/engine-port.ts';
import { toHranaError } from './stream.ts';
import { MOVING } from './forward.ts';
import { STREAM_CLOSED, StreamHandle, type StreamRegistry } from './stream-registry.ts';

/** The HTTP answer to a pipeline request: JSON unless `body` is a string (sqld answers a bad baton in text). */
export interface PipelineAnswer {
  status: number;
  body: HranaPipelineResponse | { message: string; code: string } | string;
}

/** Who asks: the tenant the token names, and whether the token only reads. */
export interface PipelineCaller {
  tenant: string;
  readOnly?: boolean;
}

/** What a pipeline runs on. */
export interface PipelineContext {
  streams: StreamRegistry;
  engine: DatabaseEngine;
  meter?: UsageMeter;
  /**
   * Why `tenant` is no longer served here (deleted, or moved to another replica) though its caller was let in:
   * asked under its lock, so a request whose body was still coming while the database went cannot open its file
   * again. Absent: every tenant asked for is served.
   */
  unserved?: (tenant: string) => { message: string; code: string } | undefined;
  /**
   * Why `tenant`'s project may run nothing more now: it holds its memory bound (answers not yet taken, mostly).
   * Asked right before the engine runs, so requests let in at once, before any answer existed, stop there.
   */
  overBound?: (tenant: string) => { message: string; code: string } | undefined;
  /** What the tenant's daily quotas refuse for its next request (daily-quota.ts); nothing when it is under them. */
  quota?: (tenant: string) => QuotaRefusal | undefined;
  /** Why the tenant's database may not grow for its next request (storage-budget.ts); nothing when it may. */
  growth?: (tenant: string) => GrowthFreeze | undefined;
  /** What a VACUUM may write on the volume now (storage-budget.ts); absent: not bounded. */
  vacuumRoom?: () => number | undefined;
  /** Told after each request what it did against the quotas (a write failed on the size quota, or one succeeded). */
  afterRequest?: (tenant: string, outcome: PipelineOutcome) => void;
  /**
   * Called under the tenant's lock after each request that ran, so whatever it committed is in the WAL (the
   * replication captures it there, and never a transaction still open); the lock is released once it settles. Its
   * `durable` is awaited after that and before the answer is sent: the synchronous durability mode acknowledges a
   * commit only once it is shipped, also one made before a transaction the request left open.
   */
  afterCommit?: (tenant: string, after: { inTransaction: boolean; rolledBack?: boolean }) => Promise<Committed>;
}

/**
 * What became of a request's commits: `durable` settles once they are shipped (the synchronous mode); `walFull`: the
 * WAL is past its bound while the request left a transaction open, which keeps it from being checkpointed.
 */
export interface Committed {
  durable?: Promise<void>;
  walFull?: boolean;
}

/**
 * How a stream ends whose transaction was rolled back for the WAL's bound: its client committed, then began again,
 * in request after request, so the WAL could never be emptied and grew on the volume every tenant shares.
 */
export const WAL_FULL = {
  message:
    "The transaction was rolled back: the database's write-ahead log reached its bound while a transaction stayed open, and it is emptied only between transactions. Commit before beginning the next transaction",
  code: 'TRANSACTION_ROLLED_BACK',
} as const;

/**
 * How a read-only caller's stream ends when a request left a transaction open on it: a transaction holds its
 * database's lock between requests, so a read-only token's `BEGIN` (the client's `transaction('read')`) kept the
 * database's writers out for up to the transaction timeout, again and again (review-184 M1). Its transactions begin
 * and end within one request: a batch (`batch(…, 'read')`), or BEGIN … COMMIT in one pipeline.
 */
export const READ_ONLY_TRANSACTION = {
  message:
    "The transaction was rolled back: a read-only token's transaction cannot stay open between requests, since it would keep the database's writers waiting. Send it in one request: a batch (batch(statements, 'read')), or BEGIN … COMMIT in one pipeline",
  code: 'TRANSACTION_ROLLED_BACK',
} as const;

/**
 * Executes one Hrana v2 pipeline for `tenant`: continues the stream named by the baton (or opens a new one), runs
 * the requests in order where the tenant's SQL runs (a failing request answers an error and does not stop the
 * next ones), then parks the stream under a new baton, or answers a null baton when a `close` ended it.
 */
export async function handlePipeline(request: PipelineCaller & { body: unknown; gone?: AbortSignal }, context: PipelineContext): Promise<PipelineAnswer> {
  const { streams } = context;
  const body = request.body as Partial<HranaPipelineRequest> | null;
  if (typeof body !== 'object' || body === null || !Array.isArray(body.requests)) {
    return { status: 400, body: { message: 'Expected {baton, requests: [...]}', code: 'HRANA_PROTO_ERROR' } };
  }
  if (body.baton != null && typeof body.baton !== 'string') {
    return { status: 400, body: 'Invalid baton' };
  }
  const tooMany = tooManyStatements(body.requests);
  if (tooMany) return { status: 400, body: tooMany };

  let stream: StreamHandle;
  if (body.baton == null) {
    const created = streams.create(request.tenant, request.readOnly ?? false);
    if (!(created instanceof StreamHandle)) return { status: 429, body: created };
    stream = created;
  } else {
    const taken = streams.take(body.baton, request.tenant);
    if ('missing' in taken) {
      if (taken.endedBy) return { status: 400, body: taken.endedBy };
      return taken.missing === 'expired' ? { status: 400, body: { message: 'The stream has expired due to inactivity', code: 'STREAM_EXPIRED' } } : { status: 400, body: 'Invalid baton' };
    }
    stream = taken.stream;
  }

  // A client gone before its answer never gets the baton: the stream is closed, so a request still waiting for the
  // tenant's lock or its shard's place runs nothing, and one running ends the stream after its statements.
  const onGone = () => void streams.close(stream);
  request.gone?.addEventListener('abort', onGone, { once: true });
  if (request.gone?.aborted) onGone(); // gone before the listener was there
  let ran: StreamRun;
  try {
    ran = await runOnStream(stream, request, body.requests, context);
  } finally {
    request.gone?.removeEventListener('abort', onGone);
    // Ended (a close, the engine lost it, a failure): it is not parked, and no longer counts as the project's.
    if (stream.closed) streams.ended(stream);
  }
  if (ran.kind === 'refused' && ran.result.type === 'error' && ran.result.error.code === MOVING.code) return { status: 503, body: MOVING };
  if (ran.kind === 'refused') return { status: 200, body: { baton: null, base_url: null, results: body.requests.map(() => ran.result) } };
  if (ran.kind === 'failed') return { status: 503, body: ran.error };
  // Ended by the server with a reason: a baton that answers it, so the client's next request says why.
  const baton = stream.closed ? (stream.endedBy ? streams.endedBaton(stream.endedBy) : null) : streams.park(stream);
  return { status: 200, body: { baton, base_url: null, results: ran.results } };
}

const FINISHING_SQL = /^\s*(?:COMMIT|END|ROLLBACK)(?:\s+TRANSACTION)?\s*;?\s*$/i;

/** Whether `sql` only ends a transaction. Tried on short texts only: a long one is not that, and the pattern stays cheap. */
function endsTransaction(sql: unknown): boolean {
  return typeof sql === 'string' && sql.length <= 64 && FINISHING_SQL.test(sql);
}

/** Whether `requests` only end a transaction or close the stream: never refused for the project's memory (they free). */
export function onlyFinishes(requests: unknown[]): boolean {
  return requests.every((r) => {
    const request = r as { type?: unknown; stmt?: { sql?: unknown } } | null;
    return request?.type === 'close' || (request?.type === 'execute' && endsTransaction(request.stmt?.sql));
  });
}

/** What one pipeline (or WebSocket request) may carry: requests and batch steps together. */
export const MAX_STATEMENTS_PER_REQUEST = 100_000;

/**
 * The error for `requests` carrying more than {@link MAX_STATEMENTS_PER_REQUEST} requests and batch steps: each
 * gets an answer of its own, even an empty one an error, so a small body of many empty steps would be answered
 * tens of times its size. Nothing when they are within it.
 */
export function tooManyStatements(requests: unknown[]): { message: string; code: string } | undefined {
  let count = requests.length;
  for (const request of requests) {
    const steps = (request as { batch?: { steps?: unknown } } | null)?.batch?.steps;
    if (Array.isArray(steps)) count += steps.length;
  }
  if (count <= MAX_STATEMENTS_PER_REQUEST) return undefined;
  return {
    message: `A request may carry at most ${MAX_STATEMENTS_PER_REQUEST.toLocaleString('en-US')} statements (requests and batch steps together), not ${count.toLocaleString('en-US')}: split it`,
    code: 'HRANA_PROTO_ERROR',
  };
}

/**
 * How requests on a stream ended: they ran (each with its result); they did not run, the tenant's lock not had, the
 * tenant no longer served or its shard restarting (every request gets `result`, and the stream is closed); or they
 * may have run, the engine having died while running them, or a commit's durability failed (the stream is closed,
 * `error` says which: a client must not run them again unchecked).
 */
export type StreamRun =
  | { kind: 'ran'; results: HranaStreamResult[] }
  | { kind: 'refused'; result: HranaStreamResult }
  | { kind: 'failed'; error: { message: string; code: 'DATABASE_RESTARTING' | 'DURABILITY_UNAVAILABLE' } };

/**
 * Runs `requests` on `stream` under its tenant's lock, which it keeps while the stream is inside a transaction:
 * what Hrana over HTTP (a pipeline) and over WebSocket (a request) share.
 */
export async function runOnStream(stream: StreamHandle, caller: PipelineCaller, requests: unknown[], context: PipelineContext): Promise<StreamRun> {
  const { streams, engine } = context;
  try {
    // Held by another client's request as well as its transaction: the database runs one at a time.
    const busy = () => new SqlError('SQLITE_BUSY', `The database was busy with another client's request or transaction for ${streams.lockTimeoutMs / 1000} s; retry`);
    await streams.lockFor(caller.tenant).acquire(stream, streams.lockTimeoutMs, busy);
  } catch (error) {
    // A client cannot continue a stream whose baton it did not get back: answer every request with the error and
    // end the stream (it holds no lock, so its transaction, if any, is another stream's).
    await streams.close(stream);
    return { kind: 'refused', result: { type: 'error', error: toHranaError(error) } };
  }
  if (stream.closed) {
    // Ended while this waited (a restore, the database closing, its shard lost): nothing runs outside the
    // transaction its client believes it has.
    await streams.close(stream);
    return { kind: 'refused', result: { type: 'error', error: stream.endedBy ?? STREAM_CLOSED } };
  }
  const unserved = context.unserved?.(caller.tenant);
  if (unserved) {
    await streams.close(stream);
    return { kind: 'refused', result: { type: 'error', error: unserved } };
  }
  const busy = onlyFinishes(requests) ? undefined : context.overBound?.(caller.tenant);
  if (busy) {
    // Inside a transaction the stream keeps it (and its lock): the client may retry, or end it, which is let through.
    // Not when it asked to close the stream too: it would drop the baton, and the lock with it only at expiry.
    const closes = requests.some((r) => (r as { type?: unknown } | null)?.type === 'close');
    if (stream.inTransaction && !closes) return { kind: 'ran', results: requests.map(() => ({ type: 'error', error: busy })) };
    await streams.close(stream);
    return { kind: 'refused', result: { type: 'error', error: busy } };
  }

  let outcome: PipelineOutcome | undefined;
  let durable: Promise<void> | undefined;
  // Whether the engine's stream is over: ended by the request or for it, or lost, or never started.
  let engineEnded = false;
  let started = true;
  stream.running = true;
  try {
    // A read-only caller reads only, also on a stream a writer opened.
    // The quota is looked at under the lock, so requests queued behind one that reached it are refused.
    const refusal = context.quota?.(caller.tenant);
    const freeze = context.growth?.(caller.tenant);
    const vacuumRoomBytes = context.vacuumRoom?.();
    const mode = stream.readOnly || caller.readOnly ? 'read-only' : 'read-write';
    outcome = await engine.run(
      {
        tenant: caller.tenant,
        project: stream.project,
        stream: stream.id,
        mode,
        ...(stream.inTransaction ? { inTransaction: true } : {}),
        ...(refusal ? { refusal } : {}),
        ...(freeze ? { freeze } : {}),
        ...(vacuumRoomBytes === undefined ? {} : { vacuumRoomBytes }),
        requests,
      },
      stream.cancel.signal,
    );
    // Closed meanwhile: ended where its SQL runs now, after this request's statements (what it left open is rolled
    // back), and it stays closed, outside any transaction.
    const closedMeanwhile = stream.closed;
    if (closedMeanwhile && !outcome.closed) await engine.closeStream(caller.tenant, stream.id).catch(() => {});
    engineEnded = closedMeanwhile || outcome.closed;
    streams.ranOn(stream, !closedMeanwhile && !outcome.autocommit, outcome.transactionBegan === true);
    stream.closed = closedMeanwhile || outcome.closed;
    if (mode === 'read-only' && stream.inTransaction && !stream.closed) {
      // Ended here, before the lock goes (runEnded): the stream's next request answers why.
      stream.closed = true;
      stream.endedBy = READ_ONLY_TRANSACTION;
      await engine.closeStream(caller.tenant, stream.id).catch(() => {});
      engineEnded = true;
      streams.ranOn(stream, false);
    }
    context.meter?.record(caller.tenant, outcome.counts.rowsRead, outcome.counts.rowsWritten);
    context.afterRequest?.(caller.tenant, outcome);
  } catch (error) {
    engineEnded = true;
    if (error instanceof RunNotStartedError) {
      // Closed while it waited for a place in its shard (its client went): nothing ran; end the stream where its
      // SQL runs, as the close left that to this request.
      started = false;
      await engine.closeStream(caller.tenant, stream.id).catch(() => {});
      streams.ranOn(stream, false);
      return { kind: 'refused', result: { type: 'error', error: stream.endedBy ?? STREAM_CLOSED } };
    }
    // The engine lost the stream (its shard restarted): what it had open is rolled back.
    stream.closed = true;
    streams.ranOn(stream, false);
    if (!(error instanceof EngineUnavailableError)) throw error;
    const restarting = { message: error.message, code: 'DATABASE_RESTARTING' } as const;
    // Never sent to its shard: nothing ran, so it is refused in the statements' place like any request not run
    // (a 200), and an HTTP 503 says the request may have run.
    if (!error.sent) {
      started = false;
      return { kind: 'refused', result: { type: 'error', error: restarting } };
    }
    return { kind: 'failed', error: restarting };
  } finally {
    try {
      if (started) {
        const committed = await context.afterCommit?.(caller.tenant, { inTransaction: stream.inTransaction });
        durable = committed?.durable;
        // Rolled back here, still under the lock, so the WAL can be checkpointed now (the capture above shipped
        // what was committed before it); the stream's next request answers why.
        if (committed?.walFull && stream.inTransaction && !stream.closed) {
          stream.closed = true;
          stream.endedBy = WAL_FULL;
          await engine.closeStream(caller.tenant, stream.id).catch(() => {});
          engineEnded = true;
          streams.ranOn(stream, false);
          await context.afterCommit?.(caller.tenant, { inTransaction: false, rolledBack: true });
        }
      }
      if (outcome === undefined) void durable?.catch(() => {}); // the answers without a result never await it
      // Closed while its commit was captured: ended where its SQL runs now, as the close left that to this request.
      if (stream.closed && !engineEnded) await engine.closeStream(caller.tenant, stream.id).catch(() => {});
    } finally {
      // Also when the capture failed: the lock held for good would refuse every later request of the tenant.
      streams.runEnded(stream);
    }
  }
  if (durable) {
    try {
      await durable;
    } catch (err) {
      // Committed on the local disk (and shipped later), but not yet known to be in the bucket as the synchronous mode promised.
      await streams.close(stream);
      const message = err instanceof DurabilityUnconfirmedError ? err.message : 'The commit could not be copied to the object store yet; it is kept locally and shipped later';
      return { kind: 'failed', error: { message, code: 'DURABILITY_UNAVAILABLE' } };
    }
  }
  return { kind: 'ran', results: outcome.results };
}
