import { describe, expect, it } from 'vitest';
import { FirstPass } from './first-pass.ts';

describe('FirstPass', () => {
  it('is done once every app settled, or once the wait is over with some still pending', () => {
    let now = 0;
    const pass = new FirstPass(['p/a', 'p/b'], { waitMs: 1000, now: () => now });
    expect(pass.done()).toBe(false);
    pass.settled('p/a');
    pass.settled('p/unknown'); // an app added after the list: nothing to wait for
    expect([pass.done(), pass.pending]).toEqual([false, ['p/b']]);
    now = 999;
    expect(pass.done()).toBe(false);
    now = 1000;
    expect(pass.done()).toBe(true);
    expect(new FirstPass([]).done()).toBe(true);
  });

  it('wakes a waiter when one of the apps it waits on settles, or tells it its wait ran out, leaving nothing behind', async () => {
    const pass = new FirstPass(['p/a', 'p/b', 'p/c']);
    expect(pass.has('p/a')).toBe(true);
    expect(await pass.whenSettled(['p/a', 'p/new'], 5_000)).toBe(true); // p/new is no app of the list: at once
    const either = pass.whenSettled(['p/a', 'p/b'], 5_000);
    const onlyA = pass.whenSettled(['p/a'], 5_000);
    pass.settled('p/b');
    expect(await either).toBe(true);
    pass.settled('p/a');
    expect(await onlyA).toBe(true);
    expect(pass.has('p/a')).toBe(false);
    expect(await pass.whenSettled(['p/c'], 10)).toBe(false);
    pass.settled('p/c'); // the waiter that gave up is not woken again, and nothing of it is kept
  });

  it('moves a pending app up once, not at every request for it', () => {
    const pass = new FirstPass(['p/a']);
    expect([pass.promote('p/a'), pass.promote('p/a'), pass.promote('p/other')]).toEqual([true, false, false]);
    pass.settled('p/a');
    expect(pass.promote('p/a')).toBe(false);
  });
});
