import { describe, expect, it } from 'vitest';
import { Semaphore } from './semaphore.ts';

describe('Semaphore', () => {
  it('holds at most its permits at once, and hands them on in arrival order', async () => {
    const slots = new Semaphore(2);
    const order: string[] = [];
    const first = await slots.acquire();
    const second = await slots.acquire();
    const third = slots.acquire().then((release) => (order.push('third'), release));
    const fourth = slots.acquire().then((release) => (order.push('fourth'), release));
    await Promise.resolve();
    expect(order).toEqual([]);
    first();
    first(); // twice is once
    (await third)();
    second();
    (await fourth)();
    expect(order).toEqual(['third', 'fourth']);
    const again = await slots.acquire();
    const andAgain = await slots.acquire();
    again();
    andAgain();
  });

  it('takes turns by key: a key with many waiting gets the next permit no sooner than another key’s first (review-165 F4)', async () => {
    const slots = new Semaphore(1);
    const order: string[] = [];
    const held = await slots.acquire('busy');
    const waiting = ['busy-1', 'busy-2', 'busy-3'].map((name) => slots.acquire('busy').then((release) => (order.push(name), release)));
    const other = slots.acquire('other').then((release) => (order.push('other'), release));
    held();
    (await waiting[0]!)();
    (await other)();
    (await waiting[1]!)();
    (await waiting[2]!)();
    expect(order).toEqual(['busy-1', 'other', 'busy-2', 'busy-3']);
  });
});
