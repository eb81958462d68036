import { describe, expect, it } from 'vitest';
import { FifoSet } from './fifo-set.ts';

describe('FifoSet', () => {
  it('hands keys out in arrival order, each once, and skips those deleted', () => {
    const set = new FifoSet<string>();
    for (const key of ['a', 'b', 'c', 'a']) set.add(key);
    expect(set.size).toBe(3);
    set.delete('b');
    expect([set.shift(), set.shift(), set.shift()]).toEqual(['a', 'c', undefined]);
    expect(set.size).toBe(0);
  });

  it('puts a key deleted and added again at the end, once', () => {
    const set = new FifoSet<string>();
    for (const key of ['a', 'b', 'c']) set.add(key);
    set.delete('a');
    set.add('a');
    expect([set.shift(), set.shift(), set.shift(), set.shift()]).toEqual(['b', 'c', 'a', undefined]);
  });

  it('takes 100,000 keys from the front in linear time', () => {
    const set = new FifoSet<number>();
    const n = 100_000;
    for (let i = 0; i < n; i++) set.add(i);
    const t0 = performance.now();
    let taken = 0;
    let added = n;
    let last = -1;
    let inOrder = true;
    // Plain checks in the loop: an `expect` per key would cost more than the set itself.
    for (let key = set.shift(); key !== undefined; key = set.shift()) {
      inOrder &&= key > last;
      last = key;
      taken++;
      // New keys keep arriving while the front is taken, as in a controller's first walk.
      if (taken % 10 === 0 && added < 2 * n) set.add(added++);
    }
    const elapsed = performance.now() - t0;
    expect(inOrder).toBe(true);
    expect(taken).toBe(added);
    // A Set taken from the front this way takes seconds; this is tens of milliseconds (bound generous for a busy machine).
    expect(elapsed).toBeLessThan(1_000);
  });
});
