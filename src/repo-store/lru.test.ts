import { describe, expect, it } from 'vitest';
import { Lru } from './lru.ts';

describe('Lru', () => {
  it('counts entries when nothing is weighed, letting the least recently used go', () => {
    const lru = new Lru<number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1);
    lru.set('c', 3);
    expect([lru.get('a'), lru.get('b'), lru.get('c')]).toEqual([1, undefined, 3]);
  });

  it('holds what its entries weigh to the capacity, the newest kept even alone past it', () => {
    const lru = new Lru<string>(100);
    for (let i = 0; i < 10; i++) lru.set(`k${i}`, 'v', 30);
    expect(lru.weight).toBe(90);
    expect([lru.get('k6'), lru.get('k7'), lru.get('k9')]).toEqual([undefined, 'v', 'v']);
    lru.set('k8', 'again', 10);
    expect(lru.weight).toBe(70);
    lru.set('huge', 'v', 500);
    expect([lru.weight, lru.get('huge'), lru.get('k9')]).toEqual([500, 'v', undefined]);
    lru.delete('huge');
    expect(lru.weight).toBe(0);
  });

  it('keeps no entry heavier than an entry may be, and drops what it held under that key', () => {
    const lru = new Lru<string>(100, { maxEntryWeight: 20 });
    lru.set('a', 'v', 10);
    lru.set('a', 'heavy', 30);
    lru.set('b', 'v', 20);
    expect([lru.get('a'), lru.get('b'), lru.weight]).toEqual([undefined, 'v', 20]);
  });
});
