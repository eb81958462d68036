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

  it('tells a waiter when the apps it waits on have settled, or that its wait ran out', async () => {
    const pass = new FirstPass(['p/a', 'p/b', 'p/c']);
    expect(pass.has('p/a')).toBe(true);
    const both = pass.whenSettled(['p/a', 'p/b', 'p/new'], 5_000); // p/new is no app of the list: nothing to wait for
    const again = pass.whenSettled(['p/a'], 5_000);
    pass.settled('p/a');
    expect(await again).toBe(true);
    pass.settled('p/b');
    expect(await both).toBe(true);
    expect(pass.has('p/a')).toBe(false);
    expect(await pass.whenSettled(['p/c'], 10)).toBe(false);
    expect(await pass.whenSettled([], 10)).toBe(true);
  });
});
