import { describe, expect, it } from 'vitest';
import { TokenBuckets } from './token-buckets.ts';

describe('TokenBuckets', () => {
  it('spends a burst, refills at the rate, and says when the next request fits', () => {
    let now = 0;
    const buckets = new TokenBuckets({ perSecond: 2, burst: 3 }, 10, () => now);
    expect([buckets.take('a'), buckets.take('a'), buckets.take('a'), buckets.take('a')]).toEqual([2, 1, 0, undefined]);
    expect(buckets.hasRoom('a')).toBe(false);
    expect(buckets.retryAfterSeconds('a')).toBe(1);
    expect(buckets.take('b')).toBe(2); // keys do not share
    now += 500;
    expect(buckets.hasRoom('a')).toBe(true);
    expect([buckets.take('a'), buckets.take('a')]).toEqual([0, undefined]);
    now += 60_000;
    expect(buckets.take('a')).toBe(2); // never more than the burst
  });

  it('refills nothing, and drains nothing, when the clock steps back', () => {
    let now = 1_000_000;
    const buckets = new TokenBuckets({ perSecond: 1, burst: 2 }, 10, () => now);
    expect(buckets.take('a')).toBe(1);
    now -= 3_600_000;
    expect(buckets.take('a')).toBe(0);
    now += 1000;
    expect(buckets.take('a')).toBe(0);
  });

  it('remembers nothing for a key that is only asked about', () => {
    const buckets = new TokenBuckets({ perSecond: 1, burst: 1 }, 2, () => 0);
    for (let i = 0; i < 10; i++) expect(buckets.hasRoom(`asked-${i}`)).toBe(true);
    expect(buckets.take('spender')).toBe(0);
    for (let i = 0; i < 10; i++) buckets.hasRoom(`asked-${i}`);
    expect(buckets.hasRoom('spender')).toBe(false); // still remembered: asking evicted nothing
  });
});
