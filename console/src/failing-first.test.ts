import { describe, expect, it } from 'vitest';
import { failingFirst } from './failing-first.ts';

describe('failingFirst', () => {
  it('puts the highest error ratio first, then the busiest, then apps without traffic by name', () => {
    const apps = [
      { name: 'quiet' },
      { name: 'busy', traffic: { requests: 900, error_ratio: 0 } },
      { name: 'idle', traffic: { requests: 0, error_ratio: null } },
      { name: 'broken', traffic: { requests: 10, error_ratio: 0.5 } },
      { name: 'flaky', traffic: { requests: 400, error_ratio: 0.01 } },
      { name: 'calm', traffic: { requests: 20, error_ratio: 0 } },
      { name: 'another', traffic: { requests: 0, error_ratio: null } },
    ];
    expect(failingFirst(apps).map((a) => a.name)).toEqual(['broken', 'flaky', 'busy', 'calm', 'another', 'idle', 'quiet']);
  });
});
