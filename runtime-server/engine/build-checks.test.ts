import { describe, expect, it, vi } from 'vitest';
import { BuildChecks, type BuildCheckOptions } from './build-checks.ts';

/** A host whose checks end when the test says, recording the order they ran in. */
function host(untried: Set<string>, options: BuildCheckOptions = {}, failedForNow = new Set<string>()) {
  const ran: string[] = [];
  const ends: Array<() => void> = [];
  let idle: PromiseWithResolvers<void> | undefined;
  const checks = new BuildChecks(
    {
      untried: (key) => untried.has(key),
      failedForNow: (key) => failedForNow.has(key),
      check: (key) => {
        ran.push(key);
        return new Promise((resolve) => ends.push(resolve));
      },
      whenIdle: () => idle?.promise ?? Promise.resolve(),
    },
    options,
  );
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return {
    checks,
    ran,
    /** Ends the check running now, and lets the next start. */
    end: async () => {
      ends.shift()?.();
      await settle();
    },
    busy: () => (idle = Promise.withResolvers<void>()),
    settle,
  };
}

describe('BuildChecks', () => {
  it('checks one at a time in the order deployed, skipping those tried or removed meanwhile', async () => {
    const untried = new Set(['a', 'b', 'c', 'd']);
    const h = host(untried);
    for (const key of ['a', 'b', 'c', 'd']) h.checks.add(key);
    await h.settle();
    expect(h.ran).toEqual(['a']);
    untried.delete('b'); // a request prepared it
    h.checks.forget('c'); // removed
    await h.end();
    expect(h.ran).toEqual(['a', 'd']);
    h.checks.add('e');
    untried.add('e');
    await h.end();
    expect(h.ran).toEqual(['a', 'd', 'e']);
    await h.end();
    expect(h.checks.pending).toBe(0);
  });

  it('waits while a request waits for a preparation, and checks nothing once stopped', async () => {
    const h = host(new Set(['a', 'b']));
    const idle = h.busy();
    h.checks.add('a');
    await h.settle();
    expect(h.ran).toEqual([]);
    idle.resolve();
    await h.settle();
    expect(h.ran).toEqual(['a']);
    h.checks.add('b');
    h.checks.stop();
    await h.end();
    expect(h.ran).toEqual(['a']);
  });

  it('runs a check after idleWaitMs even while requests keep waiting for preparations (found in review)', async () => {
    const h = host(new Set(['a']), { idleWaitMs: 20 });
    h.busy(); // never idle
    h.checks.add('a');
    await h.settle();
    expect(h.ran).toEqual([]);
    await vi.waitFor(() => expect(h.ran).toEqual(['a']), { timeout: 2000, interval: 5 });
    await h.end();
  });

  it('tries a check that failed for now again, later each time, until it does not fail for now (found in review)', async () => {
    const failing = new Set(['a']);
    const h = host(new Set(), { retryMs: 30, maxRetryMs: 1000 }, failing);
    const times: number[] = [];
    const started = performance.now();
    h.checks.add('a');
    for (let tries = 1; tries <= 3; tries++) {
      await vi.waitFor(() => expect(h.ran).toHaveLength(tries), { timeout: 2000, interval: 2 });
      times.push(performance.now() - started);
      await h.end();
    }
    // The second try waits at least 30 ms after the first ended, the third at least 60 ms after the second.
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(29);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(59);
    expect(h.checks.pending).toBe(1);
    // Served (or refused) meanwhile: its turn comes, and finds nothing to try.
    failing.delete('a');
    await vi.waitFor(() => expect(h.checks.pending).toBe(0), { timeout: 2000, interval: 2 });
    expect(h.ran).toHaveLength(3);
    // Stopped: a retry waiting is dropped.
    failing.add('a');
    h.checks.add('a');
    await vi.waitFor(() => expect(h.ran).toHaveLength(4), { timeout: 2000, interval: 2 });
    await h.end();
    expect(h.checks.pending).toBe(1);
    h.checks.stop();
    expect(h.checks.pending).toBe(0);
  });
});
