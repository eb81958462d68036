import { describe, expect, it } from 'vitest';
import { SpoolBudget, SpoolFullError } from './spool-budget.ts';

describe('SpoolBudget', () => {
  it("refuses an owner's receive past its share with 429, while another owner's goes on", () => {
    const budget = new SpoolBudget({ perOwnerBytes: 100, totalBytes: 1000 });
    const first = budget.open('acme');
    first.reach(60);
    const second = budget.open('acme');
    second.reach(40);
    const refused = (() => {
      try {
        second.reach(41);
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(SpoolFullError);
    expect(refused).toMatchObject({ status: 429, code: 'owner_uploads_limit', headers: { 'retry-after': '10' } });
    budget.open('other').reach(100);
    expect(budget.heldBytes).toBe(200);
  });

  it('refuses a receive larger than a bound by itself with 413, which no retry helps', () => {
    const budget = new SpoolBudget({ perOwnerBytes: 100, totalBytes: 1000 });
    expect(() => budget.open('a').reach(101)).toThrow(expect.objectContaining({ status: 413, code: 'spool_too_large', headers: {} }));
    expect(budget.heldBytes).toBe(0);
  });

  it('refuses any receive past the instance bound with 503', () => {
    const budget = new SpoolBudget({ perOwnerBytes: 100, totalBytes: 150 });
    budget.open('a').reach(100);
    expect(() => budget.open('b').reach(51)).toThrow(expect.objectContaining({ status: 503, code: 'spool_full' }));
  });

  it('counts what a receive holds in all, gives it back once on release, and counts nothing after', () => {
    const budget = new SpoolBudget({ perOwnerBytes: 100, totalBytes: 100 });
    const meter = budget.open('a');
    meter.reach(30);
    meter.reach(20);
    meter.reach(70);
    expect(budget.heldBytes).toBe(70);
    meter.release();
    meter.release();
    meter.reach(90);
    expect(budget.heldBytes).toBe(0);
    budget.open('a').reach(100);
  });
});
