import { describe, expect, it } from 'vitest';
import { FetchSlots } from './fetch-slots.ts';

const pending = async (promise: Promise<unknown>) => (await Promise.race([promise.then(() => 'settled'), new Promise((r) => setTimeout(() => r('pending'), 20))])) === 'pending';

describe('FetchSlots', () => {
  it("runs so many per caller, per owner and in all, and one past its share waits its turn while others' pass", async () => {
    const slots = new FetchSlots({ perCaller: 2, perOwner: 3, total: 4, waitMs: 5_000 });
    const a1 = await slots.take({ caller: 'ada', owner: 'shop' });
    await slots.take({ caller: 'ada', owner: 'shop' });
    // Ada's third waits for one of her two; Bob's fetch of another owner's repository does not wait behind her.
    const a3 = slots.take({ caller: 'ada', owner: 'shop' });
    expect(await pending(a3)).toBe(true);
    const b1 = await slots.take({ caller: 'bob', owner: 'blog' });
    expect(slots.counts).toEqual({ running: 3, waiting: 1 });
    a1();
    await a3;
    await slots.take({ caller: 'dave', owner: 'docs' });
    // The instance is full now: anyone waits, first come first served.
    const c1 = slots.take({ caller: 'carol', owner: 'tools' });
    expect(await pending(c1)).toBe(true);
    b1();
    await c1;
    expect(slots.counts).toEqual({ running: 4, waiting: 0 });
  });

  it('gives freed room to the caller with the fewest fetches running, before older waiters of callers running more (found by a hostile run)', async () => {
    const slots = new FetchSlots({ perCaller: 2, perOwner: 4, total: 4, waitMs: 5_000 });
    const ada = [await slots.take({ caller: 'ada', owner: 'evil' }), await slots.take({ caller: 'ada', owner: 'evil' })];
    await slots.take({ caller: 'bob', owner: 'evil2' });
    await slots.take({ caller: 'bob', owner: 'evil2' });
    // Two tenants cloning in loops: their next fetches always queue before anyone else's.
    const adaNext = slots.take({ caller: 'ada', owner: 'evil' });
    const bobNext = slots.take({ caller: 'bob', owner: 'evil2' });
    const carol = slots.take({ caller: 'carol', owner: 'shop' });
    expect(await pending(carol)).toBe(true);
    ada[0]!();
    expect(await pending(carol)).toBe(false);
    expect(await pending(adaNext)).toBe(true);
    // Ada, now running fewer than Bob, goes next.
    ada[1]!();
    expect(await pending(adaNext)).toBe(false);
    expect(await pending(bobNext)).toBe(true);
  });

  it("counts a fetch against the repository owner's share too", async () => {
    const slots = new FetchSlots({ perCaller: 4, perOwner: 2, total: 8, waitMs: 5_000 });
    const releases = [await slots.take({ caller: 'bob', owner: 'popular' }), await slots.take({ caller: 'carol', owner: 'popular' })];
    const third = slots.take({ caller: 'dave', owner: 'popular' });
    expect(await pending(third)).toBe(true);
    await slots.take({ caller: 'dave', owner: 'quiet' });
    releases[0]!();
    await third;
  });

  it('refuses one that waited the bound, 429 for a share of its own and 503 for the instance, and gives up a wait whose client left', async () => {
    const slots = new FetchSlots({ perCaller: 1, perOwner: 8, total: 2, waitMs: 30 });
    await slots.take({ caller: 'ada', owner: 'shop' });
    await expect(slots.take({ caller: 'ada', owner: 'shop' })).rejects.toMatchObject({ status: 429, code: 'owner_fetches_limit', headers: { 'retry-after': '10' } });
    await slots.take({ caller: 'bob', owner: 'blog' });
    await expect(slots.take({ caller: 'carol', owner: 'tools' })).rejects.toMatchObject({ status: 503, code: 'fetches_busy' });
    const left = new AbortController();
    const waiting = slots.take({ caller: 'dave', owner: 'x' }, left.signal);
    left.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    expect(slots.counts).toEqual({ running: 2, waiting: 0 });
  });

  it("wakes those held back behind a waiter that left, and never keeps the instance's last slot for a waiter held by its own share", async () => {
    const slots = new FetchSlots({ perCaller: 1, perOwner: 8, total: 2, waitMs: 5_000 });
    await slots.take({ caller: 'ada', owner: 'shop' });
    const left = new AbortController();
    const adaAgain = slots.take({ caller: 'ada', owner: 'shop' }, left.signal);
    // Ada's second waits for her own share: Bob takes the instance's last slot rather than waiting behind her.
    const bob = slots.take({ caller: 'bob', owner: 'shop' });
    expect(await pending(bob)).toBe(false);
    left.abort(new Error('gone'));
    await expect(adaAgain).rejects.toThrow('gone');
    expect(slots.counts).toEqual({ running: 2, waiting: 0 });
  });

  it('gives freed room first to a waiter that waited half the bound, whoever runs more, so a busy caller is slowed, not refused', async () => {
    let now = 0;
    const slots = new FetchSlots({ perCaller: 2, perOwner: 4, total: 3, waitMs: 10_000 }, () => now);
    const ada = [await slots.take({ caller: 'ada', owner: 'ci' }), await slots.take({ caller: 'ada', owner: 'ci' })];
    await slots.take({ caller: 'bob', owner: 'web' });
    const adaThird = slots.take({ caller: 'ada', owner: 'ci' }); // waits for her share
    now = 6_000; // past half the wait
    const carol = slots.take({ caller: 'carol', owner: 'docs' }); // waits for the instance, running none
    ada[0]!();
    // Without aging Carol (running none) would go first, and Ada's third could wait out the bound behind such callers.
    expect(await pending(adaThird)).toBe(false);
    expect(await pending(carol)).toBe(true);
  });

  it('gives no turn, nor a place in line, to a request whose client left before it asked (review-181 L3)', async () => {
    const slots = new FetchSlots({ perCaller: 1, perOwner: 8, total: 2, waitMs: 1_000 });
    const gone = new AbortController();
    gone.abort(new Error('gone'));
    // Room for it: refused all the same.
    await expect(slots.take({ caller: 'ada', owner: 'shop' }, gone.signal)).rejects.toThrow('gone');
    expect(slots.counts).toEqual({ running: 0, waiting: 0 });
    // No room: not queued either.
    await slots.take({ caller: 'ada', owner: 'shop' });
    await expect(slots.take({ caller: 'ada', owner: 'shop' }, gone.signal)).rejects.toThrow('gone');
    expect(slots.counts).toEqual({ running: 1, waiting: 0 });
  });

  it('refuses at once a fetch of a caller with four times its share waiting already', async () => {
    const slots = new FetchSlots({ perCaller: 1, perOwner: 10, total: 10, waitMs: 5_000 });
    await slots.take({ caller: 'ci', owner: 'shop' });
    const waiting = Array.from({ length: 4 }, () => slots.take({ caller: 'ci', owner: 'shop' }));
    for (const w of waiting) w.catch(() => undefined);
    await expect(slots.take({ caller: 'ci', owner: 'shop' })).rejects.toMatchObject({ status: 429 });
    expect(slots.counts).toEqual({ running: 1, waiting: 4 });
    // Another caller is not refused for it.
    await slots.take({ caller: 'dev', owner: 'shop' });
  });
});
