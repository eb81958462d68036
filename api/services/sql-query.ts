import { BadRequestError, PublicError, UnavailableError } from '../../src/errors.ts';
import { trimTrailing } from '../../src/text/trim.ts';
import { isUnsentRequest } from '../../src/network-errors.ts';
import { interpretAnswer, type AnswerOutcome, type HranaError, type HranaValue, type JsonSqlValue, type QueryResult } from './hrana-answer.ts';

export type { JsonSqlValue, QueryResult } from './hrana-answer.ts';

/**
 * The most of cw-db's answer the query route reads: cw-db bounds what one request answers (16 MiB by default,
 * CW_DB_MAX_RESPONSE_BYTES), so this only holds if it was configured higher; past it the API answers 502 rather
 * than buffer without bound.
 */
export const MAX_ENGINE_ANSWER_BYTES = 32 * 1024 * 1024;

/**
 * How long the query route waits for cw-db: longer than cw-db's own bounds on a request (30 s to start statements,
 * 5 s for the database's lock, 5 s for the statement running at the end), so that what cw-db answers reaches the
 * caller rather than a 504 after which the statements may still be applied.
 */
export const QUERY_TIMEOUT_MS = 60_000;

/** The answer to a query token the engine refused, and to a database the caller cannot see without one. */
export const INVALID_QUERY_TOKEN = 'The query token is not valid for this database (unknown, rotated or expired).';

/** One statement of the query route, with positional (`[…]`) or named (`{name: …}`) parameters. */
export interface QueryStatement {
  sql: string;
  params?: JsonSqlValue[] | Record<string, JsonSqlValue>;
}

/** A SQL error of the statements (a constraint, a syntax error): the caller's, answered 400 with sqld's code (a locked database's, 503). */
export class SqlStatementError extends PublicError {
  override readonly name = 'SqlStatementError';
  readonly code: string;
  readonly statement: number;
  /** `retry`: a statement that could run later as it is (its database locked): 503 with `Retry-After`, not 400. */
  constructor(message: string, code: string, statement: number, retry = false) {
    super(retry ? 503 : 400, `Statement ${statement + 1} failed (${code}): ${message}`, retry ? { 'retry-after': '1' } : {});
    this.code = code;
    this.statement = statement;
  }
}

/**
 * Codes with which the engine answers when it did not run the statements (in their place in a 200, or as an HTTP
 * 429/503): not the caller's SQL, so not a 400 the caller would not retry. The project's share of the engine held,
 * as the engine's own 429; the database moving or coming back, a 503 to retry. (Its lock held past the wait,
 * SQLITE_BUSY, is a statement's 503 below: the engine's words say by what, another client's transaction or a VACUUM
 * too soon.)
 */
const NOT_RUN: Readonly<Record<string, { status: 429 | 503; detail: string }>> = {
  PROJECT_BUSY: { status: 429, detail: "The database engine is busy with this project's requests; retry shortly." },
  TOO_MANY_STREAMS: { status: 429, detail: "The database engine is busy with this project's requests; retry shortly." },
  DATABASE_MOVING: { status: 503, detail: 'The database is moving to another server; retry shortly.' },
  DATABASE_RESTARTING: { status: 503, detail: 'The database is restarting; retry shortly.' },
  DATABASE_UNAVAILABLE: { status: 503, detail: 'The database cannot be served right now; retry later.' },
  STREAM_CLOSED: { status: 503, detail: 'The database closed the request before running it; retry shortly.' },
};

/** What to do about statements that may have been applied: never a blind retry, which could apply them twice. */
const CHECK_FIRST = 'They may or may not have been applied: check before running them again.';

