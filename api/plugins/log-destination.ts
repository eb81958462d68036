import type { FastifyServerOptions } from 'fastify';

/** Buffered lines are written once they reach this many characters… */
const FLUSH_CHARS = 16 * 1024;
/** …or this long after the first of them, so a quiet server's lines still show up promptly. */
export const FLUSH_DELAY_MS = 50;
/** Lines at this pino level or above (warn, error, fatal) are written at once, with everything before them. */
const IMMEDIATE_LEVEL = 40;
/** pino's global symbol (`pino.symbols.needsMetadataGsym`): a destination carrying it is told each line's level. */
const NEEDS_METADATA = Symbol.for('pino.metadata');

/** A pino destination: `write` takes one serialized line. */
export interface LogDestination {
  write(line: string): void;
  /** Hands every buffered line to the sink; pino's `logger.flush(cb)` calls it. */
  flush(cb?: (err?: Error) => void): void;
  /** Set by pino before each `write`, because the destination carries {@link NEEDS_METADATA}. */
  lastLevel?: number;
}

/** Where buffered lines go: standard output in production, anything with `write` in tests. */
export interface LogSink {
  write(chunk: string): unknown;
}

/**
 * Collects log lines and hands them to `sink` in chunks of up to {@link FLUSH_CHARS} characters, at the
 * latest {@link FLUSH_DELAY_MS} ms after the first one; warnings and errors go out at once, after the lines
 * before them. With one access line per request, pino's default destination costs an asynchronous file
 * write (a thread-pool round trip) every request or two: the largest single cost of a request answered from
 * memory (measured: bench/README.md). Lines, their order and their content are unchanged.
 *
 * `process.stdout` writes synchronously to files and pipes, so a chunk handed over is written; on process
 * exit (normal, `process.exit`, an uncaught exception) the buffer is handed over too. Only a kill that skips
 * exit handlers (SIGKILL, an OOM kill) can lose lines: those of the last {@link FLUSH_DELAY_MS} ms.
 */
export function bufferedLogDestination(sink: LogSink, exiting: Pick<NodeJS.EventEmitter, 'once'> = process): LogDestination {
  let lines: string[] = [];
  let chars = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = (cb?: (err?: Error) => void): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (lines.length > 0) {
      const chunk = lines.join('');
      lines = [];
      chars = 0;
      sink.write(chunk);
    }
    cb?.();
  };
  exiting.once('exit', () => flush());
  const destination: LogDestination & { [NEEDS_METADATA]: true } = {
    [NEEDS_METADATA]: true,
    write(line: string): void {
      lines.push(line);
      chars += line.length;
      if (chars >= FLUSH_CHARS || (destination.lastLevel ?? 0) >= IMMEDIATE_LEVEL) flush();
      else timer ??= setTimeout(flush, FLUSH_DELAY_MS).unref();
    },
    flush,
  };
  return destination;
}

/**
 * `options` whose logger configuration names no destination, with standard output through
 * {@link bufferedLogDestination}; options with their own `stream` or `file`, a logger instance, or no logger
 * are returned as they are (tests capture lines with a stream).
 */
export function withBufferedLogs(options: FastifyServerOptions): FastifyServerOptions {
  const logger = options.logger;
  if (typeof logger !== 'object' || logger === null || 'stream' in logger || 'file' in logger) return options;
  return { ...options, logger: { ...logger, stream: bufferedLogDestination(process.stdout) } };
}
