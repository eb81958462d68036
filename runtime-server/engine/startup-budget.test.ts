import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StartupBudget, type StartupAdmission } from './startup-budget.ts';

function admitted(a: StartupAdmission): Extract<StartupAdmission, { admitted: true }> {
  if (!a.admitted) throw new Error(`refused, retry after ${a.retryAfterMs} ms`);
  return a;
}

describe('StartupBudget', () => {
  beforeEach(() => void vi.useFakeTimers({ now: 0 }));
  afterEach(() => void vi.useRealTimers());

  /** 1.2 s a minute: 20 ms of load CPU time comes back each second. */
  const budget = () => new StartupBudget({ cpuMsPerMinute: 1200, waitMs: 5000 });

  it('lets loads in while the bucket has room, then refuses the next at once when its wait would be too long', async () => {
    const b = budget();
    admitted(await b.admit('p', 10)).charge(800);
    admitted(await b.admit('p', 10)).charge(800);
    expect(b.available('p')).toBe(-400);
    // 400 ms short at 20 ms a second is 20 s, past the 5 s a load may wait.
    expect(await b.admit('p', 10)).toEqual({ admitted: false, retryAfterMs: 20_000 });
    await vi.advanceTimersByTimeAsync(20_010);
    expect((await b.admit('p', 10)).admitted).toBe(true);
  });

  it('lets loads wait for the bucket to refill, within their bound, in order', async () => {
    const b = budget();
    admitted(await b.admit('p', 10)).charge(1260);
    let first: StartupAdmission | undefined;
    let second: StartupAdmission | undefined;
    void b.admit('p', 10).then((a) => (first = a));
    // 60 ms spent past the bucket: 3 s to repay, within the 5 s a load may wait, so it waits too.
    void b.admit('p', 10).then((a) => (second = a));
    await vi.advanceTimersByTimeAsync(2900);
    expect(first).toBeUndefined();
    await vi.advanceTimersByTimeAsync(200);
    expect(first?.admitted).toBe(true);
    // The first is expected to take 1,260 ms as the longest load did: the second is refused when its wait is up.
    await vi.advanceTimersByTimeAsync(2000);
    expect(second).toEqual({ admitted: false, retryAfterMs: expect.any(Number) });
  });

  it('refuses a waiting load once its wait runs out, when a load charged meanwhile took more than expected', async () => {
    const b = budget();
    const a = admitted(await b.admit('p', 10));
    const other = admitted(await b.admit('p', 10));
    a.charge(1250);
    let waiting: StartupAdmission | undefined;
    // 60 ms short: 3 s away, within its bound.
    void b.admit('p', 10).then((w) => (waiting = w));
    other.charge(1300);
    await vi.advanceTimersByTimeAsync(4900);
    expect(waiting).toBeUndefined();
    await vi.advanceTimersByTimeAsync(200);
    expect(waiting).toEqual({ admitted: false, retryAfterMs: expect.any(Number) });
    expect(waiting?.admitted === false && waiting.retryAfterMs).toBeGreaterThan(50_000);
  });

  it('expects every load of a project to take its longest lately, so a cheap check does not let many in at once', async () => {
    const b = budget();
    admitted(await b.admit('p', 5)).charge(700);
    await vi.advanceTimersByTimeAsync(60_000);
    // Full again (1200), and each load is expected to take 700: two are let in, a third waits.
    const one = admitted(await b.admit('p', 5));
    expect(b.available('p')).toBe(500);
    admitted(await b.admit('p', 5));
    expect(b.available('p')).toBe(-200);
    let third: StartupAdmission | undefined;
    void b.admit('p', 5).then((a) => (third = a));
    await vi.advanceTimersByTimeAsync(1000);
    expect(third).toBeUndefined();
    // Nothing but a charge can make room (the bucket is full): no timer but the waiter's own bound.
    expect(vi.getTimerCount()).toBe(1);
    // The first took 10: what it did not take is back at once, and the third is let in.
    one.charge(10);
    await vi.advanceTimersByTimeAsync(0);
    expect(third?.admitted).toBe(true);
  });

  it('halves what it expects of a load with each smaller one measured', async () => {
    const b = budget();
    admitted(await b.admit('p', 0)).charge(800);
    await vi.advanceTimersByTimeAsync(60_000);
    const next = admitted(await b.admit('p', 0));
    expect(b.available('p')).toBe(400); // 800 expected
    next.charge(5);
    await vi.advanceTimersByTimeAsync(60_000);
    admitted(await b.admit('p', 0));
    expect(b.available('p')).toBe(800); // 400 expected
  });

  it('lets in at once what the platform causes while the project owes less than a bucket more, and charges it', async () => {
    const b = budget();
    admitted(await b.admit('p', 10)).charge(1500);
    expect((await b.admit('p', 10)).admitted).toBe(false);
    admitted(await b.admit('p', 10, true)).charge(1000);
    expect(b.available('p')).toBe(-1300);
    // Past a bucket owed, what the platform causes waits or is refused like the rest: a tenant cannot pass as it.
    expect(await b.admit('p', 10, true)).toEqual({ admitted: false, retryAfterMs: 65_000 });
  });

  it('keeps projects apart: one out of budget leaves another untouched', async () => {
    const b = budget();
    admitted(await b.admit('greedy', 10)).charge(5000);
    expect((await b.admit('greedy', 10)).admitted).toBe(false);
    expect((await b.admit('calm', 10)).admitted).toBe(true);
  });

  it('charges a load once however often it is told', async () => {
    const b = budget();
    const load = admitted(await b.admit('p', 100));
    load.charge(300);
    load.charge(300);
    expect(b.available('p')).toBe(900);
  });

  it('bounds nothing with no budget', async () => {
    const b = new StartupBudget({ cpuMsPerMinute: 0, waitMs: 5000 });
    for (let i = 0; i < 10; i += 1) admitted(await b.admit('p', 1000)).charge(1000);
    expect((await b.admit('p', 1000)).admitted).toBe(true);
  });
});
