import { describe, expect, it } from 'vitest';
import { OrderLimiter } from './order-limiter.ts';

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
