import { describe, expect, it } from 'vitest';
import { BucketRateLimiter, controllerRateLimiter, ItemExponentialRateLimiter, MaxOfRateLimiter } from './rate-limiter.ts';

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

describe('BucketRateLimiter', () => {
  it('lets a burst through at once, then spaces the rest at the overall rate, whatever the item', () => {
    let now = 1_000_000;
    const limiter = new BucketRateLimiter<string>(10, 3, () => now);
    expect(['a', 'b', 'c'].map((item) => limiter.when(item))).toEqual([0, 0, 0]);
    // Each call past the burst queues behind the one before it: 100 ms apart at 10 a second.
    expect(['d', 'e', 'f'].map((item) => limiter.when(item))).toEqual([100, 200, 300]);
    now += 1000; // ten tokens come back, but the three owed are paid first and the bucket holds three
    expect(['g', 'h', 'i', 'j'].map((item) => limiter.when(item))).toEqual([0, 0, 0, 100]);
  });

  it('refills nothing when the clock steps back', () => {
    let now = 5_000;
    const limiter = new BucketRateLimiter<string>(10, 1, () => now);
    expect(limiter.when('a')).toBe(0);
    now -= 60_000;
    expect(limiter.when('a')).toBe(100);
    now += 60_000; // back where it was: still no time has passed since the last call
    expect(limiter.when('a')).toBe(200);
  });
});

describe('controllerRateLimiter (client-go DefaultControllerRateLimiter)', () => {
  it('answers the longer of the per-item backoff and the overall bucket', () => {
    const now = 0;
    const limiter = controllerRateLimiter<string>({ perSecond: 10, burst: 2, nowMs: () => now });
    expect(limiter.when('a')).toBe(5); // per item
    expect(limiter.when('a')).toBe(10);
    expect(limiter.when('b')).toBe(100); // the bucket: its third retry in the same instant
    expect(limiter.numRequeues('a')).toBe(2);
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
  });

  it("uses client-go's figures by default", () => {
    const limiter = controllerRateLimiter<string>({ nowMs: () => 0 });
    const delays = Array.from({ length: 101 }, (_, i) => limiter.when(`item-${i}`));
    expect(delays.slice(0, 100).every((d) => d === 5)).toBe(true);
    expect(delays[100]).toBe(100); // the 101st retry within a second waits for a token at 10 a second
  });

  it('MaxOfRateLimiter counts a failure in every limiter', () => {
    const a = new ItemExponentialRateLimiter<string>(1, 1000);
    const b = new ItemExponentialRateLimiter<string>(3, 1000);
    const limiter = new MaxOfRateLimiter(a, b);
    expect(limiter.when('x')).toBe(3);
    expect(a.numRequeues('x')).toBe(1);
    expect(b.numRequeues('x')).toBe(1);
  });
});