/** The engine's HTTP 5xx answers that follow applied statements, or may: 502 without Retry-After. */
const MAY_HAVE_RUN: Readonly<Record<string, string>> = {
  // A synchronous database acknowledges a commit only once it is in the object store.
  DURABILITY_UNAVAILABLE:
    'The statements were applied, but could not be copied to the object store yet, as this database’s synchronous durability promises (the database server keeps them and copies them later): do not run them again.',
  // An HTTP 503 DATABASE_RESTARTING is a request its shard had when it died (one never sent is refused in a 200).
  DATABASE_RESTARTING: `The database engine restarted while running the statements. ${CHECK_FIRST}`,
};

/** The error of a statement the engine answered with `error` (the first of the batch's: `statement`). */
function statementError(error: HranaError | null | undefined, statement: number): PublicError {
  const code = error?.code ?? 'SQL_ERROR';
  // Deleted while the request was on its way: as an unknown database.
  if (code === 'TENANT_NOT_FOUND') return new PublicError(401, INVALID_QUERY_TOKEN, { 'www-authenticate': 'Bearer' });
  const notRun = NOT_RUN[code];
  if (notRun) return new PublicError(notRun.status, notRun.detail, { 'retry-after': '1' });
  return new SqlStatementError(error?.message ?? 'error', code, statement, code === 'SQLITE_BUSY');
}

/** Where and how to run statements: the engine's address, the database, the caller's query token. */
export interface QueryOptions {
  dbUrl: string;
  tenantId: string;
  token: string;
  statements: QueryStatement[];
  timeoutMs?: number;
  maxAnswerBytes?: number;
  /** Holds room for an answer of this many bytes before it is read (the process's bound on answers: `AnswerBudget`). */
  reserve?: (bytes: number, signal: AbortSignal) => Promise<void>;
  /** Aborts when the caller has left: nothing more is waited for or read of the answer (the statements may run). */
  signal?: AbortSignal;
}

/**
 * Runs statements on a database through cw-db's Hrana endpoint, as the database's own clients do, with the
 * caller's query token: the engine checks that the token is the database's. Several statements run as one
 * transaction (all or nothing), like D1's batch.
 */
export async function runQuery(options: QueryOptions): Promise<QueryResult[]> {
  return resultsOf(interpretAnswer(await fetchAnswer(options), options.statements.length));
}

/**
 * The bytes of the engine's answer to `options`' statements, for {@link interpretAnswer}; every answer but a 200
 * with results is thrown as the API's error.
 */
export async function fetchAnswer(options: QueryOptions): Promise<Buffer> {
  const { statements } = options;
  const stmts = statements.map((s, i) => toHranaStmt(s, i));
  const single = stmts.length === 1;
  // BEGIN, each statement only if the one before succeeded, COMMIT if the last did, else ROLLBACK.
  const steps: unknown[] = [
    { stmt: { sql: 'BEGIN' } },
    ...stmts.map((stmt, i) => ({ stmt, condition: { type: 'ok', step: i } })),
    { stmt: { sql: 'COMMIT' }, condition: { type: 'ok', step: stmts.length } },
    { stmt: { sql: 'ROLLBACK' }, condition: { type: 'not', cond: { type: 'ok', step: stmts.length + 1 } } },
  ];
  const requests = single ? [{ type: 'execute', stmt: stmts[0] }, { type: 'close' }] : [{ type: 'batch', batch: { steps } }, { type: 'close' }];

  const timeoutMs = options.timeoutMs ?? QUERY_TIMEOUT_MS;
  // One bound for the answer's head, another for its body (read after a wait for room, which is not counted).
  const aborter = new AbortController();
  const abortLater = () => setTimeout(() => aborter.abort(new DOMException('no answer in time', 'TimeoutError')), timeoutMs);
  const left = options.signal;
  if (left?.aborted) throw left.reason;
  const leave = () => aborter.abort(left?.reason);
  left?.addEventListener('abort', leave, { once: true });
  try {
    return await exchange(options, requests, aborter, abortLater, timeoutMs);
  } finally {
    left?.removeEventListener('abort', leave);
  }
}

