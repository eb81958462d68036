// How a task that threw ended, in words its record may show: an interruption is `interrupted`; a public error's
// message is shown (the store being unreachable says so, nothing more); anything else is logged here and shown as
// a pointer to the log, so no store address, path or stack reaches a client.
import { PublicError } from '../../src/errors.ts';
import { UnitInterruptedError } from '../../src/repo-maintenance/operation.ts';

/** The structured logger tasks write to (pino's and Fastify's fit). */
export interface TaskLogger {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export const INTERNAL_ERROR_SUMMARY = 'internal error, see the service log';

export function endOf(error: unknown, signal: AbortSignal, log: TaskLogger, context: Record<string, string>): { state: 'failed' | 'interrupted'; summary: string } {
  // Its summary says why, from the signal's reason: the drain, or the maintainer's unit deadline (not always a shutdown).
  if (error instanceof UnitInterruptedError) return { state: 'interrupted', summary: firstLine(signal.aborted ? new UnitInterruptedError(signal.reason).message : error.message) };
  // A git process or a store request cut short by the signal: the same interruption, said by another layer.
  if (signal.aborted && error instanceof Error && error.name === 'AbortError') return { state: 'interrupted', summary: firstLine(new UnitInterruptedError(signal.reason).message) };
  if (error instanceof PublicError) return { state: 'failed', summary: firstLine(error.message) };
  log.error({ err: error, ...context }, 'task failed');
  return { state: 'failed', summary: INTERNAL_ERROR_SUMMARY };
}

function firstLine(message: string): string {
  return message.split('\n', 1)[0]?.trim() || INTERNAL_ERROR_SUMMARY;
}
