import { describe, expect, it } from 'vitest';
import { shardIndex } from './shard-index.ts';

describe('shardIndex', () => {
  it('puts a tenant on the same shard every time, within range', () => {
    for (const tenant of ['a', 'db-0123456789abcdef', 'x'.repeat(63)]) {
      const index = shardIndex(tenant, 4);
      expect(index).toBeGreaterThanOrEqual(0);
      expect(index).toBeLessThan(4);
      expect(shardIndex(tenant, 4)).toBe(index);
    }
  });

  it('spreads many tenants over every shard', () => {
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 1000; i++) counts[shardIndex(`db-${i.toString(16).padStart(16, '0')}`, 4)]!++;
    for (const count of counts) expect(count).toBeGreaterThan(150);
  });
});
