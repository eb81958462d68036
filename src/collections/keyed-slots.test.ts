import { describe, expect, it } from 'vitest';
import { KeyedSlots } from './keyed-slots.ts';

describe('KeyedSlots', () => {
  it('gives each key its share and no more than the total, and takes back what is released once', () => {
    const slots = new KeyedSlots({ total: 3, perKey: 2 });
    const a1 = slots.take('a');
    const a2 = slots.take('a');
    expect(slots.take('a')).toEqual({ refused: 'key', held: 2 });
    const b1 = slots.take('b');
    expect(slots.take('c')).toEqual({ refused: 'total', held: 3 });
    if (!('release' in a1) || !('release' in a2) || !('release' in b1)) throw new Error('refused');
    a1.release();
    a1.release();
    expect(slots.held).toBe(2);
    expect('release' in slots.take('c')).toBe(true);
    expect(slots.take('a')).toEqual({ refused: 'total', held: 3 });
    a2.release();
    b1.release();
    expect(slots.held).toBe(1);
  });

  it('takes weighted shares whole or not at all', () => {
    const bytes = new KeyedSlots({ total: 100, perKey: 60 });
    const a = bytes.take('a', 50);
    expect(bytes.take('a', 20)).toEqual({ refused: 'key', held: 50 });
    const b = bytes.take('b', 45);
    expect(bytes.take('c', 10)).toEqual({ refused: 'total', held: 95 });
    if (!('release' in a) || !('release' in b)) throw new Error('refused');
    a.release();
    expect(bytes.held).toBe(45);
    expect('release' in bytes.take('a', 55)).toBe(true);
  });
});
