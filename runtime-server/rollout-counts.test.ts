import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/logging/log.ts';
import type { RolloutCounts } from './engine/index.ts';
import { RolloutCountsReader } from './rollout-counts.ts';

const counts = (requests: number): RolloutCounts => ({ tag: 't', stable: { requests, errors: 0 }, canary: { requests: 1, errors: 1 } });

describe('RolloutCountsReader', () => {
  it('signals a change when the counts move, not when they stand still, and never for apps without a split', async () => {
    let now = new Map<string, RolloutCounts>();
    let changes = 0;
    const reader = new RolloutCountsReader({ rolloutCounts: async () => now }, () => (changes += 1), silentLogger);
    await reader.read();
    expect(changes).toBe(0); // no app in a rollout: nothing to publish
    now = new Map([['p/a', counts(1)]]);
    await reader.read();
    expect(changes).toBe(1);
    expect(reader.get('p/a')).toEqual(counts(1));
    await reader.read();
    expect(changes).toBe(1);
    now = new Map([['p/a', counts(2)]]);
    await reader.read();
    expect(changes).toBe(2);
    now = new Map();
    await reader.read();
    expect(changes).toBe(3); // the split ended: its report loses the counts
    expect(reader.get('p/a')).toBeUndefined();
  });

  it('makes one read of a burst of refreshes', async () => {
    let reads = 0;
    const reader = new RolloutCountsReader({ rolloutCounts: async () => ((reads += 1), new Map()) }, () => {}, silentLogger);
    for (let i = 0; i < 100; i++) reader.refresh();
    await reader.stop();
    expect(reads).toBe(1);
  });
});
