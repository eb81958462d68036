import { describe, expect, it } from 'vitest';
import { MAX_SELF_WAIT_MS, SelfWaits } from './self-waits.ts';

describe('SelfWaits', () => {
  it('looks again after a quarter of the time waited, from the shortest wait up to five minutes', () => {
    const waits = new SelfWaits(1000);
    expect(waits.wait('o', 0)).toBe(1000);
    expect(waits.wait('o', 2_000)).toBe(1000);
    expect(waits.wait('o', 40_000)).toBe(10_000);
    expect(waits.wait('o', 3_600_000)).toBe(MAX_SELF_WAIT_MS);
  });

  it('starts again from the shortest once the order moved on, and keeps each order apart', () => {
    const waits = new SelfWaits(1000);
    waits.wait('o', 0);
    expect(waits.wait('other', 60_000)).toBe(1000);
    waits.done('o');
    expect(waits.wait('o', 60_000)).toBe(1000);
    expect(waits.size).toBe(2);
  });
});
