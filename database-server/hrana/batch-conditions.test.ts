import { describe, expect, it } from 'vitest';
import { evaluateCondition, type StepOutcomes } from './batch-conditions.ts';
import type { HranaCondition } from './hrana-types.ts';

// Step 0 succeeded, step 1 failed, step 2 did not run; the connection is inside a transaction.
const outcomes: StepOutcomes = {
  ok: (step) => step === 0,
  failed: (step) => step === 1,
  isAutocommit: () => false,
};

describe('batch conditions', () => {
  it.each<[HranaCondition, boolean]>([
    [{ type: 'ok', step: 0 }, true],
    [{ type: 'ok', step: 1 }, false],
    [{ type: 'ok', step: 2 }, false],
    [{ type: 'error', step: 1 }, true],
    [{ type: 'error', step: 2 }, false],
    [{ type: 'not', cond: { type: 'ok', step: 2 } }, true],
    [
      {
        type: 'and',
        conds: [
          { type: 'ok', step: 0 },
          { type: 'error', step: 1 },
        ],
      },
      true,
    ],
    [
      {
        type: 'and',
        conds: [
          { type: 'ok', step: 0 },
          { type: 'ok', step: 1 },
        ],
      },
      false,
    ],
    [{ type: 'and', conds: [] }, true],
    [
      {
        type: 'or',
        conds: [
          { type: 'ok', step: 1 },
          { type: 'ok', step: 2 },
        ],
      },
      false,
    ],
    [
      {
        type: 'or',
        conds: [
          { type: 'ok', step: 1 },
          { type: 'ok', step: 0 },
        ],
      },
      true,
    ],
    [{ type: 'or', conds: [] }, false],
    [{ type: 'is_autocommit' }, false],
  ])('%j is %s', (condition, expected) => {
    expect(evaluateCondition(condition, 3, outcomes)).toBe(expected);
  });

  it.each([{ type: 'ok', step: 3 }, { type: 'ok', step: -1 }, { type: 'ok', step: '0' }, { type: 'and', conds: 'x' }, { type: 'maybe' }])(
    'refuses %j (only earlier steps, known types)',
    (condition) => {
      expect(() => evaluateCondition(condition as HranaCondition, 3, outcomes)).toThrow(expect.objectContaining({ code: 'HRANA_PROTO_ERROR' }));
    },
  );
});
