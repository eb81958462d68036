import { describe, expect, it } from 'vitest';
import { OrderLimiter, ProjectOrderLimiter } from './order-limiter.ts';

describe('OrderLimiter', () => {
  it('allows a burst, then one order per hour / perHour, answering how long to wait', () => {
    let now = 0;
    const limiter = new OrderLimiter({ perHour: 60, burst: 3, now: () => now });
    expect([limiter.take(), limiter.take(), limiter.take()]).toEqual([0, 0, 0]);
    expect(limiter.take()).toBe(60_000);
    now += 30_000;
    expect(limiter.take()).toBe(30_000);
    now += 30_000;
    expect(limiter.take()).toBe(0);
    now += 10 * 3600_000;
    expect([limiter.take(), limiter.take(), limiter.take(), limiter.take()]).toEqual([0, 0, 0, 60_000]);
  });
});

describe('ProjectOrderLimiter', () => {
  it('holds a project that orders a lot to its own bucket, and the others still order', () => {
    let now = 0;
    const limiter = new ProjectOrderLimiter({ account: new OrderLimiter({ perHour: 100, burst: 10, now: () => now }), perProjectPerHour: 20, perProjectBurst: 5, now: () => now });
    const greedy = Array.from({ length: 8 }, () => limiter.take('greedy'));
    expect(greedy.slice(0, 5)).toEqual([0, 0, 0, 0, 0]);
    expect(greedy[5]).toBe(180_000);
    expect([limiter.take('quiet'), limiter.take('other')]).toEqual([0, 0]);
  });

  it('gives a project its token back when the account has none', () => {
    const now = 0;
    const limiter = new ProjectOrderLimiter({ account: new OrderLimiter({ perHour: 60, burst: 1, now: () => now }), perProjectPerHour: 60, perProjectBurst: 2, now: () => now });
    expect(limiter.take('a')).toBe(0);
    expect(limiter.take('a')).toBe(60_000);
    expect(limiter.take('a')).toBe(60_000);
  });
});
