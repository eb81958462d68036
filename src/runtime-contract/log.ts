/**
 * The logging the runtime needs: structurally the operator's `Logger` (`src/logging/log.ts`),
 * which `src/` may not import.
 */
export interface RuntimeLogger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** Drops everything. */
export const silentRuntimeLogger: RuntimeLogger = { debug() {}, info() {}, warn() {}, error() {} };
