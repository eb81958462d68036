import { describe, expect, it } from 'vitest';
import { RunNotStartedError } from './engine-port.ts';
import { ProjectSlots } from './project-slots.ts';

/** Whether `promise` has settled by the next turn of the event loop's microtasks. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await Promise.resolve();
  await Promise.resolve();
  return done;
}

describe('ProjectSlots', () => {
  it('gives up a waiting place when its run is cancelled: nothing held, and the freed slot goes to the next one', async () => {
    const slots = new ProjectSlots(1);
    const holder = await slots.acquire('a');
    const lent = await slots.acquire('x'); // the one slot lent beyond the shard's one
    const cancel = new AbortController();
    const gone = slots.acquire('b', cancel.signal);
    const next = slots.acquire('c');
    cancel.abort();
    await expect(gone).rejects.toBeInstanceOf(RunNotStartedError);
    expect(slots.waiting).toBe(1);
    holder();
    expect(await settled(next)).toBe(true);
    expect([slots.heldBy('b'), slots.heldBy('c')]).toEqual([0, 1]);
    // Cancelled before it asked: refused at once. Cancelled once granted: the slot stays held until released.
    await expect(slots.acquire('d', AbortSignal.abort())).rejects.toBeInstanceOf(RunNotStartedError);
    (await next)();
    const late = new AbortController();
    const release = await slots.acquire('e', late.signal);
    late.abort();
    expect(slots.heldBy('e')).toBe(1);
    release();
    lent();
    expect(slots.running).toBe(0);
  });

  it('lets one project take every slot while nobody else waits', async () => {
    const slots = new ProjectSlots(4);
    const held = await Promise.all([1, 2, 3, 4].map(() => slots.acquire('greedy')));
    expect(slots.heldBy('greedy')).toBe(4);
    const fifth = slots.acquire('greedy');
    expect(await settled(fifth)).toBe(false);
    held[0]!();
    expect(await settled(fifth)).toBe(true);
  });

  it('lends a project holding no slot one beyond a shard another project filled, at once, up to half as many again', async () => {
    const slots = new ProjectSlots(4);
    const greedy = await Promise.all([1, 2, 3, 4].map(() => slots.acquire('greedy')));
    const moreGreedy = slots.acquire('greedy');
    const victims = await Promise.all(['v1', 'v2'].map((v) => slots.acquire(v)));
    expect(slots.running).toBe(6);
    // A project that holds one already, or one past the lent half, waits.
    const [v1Again, v3] = [slots.acquire('v1'), slots.acquire('v3')];
    expect(await Promise.all([moreGreedy, v1Again, v3].map(settled))).toEqual([false, false, false]);
    // A lent slot given back is lent again to a project holding none (v1, holding none once it gave it back, asked
    // first); the holder's own queue waits for one of its own to end.
    victims[0]!();
    expect(await Promise.all([v1Again, v3, moreGreedy].map(settled))).toEqual([true, false, false]);
    victims[1]!();
    expect(await Promise.all([v3, moreGreedy].map(settled))).toEqual([true, false]);
    expect(slots.running).toBe(6);
    (await v1Again)();
    (await v3)();
    expect(await settled(moreGreedy)).toBe(false);
    greedy[0]!();
    expect(await settled(moreGreedy)).toBe(true);
    expect(slots.running).toBe(4);
  });

  it("gives a freed slot to another project's request before the holder's own queue, until the holder is down to half", async () => {
    const slots = new ProjectSlots(4);
    const greedy = await Promise.all([1, 2, 3, 4].map(() => slots.acquire('greedy')));
    const moreGreedy = [slots.acquire('greedy'), slots.acquire('greedy')];
    // The victim holds a (lent) slot already, so its second request waits like the holder's.
    const lent = await slots.acquire('victim');
    const victim = slots.acquire('victim');
    lent();
    greedy[0]!();
    // The victim came after the holder's own queued requests, and goes first.
    expect(await settled(victim)).toBe(true);
    expect(await Promise.all(moreGreedy.map(settled))).toEqual([false, false]);
    expect(slots.heldBy('victim')).toBe(1);
    // With nobody else waiting, the holder's queue goes on.
    greedy[1]!();
    expect(await settled(moreGreedy[0]!)).toBe(true);
  });

  it('passes over a project at its share for one under it, even one that asked later, and serves it next when nobody else is under', async () => {
    const slots = new ProjectSlots(4);
    const a = await Promise.all([1, 2, 3].map(() => slots.acquire('a')));
    const b = await slots.acquire('b'); // the last free slot
    const aWaits = slots.acquire('a');
    const bWaits = slots.acquire('b');
    a[0]!(); // a is down to 2, its share; b holds 1: the slot is b's, though a asked first
    expect(await settled(bWaits)).toBe(true);
    expect(await settled(aWaits)).toBe(false);
    b(); // b is down to 1; the one waiting, a, is at its share, but nobody under it waits
    expect(await settled(aWaits)).toBe(true);
  });
});
