import { describe, expect, it } from 'vitest';
import { Waiters } from './waiters.ts';

describe('Waiters', () => {
  it('settles only the waiters at or below the pass’s version', async () => {
    const waiters = new Waiters<string>();
    const early = waiters.add('p/a', 1);
    const late = waiters.add('p/a', 3);
    waiters.settle('p/a', 2, { value: () => 'pass 2' });
    await expect(early).resolves.toBe('pass 2');
    expect(waiters.keys()).toEqual(['p/a']);
    waiters.settle('p/a', 3, { error: new Error('pass 3 failed') });
    await expect(late).rejects.toThrow('pass 3 failed');
    expect(waiters.keys()).toEqual([]);
  });

  it('rejects everyone on shutdown', async () => {
    const waiters = new Waiters<string>();
    const a = waiters.add('p/a', 1);
    const b = waiters.add('p/b', 7);
    waiters.rejectAll(new Error('stopped'));
    await expect(a).rejects.toThrow('stopped');
    await expect(b).rejects.toThrow('stopped');
  });
});