/** The request to the engine and the read of its answer, under `aborter` (the timeouts, and the caller leaving). */
async function exchange(options: QueryOptions, requests: unknown[], aborter: AbortController, abortLater: () => NodeJS.Timeout, timeoutMs: number): Promise<Buffer> {
  let timer = abortLater();
  let response: Response;
  try {
    response = await fetch(`${trimTrailing(options.dbUrl, '/')}/v1/${options.tenantId}/v2/pipeline`, {
      method: 'POST',
      headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ baton: null, requests }),
      signal: aborter.signal,
    });
  } catch (error) {
    throw unanswered(error, timeoutMs);
  } finally {
    clearTimeout(timer);
  }
  // 404: the engine has no such database (deleted, or not provisioned yet); without a valid token that is all the caller learns.
  if (response.status === 401 || response.status === 403 || response.status === 404) throw new PublicError(401, INVALID_QUERY_TOKEN, { 'www-authenticate': 'Bearer' });
  if (response.status >= 500) throw await engineFailure(response);
  // The engine's own words stay behind (the spec strips upstream detail); what they mean is said here.
  if (response.status === 429) {
    throw new PublicError(429, "The database engine is busy with this project's requests; retry shortly.", { 'retry-after': retryAfterOf(response) });
  }
  if (response.status === 413) throw new PublicError(413, 'The statements are too large for the database engine; send fewer or shorter ones.');
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    throw new BadRequestError(REFUSED);
  }
  const maxAnswerBytes = options.maxAnswerBytes ?? MAX_ENGINE_ANSWER_BYTES;
  const declared = Number(response.headers.get('content-length')) || maxAnswerBytes;
  // An answer too large is refused at once by readBytes, without waiting for room it will not use.
  if (options.reserve && declared <= maxAnswerBytes) await reserveRoom(response, declared, options.reserve, aborter.signal);
  timer = abortLater();
  try {
    return await readBytes(response, maxAnswerBytes);
  } catch (error) {
    throw error instanceof PublicError ? error : cutOff(error, timeoutMs);
  } finally {
    clearTimeout(timer);
  }
}

const REFUSED = 'The database engine refused the statements.';

/** The results of an answer, or the API's error for what it says instead. */
export function resultsOf(outcome: Exclude<AnswerOutcome, { results: QueryResult[] }> | { results: QueryResult[] }): QueryResult[] {
  if ('results' in outcome) return outcome.results;
  throw failureOf(outcome);
}

/** The API's error for an answer without results. */
export function failureOf(outcome: Exclude<AnswerOutcome, { results: QueryResult[] }>): PublicError {
  if ('failed' in outcome) return statementError(outcome.failed.error, outcome.failed.statement);
  if ('notJson' in outcome) return new PublicError(502, `The database engine answered something that is not JSON. ${CHECK_FIRST}`);
  return new BadRequestError(REFUSED);
}

function toHranaStmt(statement: QueryStatement, index: number): { sql: string; args?: HranaValue[]; named_args?: { name: string; value: HranaValue }[]; want_rows: boolean } {
  const where = `statements[${index}]`;
  const { params } = statement;
  if (params === undefined) return { sql: statement.sql, want_rows: true };
  if (Array.isArray(params)) return { sql: statement.sql, args: params.map((v, i) => toHrana(v, `${where}.params[${i}]`)), want_rows: true };
  return { sql: statement.sql, named_args: Object.entries(params).map(([name, v]) => ({ name, value: toHrana(v, `${where}.params.${name}`) })), want_rows: true };
}

function toHrana(value: JsonSqlValue, where: string): HranaValue {
  if (value === null) return { type: 'null' };
  if (typeof value === 'boolean') return { type: 'integer', value: value ? '1' : '0' };
  if (typeof value === 'number') return Number.isInteger(value) ? { type: 'integer', value: String(value) } : { type: 'float', value };
  if (typeof value === 'string') return { type: 'text', value };
  if (typeof value === 'object' && typeof value.base64 === 'string') return { type: 'blob', base64: value.base64 };
  throw new BadRequestError(`${where} must be a number, a string, a boolean, null or {"base64": "…"}.`);
}

