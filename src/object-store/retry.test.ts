import { describe, expect, it } from 'vitest';
import { backoffDelay, withRetries } from './retry.ts';

const policy = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 250 };

describe('withRetries', () => {
  it('backs off with full jitter under a growing, capped ceiling', () => {
    expect(backoffDelay(policy, 1, () => 0.999)).toBe(99);
    expect(backoffDelay(policy, 2, () => 0.999)).toBe(199);
    expect(backoffDelay(policy, 3, () => 0.999)).toBe(249);
    expect(backoffDelay(policy, 3, () => 0)).toBe(0);
  });

  it('retries retryable failures and gives up after maxAttempts', async () => {
    const waits: number[] = [];
    let calls = 0;
    const run = withRetries({
      policy,
      attempt: async () => {
        calls++;
        throw new Error('flaky');
      },
      classify: () => 'retryable',
      exhausted: (err) => new Error('exhausted', { cause: err }),
      sleep: async (ms) => void waits.push(ms),
    });
    await expect(run).rejects.toThrow('exhausted');
    expect(calls).toBe(3);
    expect(waits).toHaveLength(2);
  });

  it('stops at once on a fatal failure and returns the first success', async () => {
    let calls = 0;
    await expect(
      withRetries({
        policy,
        attempt: async () => {
          calls++;
          throw new Error('fatal');
        },
        classify: () => 'fatal',
        exhausted: (e) => e as Error,
      }),
    ).rejects.toThrow('fatal');
    expect(calls).toBe(1);
    let n = 0;
    const value = await withRetries({
      policy,
      attempt: async () => (++n < 2 ? Promise.reject(new Error('once')) : 'ok'),
      classify: () => 'retryable',
      exhausted: (e) => e as Error,
      sleep: async () => {},
    });
    expect(value).toBe('ok');
  });
});
