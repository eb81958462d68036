import { describe, expect, it } from 'vitest';
import { LogBudget } from './log-budget.ts';

describe('LogBudget', () => {
  it('passes text within the budget, notes the cut once, then passes nothing', () => {
    const budget = new LogBudget(10);
    expect(budget.take('12345')).toBe('12345');
    expect(budget.take('67890')).toBe('67890');
    expect(budget.spent).toBe(false);
    expect(budget.take('x')).toMatch(/the log passed 10 bytes/);
    expect(budget.spent).toBe(true);
    expect(budget.take('more')).toBe('');
  });

  it('counts bytes, not characters', () => {
    const budget = new LogBudget(4);
    expect(budget.take('éé')).toBe('éé');
    expect(budget.take('é')).toMatch(/passed 4 bytes/);
  });
});
