/** Fields attached to a log line. Never put secrets, tokens or whole objects here: keys and names only. */
export type LogFields = Record<string, unknown>;

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The levels, least severe first: what `CW_LOG_LEVEL` may be. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const satisfies readonly LogLevel[];

/** A structured logger: one JSON object per line, e.g. `{"level":"info","msg":"…","controller":"…"}`. */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line. */
  child(fields: LogFields): Logger;
}

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Errors are logged by message (and `reason`/`code` when the apiserver gave them), not by stack dump. */
function serialize(value: unknown): unknown {
  if (value instanceof Error) {
    const { code, reason } = value as { code?: unknown; reason?: unknown };
    return { name: value.name, message: value.message, ...(code !== undefined ? { code } : {}), ...(reason ? { reason } : {}) };
  }
  return value;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go; defaults to stdout. */
  write?: (line: string) => void;
  /** Clock for the `time` field. */
  now?: () => number;
}

export function createLogger(options: LoggerOptions = {}, base: LogFields = {}): Logger {
  const { level = 'info', write = (line) => void process.stdout.write(line), now = Date.now } = options;
  const emit = (lvl: LogLevel, msg: string, fields: LogFields = {}) => {
    if (rank[lvl] < rank[level]) return;
    const record: LogFields = { time: new Date(now()).toISOString(), level: lvl, msg };
    for (const [key, value] of Object.entries({ ...base, ...fields })) {
      if (value !== undefined) record[key] = serialize(value);
    }
    write(`${JSON.stringify(record)}\n`);
  };
  return {
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    child: (fields) => createLogger(options, { ...base, ...fields }),
  };
}

/** A logger that drops everything (tests). */
export const silentLogger: Logger = createLogger({ write: () => {} });
