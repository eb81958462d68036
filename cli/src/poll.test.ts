import { describe, expect, it } from 'vitest';
import { pollUntil } from './poll.ts';

describe('pollUntil', () => {
  it('reads until the value is done, and answers it', async () => {
    let n = 0;
    expect(
      await pollUntil(
        async () => ++n,
        (v) => v === 3,
        1000,
        1,
      ),
    ).toEqual({ value: 3, done: true });
    expect(n).toBe(3);
  });

  it('stops at the bound with the last value, not done', async () => {
    let n = 0;
    const started = Date.now();
    expect(
      await pollUntil(
        async () => ++n,
        () => false,
        50,
        10,
      ),
    ).toMatchObject({ done: false });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(n).toBeGreaterThan(1);
  });
});
