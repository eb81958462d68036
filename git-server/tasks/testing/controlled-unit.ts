// A maintenance unit a test drives step by step: it reports what it is told to, and ends when released (or ends
// `interrupted` as a real unit does, once its signal is aborted).
import { UnitInterruptedError, type UnitContext, type UnitResult } from '../../../src/repo-maintenance/operation.ts';

export class ControlledUnit {
  /** How many times the unit was started. */
  runs = 0;
  #ctx: UnitContext | undefined;
  #started = Promise.withResolvers<UnitContext>();
  #finish = Promise.withResolvers<UnitResult>();

  /** The unit itself: pass it as a task's `run`. */
  readonly run = (ctx: UnitContext): Promise<UnitResult> => {
    this.runs++;
    this.#ctx = ctx;
    this.#started.resolve(ctx);
    ctx.signal.addEventListener('abort', () => this.#finish.reject(new UnitInterruptedError()), { once: true });
    return this.#finish.promise;
  };

  /** Resolves with the unit's context once it runs. */
  started(): Promise<UnitContext> {
    return this.#started.promise;
  }

  get ctx(): UnitContext {
    if (!this.#ctx) throw new Error('the unit has not started');
    return this.#ctx;
  }

  succeed(summary = 'done'): void {
    this.#finish.resolve({ summary });
  }

  fail(error: unknown): void {
    this.#finish.reject(error);
  }
}
