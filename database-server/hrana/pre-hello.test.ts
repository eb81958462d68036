import { describe, expect, it } from 'vitest';
import { PreHelloBudget } from './pre-hello.ts';

const limits = { bytes: 100, totalBytes: 250, perAddress: 2, timeoutMs: 1000 };

describe('PreHelloBudget', () => {
  it('bounds the connections without a hello of one address, and frees the place at the hello or the close', () => {
    const budget = new PreHelloBudget(limits);
    const a = budget.open('10.0.0.1')!;
    const b = budget.open('10.0.0.1')!;
    expect(budget.open('10.0.0.1')).toBeUndefined();
    expect(budget.open('10.0.0.2')).toBeDefined();
    a.end();
    a.end();
    expect(budget.connections).toBe(2);
    expect(budget.open('10.0.0.1')).toBeDefined();
    b.end();
    expect(budget.open('10.0.0.1')).toBeDefined();
  });

  it("refuses a connection's bytes past its own budget, and any past the total, and gives them back at its end", () => {
    const budget = new PreHelloBudget(limits);
    const a = budget.open('a')!;
    expect(a.received(60)).toBe(true);
    expect(a.received(40)).toBe(true);
    expect(a.received(1)).toBe(false);
    const b = budget.open('b')!;
    expect(b.received(100)).toBe(true);
    const c = budget.open('c')!;
    // 101 + 100 held: 49 more reach the total, 50 pass it.
    expect(c.received(49)).toBe(true);
    expect(budget.heldBytes).toBe(250);
    expect(c.received(1)).toBe(false);
    a.end();
    expect(budget.heldBytes).toBe(150);
    expect(c.received(10)).toBe(true);
    // After its hello nothing more is counted.
    b.end();
    expect(b.received(1_000_000)).toBe(true);
    expect(budget.heldBytes).toBe(60);
  });
});
