import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff.ts';

describe('backoffDelay', () => {
  const policy = { baseMs: 1000, maxMs: 60_000 };

  it('doubles per failure up to the cap, with half of each delay random', () => {
    expect([1, 2, 3, 4, 7, 8, 100].map((n) => backoffDelay(n, policy, () => 0))).toEqual([500, 1000, 2000, 4000, 30_000, 30_000, 30_000]);
    expect([1, 2, 3, 7, 100].map((n) => backoffDelay(n, policy, () => 0.999999))).toEqual([1000, 2000, 4000, 60_000, 60_000]);
  });

  it('treats zero or negative counts as a first failure', () => {
    expect(backoffDelay(0, policy, () => 0)).toBe(500);
  });
});
