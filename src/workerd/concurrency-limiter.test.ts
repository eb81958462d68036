import { describe, expect, it, vi } from 'vitest';
import { ConcurrencyLimiter } from './concurrency-limiter.ts';

describe('ConcurrencyLimiter', () => {
  it('admits up to the limit without waiting', () => {
    const limiter = new ConcurrencyLimiter(2, 0, 1000);
    expect([limiter.tryAcquire(), limiter.tryAcquire(), limiter.tryAcquire()]).toEqual([true, true, false]);
    limiter.release();
    expect(limiter.tryAcquire()).toBe(true);
    expect(limiter.active).toBe(2);
  });

  it('refuses at once when there is no queue', async () => {
    const limiter = new ConcurrencyLimiter(1, 0, 1000);
    expect(limiter.tryAcquire()).toBe(true);
    await expect(limiter.wait()).resolves.toBe(false);
  });

  it('queues in FIFO order up to the depth, then refuses', async () => {
    const limiter = new ConcurrencyLimiter(1, 2, 10_000);
    limiter.tryAcquire();
    const order: string[] = [];
    const a = limiter.wait().then((ok) => order.push(`a:${ok}`));
    const b = limiter.wait().then((ok) => order.push(`b:${ok}`));
    await expect(limiter.wait()).resolves.toBe(false);
    expect(limiter.tryAcquire()).toBe(false); // no overtaking the queue
    limiter.release();
    await a;
    limiter.release();
    await b;
    expect(order).toEqual(['a:true', 'b:true']);
    expect(limiter.active).toBe(1);
  });

  it('gives up after the queue timeout', async () => {
    vi.useFakeTimers();
    try {
      const limiter = new ConcurrencyLimiter(1, 1, 500);
      limiter.tryAcquire();
      const waiting = limiter.wait();
      vi.advanceTimersByTime(500);
      await expect(waiting).resolves.toBe(false);
      expect(limiter.queued).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('leaves the queue when the client goes away', async () => {
    const limiter = new ConcurrencyLimiter(1, 1, 10_000);
    limiter.tryAcquire();
    const abort = new AbortController();
    const waiting = limiter.wait(abort.signal);
    abort.abort();
    await expect(waiting).resolves.toBe(false);
    expect(limiter.queued).toBe(0);
    limiter.release();
    expect(limiter.active).toBe(0);
  });

  it('a raised limit admits queued requests', async () => {
    const limiter = new ConcurrencyLimiter(1, 5, 10_000);
    limiter.tryAcquire();
    const waiting = limiter.wait();
    limiter.setLimits(2, 5);
    await expect(waiting).resolves.toBe(true);
    expect(limiter.active).toBe(2);
  });
});
