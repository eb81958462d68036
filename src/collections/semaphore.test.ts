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
});
