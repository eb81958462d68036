import { describe, expect, it } from 'vitest';
import { BuildChecks } from './build-checks.ts';

/** A host whose checks end when the test says, recording the order they ran in. */
function host(untried: Set<string>) {
  const ran: string[] = [];
  const ends: Array<() => void> = [];
  let idle: PromiseWithResolvers<void> | undefined;
  const checks = new BuildChecks({
    untried: (key) => untried.has(key),
    check: (key) => {
      ran.push(key);
      return new Promise((resolve) => ends.push(resolve));
    },
    whenIdle: () => idle?.promise ?? Promise.resolve(),
  });
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
});
