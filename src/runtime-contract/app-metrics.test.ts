import { describe, expect, it } from 'vitest';
import { addCounts, percentileMs } from './app-metrics.ts';

const BOUNDS = [5, 10, 25, 50];

describe('percentileMs', () => {
  it('is null with no answers', () => {
    expect(percentileMs([0, 0, 0, 0, 0], 0.5, BOUNDS)).toBeNull();
    expect(percentileMs([], 0.95, BOUNDS)).toBeNull();
  });

  it('interpolates linearly inside the bucket the rank falls in, from the bucket below’s bound', () => {
    // 100 answers: 50 in ≤5 ms, 40 in 5–10, 10 in 10–25.
    const buckets = [50, 40, 10, 0, 0];
    expect(percentileMs(buckets, 0.5, BOUNDS)).toBe(5); // rank 50: the top of the first bucket
    expect(percentileMs(buckets, 0.25, BOUNDS)).toBe(2.5); // rank 25 of 50 in 0–5
    expect(percentileMs(buckets, 0.7, BOUNDS)).toBe(7.5); // rank 70: 20 of 40 into 5–10
    expect(percentileMs(buckets, 0.95, BOUNDS)).toBe(17.5); // rank 95: 5 of 10 into 10–25
    expect(percentileMs(buckets, 0.99, BOUNDS)).toBeCloseTo(23.5); // rank 99: 9 of 10 into 10–25
  });

  it('skips empty buckets, and gives the last bound for answers past it', () => {
    expect(percentileMs([0, 0, 0, 4, 0], 0.5, BOUNDS)).toBe(37.5);
    expect(percentileMs([1, 0, 0, 0, 9], 0.5, BOUNDS)).toBe(50);
    expect(percentileMs([1, 0, 0, 0, 9], 0.1, BOUNDS)).toBe(5);
  });

  it('adds counts element by element, the longer’s length', () => {
    expect(addCounts([1, 2], [3, 4, 5])).toEqual([4, 6, 5]);
  });
});
