import type { HranaCondition } from './hrana-types.ts';
import { SqlError } from '../sql/sql-error.ts';

/** What a condition can look at: the outcome of earlier steps, and the connection's autocommit state. */
export interface StepOutcomes {
  /** True if step i ran and succeeded. */
  ok(step: number): boolean;
  /** True if step i ran and failed. */
  failed(step: number): boolean;
  isAutocommit(): boolean;
}

/**
 * Evaluates a batch step's condition. A step that did not run is neither ok nor failed, which is what lets the
 * client's `ROLLBACK` step (`not ok(commit)`) run when any earlier step failed and the commit was skipped.
 * `current` is the index of the step being decided: a condition may only look back.
 */
export function evaluateCondition(condition: HranaCondition, current: number, outcomes: StepOutcomes): boolean {
  switch (condition?.type) {
    case 'ok':
      return outcomes.ok(earlierStep(condition.step, current));
    case 'error':
      return outcomes.failed(earlierStep(condition.step, current));
    case 'not':
      return !evaluateCondition(condition.cond, current, outcomes);
    case 'and':
      return conditions(condition.conds).every((c) => evaluateCondition(c, current, outcomes));
    case 'or':
      return conditions(condition.conds).some((c) => evaluateCondition(c, current, outcomes));
    case 'is_autocommit':
      return outcomes.isAutocommit();
  }
  throw new SqlError('HRANA_PROTO_ERROR', `Invalid batch condition: ${JSON.stringify(condition)?.slice(0, 100)}`);
}

function earlierStep(step: unknown, current: number): number {
  if (!Number.isInteger(step) || (step as number) < 0 || (step as number) >= current) {
    throw new SqlError('HRANA_PROTO_ERROR', `Batch condition refers to step ${String(step)}, not an earlier one`);
  }
  return step as number;
}

function conditions(value: unknown): HranaCondition[] {
  if (!Array.isArray(value)) throw new SqlError('HRANA_PROTO_ERROR', 'Batch condition without a list of conditions');
  return value as HranaCondition[];
}
