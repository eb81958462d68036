/**
 * An error answered to the client as a Hrana error: `code` becomes `LibsqlError.code` in the official client, so
 * it follows sqld's names (`SQLITE_CONSTRAINT`, `SQL_INPUT_ERROR`, `HRANA_PROTO_ERROR`, ...).
 */
export class SqlError extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = 'SqlError';
    this.code = code;
  }
}

// SQLite's primary result codes. sqld reports the primary code (SQLITE_CONSTRAINT, not SQLITE_CONSTRAINT_UNIQUE),
// and clients branch on it, so extended codes are folded into these.
const PRIMARY_CODES = [
  'SQLITE_ERROR',
  'SQLITE_INTERNAL',
  'SQLITE_PERM',
  'SQLITE_ABORT',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_NOMEM',
  'SQLITE_READONLY',
  'SQLITE_INTERRUPT',
  'SQLITE_IOERR',
  'SQLITE_CORRUPT',
  'SQLITE_NOTFOUND',
  'SQLITE_FULL',
  'SQLITE_CANTOPEN',
  'SQLITE_PROTOCOL',
  'SQLITE_EMPTY',
  'SQLITE_SCHEMA',
  'SQLITE_TOOBIG',
  'SQLITE_CONSTRAINT',
  'SQLITE_MISMATCH',
  'SQLITE_MISUSE',
  'SQLITE_NOLFS',
  'SQLITE_AUTH',
  'SQLITE_FORMAT',
  'SQLITE_RANGE',
  'SQLITE_NOTADB',
];

/**
 * The Hrana code for an engine error code and message. Syntax errors are the client's SQL, which sqld reports as
 * `SQL_INPUT_ERROR` (its own parser finds them before SQLite does); other failures keep SQLite's primary code.
 */
export function hranaErrorCode(engineCode: string | undefined, message: string): string {
  if (/syntax error|incomplete input|unrecognized token/i.test(message)) return 'SQL_INPUT_ERROR';
  if (engineCode === undefined) return 'SQLITE_ERROR';
  const primary = PRIMARY_CODES.find((code) => engineCode === code || engineCode.startsWith(`${code}_`));
  return primary ?? engineCode;
}

/** What the sandbox's refusal says: the package's own text is a JSON blob naming no statement part. */
export const NOT_AUTHORIZED =
  'not authorized: a database may not attach other files, read or write files, load extensions, create virtual tables other than full-text search and R*Tree or TEMP objects, or run PRAGMAs outside the allowed list (docs/databases.md, "The SQL sandbox")';

/**
 * The `SqlError` for anything the engine threw. The package reports SQLite failures either as errors with a
 * `code`, or (from row iteration) as a generic failure whose message is a JSON object with `code` and `message`.
 */
export function engineFailure(error: unknown): SqlError {
  if (error instanceof SqlError) return error;
  let message = error instanceof Error ? error.message : String(error);
  let code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : undefined;
  const reported = parseReported(message);
  if (reported) ({ code, message } = reported);
  const opened = failedOpen(message);
  if (opened) ({ code, message } = opened);
  if (code === 'SQLITE_AUTH') return new SqlError('SQLITE_AUTH', NOT_AUTHORIZED);
  if (code === 'SQLITE_NOMEM') return new SqlError('SQLITE_NOMEM', 'The statement needs more memory than a database may use on this engine: select or build smaller values');
  return new SqlError(hranaErrorCode(code, message), message);
}

/**
 * The package reports a connection SQLite could not open as text ending in SQLite's result code ("Failed to connect
 * to database: `Unable to open connection to local database <path>: 7`"): its primary code, and a message without
 * the server's path. Out of memory there (7) is a shard with no room for another database, as anywhere else.
 */
function failedOpen(message: string): { code: string; message: string } | undefined {
  // Its end alone is read for the code: the message may carry a tenant's long text, and `.*` over it is quadratic.
  const result = message.includes('Unable to open connection to local database ') ? /: (\d+)`?\s*$/.exec(message.slice(-64)) : null;
  if (!result) return undefined;
  const code = PRIMARY_CODES[(Number(result[1]) & 0xff) - 1] ?? 'SQLITE_ERROR';
  return { code, message: `The database could not be opened (${code})` };
}

function parseReported(message: string): { code: string; message: string } | undefined {
  if (!message.startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(message) as { code?: unknown; message?: unknown };
    if (typeof parsed.code === 'string' && typeof parsed.message === 'string') return { code: parsed.code, message: parsed.message };
  } catch {
    // Not the package's JSON: the message is the message.
  }
  return undefined;
}
