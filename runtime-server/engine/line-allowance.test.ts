import { describe, expect, it } from 'vitest';
import { LineAllowance } from './line-allowance.ts';

describe('LineAllowance', () => {
  it('lets a second’s worth of lines through, counts the rest, and says how many once the next second begins', () => {
    let now = 0;
    const allowance = new LineAllowance(3, () => now);
    expect([1, 2, 3, 4, 5].map(() => allowance.take())).toEqual([
      { log: true, leftOut: 0 },
      { log: true, leftOut: 0 },
      { log: true, leftOut: 0 },
      { log: false, leftOut: 0 },
      { log: false, leftOut: 0 },
    ]);
    now = 999;
    expect(allowance.take()).toEqual({ log: false, leftOut: 0 });
    now = 1000;
    expect(allowance.take()).toEqual({ log: true, leftOut: 3 });
    expect(allowance.take()).toEqual({ log: true, leftOut: 0 });
    now = 5000;
    expect(allowance.take()).toEqual({ log: true, leftOut: 0 }); // nothing was left out since
  });
});