/** The body of `response`, read up to `maxBytes` (the rest is not read: the connection is dropped). */
async function readBytes(response: Response, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length') ?? 0);
  const tooLarge = () =>
    new PublicError(
      502,
      `The database engine's answer is larger than ${maxBytes} bytes, more than the query route reads (the statements ran: what they wrote was applied): select fewer rows or columns, or page with LIMIT and OFFSET.`,
    );
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/**
 * The engine's answer at HTTP 500 or more, by its code: a 503 to retry for what it did not run (the database moving,
 * not restored), else a 502 saying whether the statements were applied, as far as is known.
 */
async function engineFailure(response: Response): Promise<PublicError> {
  const body = await readBytes(response, 64 * 1024)
    .then((bytes) => JSON.parse(bytes.toString('utf8')) as { code?: unknown } | undefined)
    .catch(() => undefined);
  const code = typeof body?.code === 'string' ? body.code : undefined;
  const notRun = code === 'DATABASE_MOVING' || code === 'DATABASE_UNAVAILABLE' ? NOT_RUN[code] : undefined;
  if (notRun) return new PublicError(notRun.status, notRun.detail, { 'retry-after': retryAfterOf(response) });
  return new PublicError(502, (code !== undefined && MAY_HAVE_RUN[code]) || `The database engine failed while running the statements. ${CHECK_FIRST}`);
}

/**
 * Why no answer came: never sent (the engine not listening, its name not resolved), a 503 to retry; no answer in
 * time, a 504; the connection lost on the way, a 502. The last two may follow applied statements.
 */
function unanswered(error: unknown, timeoutMs: number): PublicError {
  if (error instanceof DOMException && error.name === 'TimeoutError') {
    return new PublicError(504, `The database engine did not answer within ${timeoutMs / 1000} s. ${CHECK_FIRST}`);
  }
  if (isUnsentRequest(error)) return new UnavailableError('The database engine cannot be reached; retry later.');
  return new PublicError(502, `The connection to the database engine was lost. ${CHECK_FIRST}`);
}

/** How long an answer waits for room in the process's bound on answers. */
export const ANSWER_ROOM_WAIT_MS = 30_000;

/** Room for `bytes` of answer before it is read: past the wait, a 502 (the statements ran), the answer left unread. */
async function reserveRoom(response: Response, bytes: number, reserve: (bytes: number, signal: AbortSignal) => Promise<void>, left: AbortSignal): Promise<void> {
  try {
    await reserve(bytes, AbortSignal.any([AbortSignal.timeout(ANSWER_ROOM_WAIT_MS), left]));
  } catch (err) {
    await response.body?.cancel().catch(() => undefined);
    if (left.aborted) throw err;
    throw new PublicError(
      502,
      `The statements ran (what they wrote was applied), but the API holds as many database answers as it may and could not read this one within ${ANSWER_ROOM_WAIT_MS / 1000} s, other large answers taking the room it has for them: read fewer rows at a time.`,
    );
  }
}

/** Why an answer's body did not come whole: the statements ran (it is a 200), so never a retry. */
function cutOff(error: unknown, timeoutMs: number): PublicError {
  const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
  const why = timedOut ? `did not finish its answer within ${timeoutMs / 1000} s` : 'lost the connection while it answered';
  return new PublicError(timedOut ? 504 : 502, `The database engine ${why}: the statements ran (what they wrote was applied).`);
}

/** The engine's `Retry-After` when it is a small number of seconds, else 1. */
function retryAfterOf(response: Response): string {
  const seconds = Number(response.headers.get('retry-after'));
  return Number.isInteger(seconds) && seconds > 0 && seconds <= 3600 ? String(seconds) : '1';
}
