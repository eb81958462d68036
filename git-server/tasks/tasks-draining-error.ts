import { PublicError } from '../../src/errors.ts';
import { DRAIN_RETRY_AFTER_SECONDS } from '../drain.ts';

/** 503: the instance is shutting down; it starts no task any more (another instance will). */
export class TasksDrainingError extends PublicError {
  override readonly name = 'TasksDrainingError';
  readonly code = 'draining';
  constructor() {
    super(503, 'This instance is shutting down and starts no new task; retry.', { 'retry-after': String(DRAIN_RETRY_AFTER_SECONDS) });
  }
}
