import { describe, expect, it } from 'vitest';
import { shardOf } from './shard-of.ts';

describe('shardOf', () => {
  it('places every project on shard 0 when there is one shard', () => {
    expect(shardOf('acme', 1)).toBe(0);
    expect(shardOf('acme', 0)).toBe(0);
  });

  it('is stable and within the shard count', () => {
    for (const project of ['acme', 'demo', 'p-1', 'x']) {
      const shard = shardOf(project, 4);
      expect(shard).toBeGreaterThanOrEqual(0);
      expect(shard).toBeLessThan(4);
      expect(shardOf(project, 4)).toBe(shard);
    }
  });

  it('spreads many projects roughly evenly', () => {
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) counts[shardOf(`project-${i}`, 4)]! += 1;
    for (const n of counts) expect(n).toBeGreaterThan(800);
  });
});
