import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];
/** pino's overloaded log methods, called through with whatever arguments they were given. */
type LogCall = (...args: unknown[]) => void;

/**
 * `request.log`, made when a request first logs: Fastify gives every request a child logger bound to its
 * id, and a pino child costs more than the rest of a request answered from a cache does (measured:
 * bench/README.md). Most requests log nothing themselves; their access line is written through the root
 * logger with the id as a field (plugins/access-log.ts), which prints the same line.
 */
class LazyChildLogger implements FastifyBaseLogger {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildOptions;
  #made: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  #logger(): FastifyBaseLogger {
    this.#made ??= this.#parent.child(this.#bindings, this.#options);
    return this.#made;
  }

  get level(): string {
    return (this.#made ?? this.#parent).level;
  }

  set level(level: string) {
    this.#logger().level = level;
  }

  fatal(...args: unknown[]): void {
    (this.#logger().fatal as LogCall)(...args);
  }

  error(...args: unknown[]): void {
    (this.#logger().error as LogCall)(...args);
  }

  warn(...args: unknown[]): void {
    (this.#logger().warn as LogCall)(...args);
  }

  info(...args: unknown[]): void {
    (this.#logger().info as LogCall)(...args);
  }

  debug(...args: unknown[]): void {
    (this.#logger().debug as LogCall)(...args);
  }

  trace(...args: unknown[]): void {
    (this.#logger().trace as LogCall)(...args);
  }

  silent(...args: unknown[]): void {
    (this.#logger().silent as LogCall)(...args);
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.#logger().child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory` option: request loggers made on first use. */
export const lazyRequestLoggers: Pick<FastifyServerOptions, 'childLoggerFactory'> = {
  childLoggerFactory: (logger, bindings, options) => new LazyChildLogger(logger, bindings, options),
};
