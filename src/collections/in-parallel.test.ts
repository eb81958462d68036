import { describe, expect, it } from 'vitest';
import { inParallel } from './in-parallel.ts';

describe('inParallel', () => {
  it('answers every result in order, running at most `width` at once', async () => {
    let running = 0;
    let most = 0;
    const results = await inParallel(
      Array.from({ length: 10 }, (_, i) => i),
      async (i) => {
        running++;
        most = Math.max(most, running);
        await Promise.resolve();
        running--;
        return i * 2;
      },
      3,
    );
    expect(results).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18]);
    expect(most).toBe(3);
  });
});
