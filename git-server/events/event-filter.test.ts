import { describe, expect, it } from 'vitest';
import { eventFilter } from './event-filter.ts';
import { refGlob } from '../../src/git/ref-glob.ts';
import type { RefAction, RefEvent } from './ref-event.ts';
import { cpuTimeMs } from '../../src/testing/cpu-time.ts';

const event = (action: RefAction, ref: string) => ({ action, ref_name: ref }) as RefEvent;

describe('refGlob', () => {
  it.each<[string, string, boolean]>([
    ['refs/heads/*', 'refs/heads/main', true],
    ['refs/heads/*', 'refs/heads/feature/x', false],
    ['refs/heads/**', 'refs/heads/feature/x', true],
    ['refs/heads/**', 'refs/tags/v1', false],
    ['refs/tags/v*', 'refs/tags/v1.2.0', true],
    ['refs/tags/v*', 'refs/tags/release-1', false],
    ['refs/heads/main', 'refs/heads/main', true],
    ['refs/heads/main', 'refs/heads/main2', false],
    ['refs/heads/release-1.x', 'refs/heads/release-1ax', false],
    ['refs/**/wip', 'refs/heads/a/b/wip', true],
    ['refs/heads/(a|b)', 'refs/heads/a', false],
  ])('%s on %s: %s', (pattern, ref, matches) => {
    expect(refGlob(pattern).matches(ref)).toBe(matches);
  });

  it('matches a pattern that makes a backtracking matcher take seconds in about a millisecond', () => {
    // As a regular expression, `^(.*a){12}.*b$`-shaped patterns on a long run of `a` backtrack exponentially
    // (the old matcher took 21 s on one such pattern).
    const pattern = `refs/${'**a'.repeat(12)}**b`;
    const ref = `refs/${'a'.repeat(200)}`;
    expect(cpuTimeMs(() => expect(refGlob(pattern).matches(ref)).toBe(false))).toBeLessThan(200);
  });
});

describe('eventFilter', () => {
  it('passes everything without a spec, or with empty lists', () => {
    expect(eventFilter(undefined)(event('delete', 'refs/notes/x'))).toBe(true);
    expect(eventFilter({ actions: [], refs: [] })(event('create', 'refs/tags/v1'))).toBe(true);
  });

  it('wants both the action and a matching ref', () => {
    const filter = eventFilter({ actions: ['create', 'delete'], refs: ['refs/tags/*', 'refs/heads/release/**'] });
    expect(filter(event('create', 'refs/tags/v1'))).toBe(true);
    expect(filter(event('delete', 'refs/heads/release/1/x'))).toBe(true);
    expect(filter(event('update', 'refs/tags/v1'))).toBe(false);
    expect(filter(event('create', 'refs/heads/main'))).toBe(false);
  });
});
