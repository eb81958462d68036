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
});
