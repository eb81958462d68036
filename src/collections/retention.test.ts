import { describe, expect, it } from 'vitest';
import { oldestBeyond } from './retention.ts';

describe('oldestBeyond', () => {
  it('answers the oldest past the newest `keep`, at most `atMost` of them, oldest first', () => {
    const items = [1, 2, 3, 4, 5, 6];
    expect(oldestBeyond(items, 3, 10)).toEqual([1, 2, 3]);
    expect(oldestBeyond(items, 3, 2)).toEqual([1, 2]);
    expect(oldestBeyond(items, 6, 10)).toEqual([]);
    expect(oldestBeyond(items, 9, 10)).toEqual([]);
    expect(oldestBeyond([], 0, 10)).toEqual([]);
  });
});
