import { describe, expect, it } from 'vitest';
import { ItemExponentialRateLimiter } from './rate-limiter.ts';

describe('ItemExponentialRateLimiter', () => {
  it('doubles from 5 ms per item', () => {
    const limiter = new ItemExponentialRateLimiter<string>();
    expect([1, 2, 3, 4, 5].map(() => limiter.when('a'))).toEqual([5, 10, 20, 40, 80]);
    expect(limiter.numRequeues('a')).toBe(5);
  });

  it('caps at 1000 s and survives huge failure counts', () => {
    const limiter = new ItemExponentialRateLimiter<string>();
    const delays = Array.from({ length: 2000 }, () => limiter.when('a'));
    expect(delays[17]).toBe(5 * 2 ** 17); // 655.36 s, still under the cap
    expect(delays[18]).toBe(1_000_000);
    expect(delays.at(-1)).toBe(1_000_000);
  });

  it('keeps items independent', () => {
    const limiter = new ItemExponentialRateLimiter<string>();
    limiter.when('a');
    limiter.when('a');
    expect(limiter.when('b')).toBe(5);
    expect(limiter.when('a')).toBe(20);
  });

  it('starts over after forget', () => {
    const limiter = new ItemExponentialRateLimiter<string>(10, 100);
    limiter.when('a');
    limiter.when('a');
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
    expect(limiter.when('a')).toBe(10);
  });
});
