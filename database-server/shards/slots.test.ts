import { describe, expect, it } from 'vitest';
import { Slots } from './slots.ts';

describe('Slots', () => {
  it('runs at most its size at once and the rest in arrival order', async () => {
    const slots = new Slots(2);
    const started: number[] = [];
    const releases: (() => void)[] = [];
    const tasks = [0, 1, 2, 3].map((i) =>
      slots.run(async () => {
        started.push(i);
        await new Promise<void>((resolve) => releases.push(resolve));
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    releases.shift()!();
    await tasks[0];
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);
    for (const release of releases.splice(0)) release();
    await new Promise((resolve) => setImmediate(resolve));
    for (const release of releases.splice(0)) release();
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3]);
  });

  it('frees the slot when a task fails', async () => {
    const slots = new Slots(1);
    await expect(slots.run(() => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(await slots.run(() => Promise.resolve('next'))).toBe('next');
  });
});
