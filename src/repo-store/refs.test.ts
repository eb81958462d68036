import { describe, expect, it } from 'vitest';
import { InvalidPublishError } from './errors.ts';
import { checkRefUpdates, compareRefNames, isValidRefName, validateRefUpdates, zeroOid } from './refs.ts';
import { cpuTimeMs } from '../testing/cpu-time.ts';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const Z = zeroOid('sha1');

describe('ref names', () => {
  it('accepts what git check-ref-format accepts under refs/', () => {
    for (const ok of ['refs/heads/main', 'refs/tags/v1.0.0', 'refs/heads/feature/x-y_z', 'refs/heads/ünïcode', 'refs/notes/commits']) {
      expect(isValidRefName(ok), ok).toBe(true);
    }
  });

  it('refuses what git refuses, and anything outside refs/', () => {
    for (const bad of [
      'HEAD',
      'main',
      'refs/heads',
      'refs/heads/',
      'refs//heads/x',
      'refs/heads/a..b',
      'refs/heads/.hidden',
      'refs/heads/x.lock',
      'refs/heads/x.',
      'refs/heads/a b',
      'refs/heads/a~1',
      'refs/heads/a^',
      'refs/heads/a:b',
      'refs/heads/a?',
      'refs/heads/a*',
      'refs/heads/a[',
      'refs/heads/a\\b',
      'refs/heads/a@{1}',
      'refs/heads/\u0001',
      'refs/heads/a\u007f',
    ]) {
      expect(isValidRefName(bad), bad).toBe(false);
    }
  });

  it('orders names by code point, as git orders bytes', () => {
    const names = ['refs/heads/b', 'refs/heads/a/b', 'refs/heads/a', 'refs/heads/\u{1F600}', 'refs/heads/\uFFFD', 'refs/heads/B'];
    expect([...names].sort(compareRefNames)).toEqual([...names].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y))));
  });
});

describe('checkRefUpdates', () => {
  it('refuses malformed requests outright', () => {
    expect(() => checkRefUpdates([{ ref: 'refs/heads/main', old: Z, new: A }], 'sha1')).not.toThrow();
    expect(() => checkRefUpdates([{ ref: 'main', old: Z, new: A }], 'sha1')).toThrow(InvalidPublishError);
    expect(() => checkRefUpdates([{ ref: 'refs/heads/x', old: Z, new: 'A'.repeat(40) }], 'sha1')).toThrow(/not a sha1 object id/);
    expect(() => checkRefUpdates([{ ref: 'refs/heads/x', old: Z, new: 'a'.repeat(64) }], 'sha1')).toThrow(InvalidPublishError);
    expect(() => checkRefUpdates([{ ref: 'refs/heads/x', old: Z, new: Z }], 'sha1')).toThrow(/both the zero oid/);
    const twice = [
      { ref: 'refs/heads/x', old: Z, new: A },
      { ref: 'refs/heads/x', old: A, new: B },
    ];
    expect(() => checkRefUpdates(twice, 'sha1')).toThrow(/twice/);
  });
});

describe('validateRefUpdates', () => {
  const refs = new Map([
    ['refs/heads/main', A],
    ['refs/tags/v1', B],
  ]);

  it('accepts updates whose old value holds: create, update, delete', () => {
    const updates = [
      { ref: 'refs/heads/new', old: Z, new: C },
      { ref: 'refs/heads/main', old: A, new: C },
      { ref: 'refs/tags/v1', old: B, new: Z },
    ];
    const verdict = validateRefUpdates(refs, updates, true, 'sha1');
    expect(verdict.accepted).toEqual(updates);
    expect(verdict.rejected).toBe(false);
    expect(verdict.results.every((r) => r.status === 'ok')).toBe(true);
  });

  it('rejects a stale old value alone, or every update when atomic', () => {
    const updates = [
      { ref: 'refs/heads/main', old: B, new: C }, // stale: main is at A
      { ref: 'refs/heads/other', old: A, new: C }, // stale: other does not exist
      { ref: 'refs/heads/new', old: Z, new: C },
    ];
    const loose = validateRefUpdates(refs, updates, false, 'sha1');
    expect(loose.accepted).toEqual([updates[2]]);
    expect(loose.results).toEqual([
      { ref: 'refs/heads/main', status: 'rejected', reason: 'stale old value' },
      { ref: 'refs/heads/other', status: 'rejected', reason: 'stale old value' },
      { ref: 'refs/heads/new', status: 'ok' },
    ]);
    const atomic = validateRefUpdates(refs, updates, true, 'sha1');
    expect(atomic.accepted).toEqual([]);
    expect(atomic.results[2]).toEqual({ ref: 'refs/heads/new', status: 'rejected', reason: 'atomic push failure' });
  });

  it('treats a create of an existing ref as stale, and an update to the current value as a no-op', () => {
    const verdict = validateRefUpdates(refs, [{ ref: 'refs/heads/main', old: Z, new: C }], false, 'sha1');
    expect(verdict.results).toEqual([{ ref: 'refs/heads/main', status: 'rejected', reason: 'stale old value' }]);
    const noop = validateRefUpdates(refs, [{ ref: 'refs/heads/main', old: A, new: A }], false, 'sha1');
    expect(noop).toEqual({ accepted: [], results: [{ ref: 'refs/heads/main', status: 'ok' }], rejected: false });
  });
});

describe('validateRefUpdates with a ref limit', () => {
  // Two refs, a limit of three: one more fits.
  const refs = new Map([
    ['refs/heads/main', A],
    ['refs/tags/v1', B],
  ]);
  const create = (name: string) => ({ ref: `refs/heads/${name}`, old: Z, new: C });
  const tooMany = (name: string) => ({ ref: `refs/heads/${name}`, status: 'rejected', reason: 'too many refs', maxRefs: 3 });

  it('takes creates up to the limit, and refuses every create of a publish that would pass it', () => {
    expect(validateRefUpdates(refs, [create('x')], false, 'sha1', 3).rejected).toBe(false);
    const past = validateRefUpdates(refs, [create('x'), create('y'), { ref: 'refs/heads/main', old: A, new: C }], false, 'sha1', 3);
    expect(past.results).toEqual([tooMany('x'), tooMany('y'), { ref: 'refs/heads/main', status: 'ok' }]);
    expect(past.accepted).toEqual([{ ref: 'refs/heads/main', old: A, new: C }]);
  });

  it('refuses the whole publish when atomic', () => {
    const atomic = validateRefUpdates(refs, [{ ref: 'refs/heads/main', old: A, new: C }, create('x'), create('y')], true, 'sha1', 3);
    expect(atomic).toEqual({
      accepted: [],
      results: [{ ref: 'refs/heads/main', status: 'rejected', reason: 'atomic push failure' }, tooMany('x'), tooMany('y')],
      rejected: true,
    });
  });

  it('always takes updates and deletions, at the limit and past it (a limit lowered below what a repository holds)', () => {
    const updates = [
      { ref: 'refs/heads/main', old: A, new: C },
      { ref: 'refs/tags/v1', old: B, new: Z },
    ];
    for (const limit of [2, 1]) expect(validateRefUpdates(refs, updates, true, 'sha1', limit).accepted).toEqual(updates);
  });

  it('counts the deletions of the same publish: at the limit, a rename fits', () => {
    const rename = [{ ref: 'refs/heads/main', old: A, new: Z }, create('trunk')];
    expect(validateRefUpdates(refs, rename, true, 'sha1', 2).accepted).toEqual(rename);
    // A stale deletion makes no room.
    const stale = [{ ref: 'refs/heads/main', old: B, new: Z }, create('trunk')];
    expect(validateRefUpdates(refs, stale, false, 'sha1', 2).results).toEqual([
      { ref: 'refs/heads/main', status: 'rejected', reason: 'stale old value' },
      { ref: 'refs/heads/trunk', status: 'rejected', reason: 'too many refs', maxRefs: 2 },
    ]);
  });

  it('does not count a create that is already done (a retried publish) or refused for another reason', () => {
    const withX = new Map([...refs, ['refs/heads/x', C]]);
    expect(validateRefUpdates(withX, [create('x')], true, 'sha1', 3)).toEqual({ accepted: [], results: [{ ref: 'refs/heads/x', status: 'ok' }], rejected: false });
    const conflict = validateRefUpdates(refs, [create('main/sub'), create('y')], false, 'sha1', 3);
    expect(conflict.results[0]).toMatchObject({ reason: 'ref name conflict' });
    expect(conflict.results[1]).toEqual({ ref: 'refs/heads/y', status: 'ok' });
  });
});

describe('validateRefUpdates: ref name conflicts among many refs', () => {
  it('finds a ref under a create past deleted ones, in a map of any order, and a directory that is a ref', () => {
    // Not in git's order: the check sorts what is not.
    const refs = new Map([
      ['refs/heads/z', A],
      ['refs/heads/a/1', A],
      ['refs/heads/a/2', A],
      ['refs/heads/b', A],
    ]);
    const verdict = validateRefUpdates(
      refs,
      [
        { ref: 'refs/heads/a/1', old: A, new: Z },
        { ref: 'refs/heads/a', old: Z, new: C },
        { ref: 'refs/heads/b/c', old: Z, new: C },
        { ref: 'refs/heads/n', old: Z, new: C },
        { ref: 'refs/heads/n/m', old: Z, new: C },
      ],
      false,
      'sha1',
    );
    expect(verdict.results).toEqual([
      { ref: 'refs/heads/a/1', status: 'ok' },
      { ref: 'refs/heads/a', status: 'rejected', reason: 'ref name conflict', conflictsWith: 'refs/heads/a/2' },
      { ref: 'refs/heads/b/c', status: 'rejected', reason: 'ref name conflict', conflictsWith: 'refs/heads/b' },
      { ref: 'refs/heads/n', status: 'rejected', reason: 'ref name conflict', conflictsWith: 'refs/heads/n/m' },
      { ref: 'refs/heads/n/m', status: 'rejected', reason: 'ref name conflict', conflictsWith: 'refs/heads/n' },
    ]);
  });

  it('checks 10,000 creates against 10,000 refs without comparing every pair (that took ~8 s of the event loop)', () => {
    const many = new Map(Array.from({ length: 10_000 }, (_, i): [string, string] => [`refs/heads/topic/${i}`, A]));
    const creates = Array.from({ length: 10_000 }, (_, i) => ({ ref: `refs/heads/new/${i}`, old: Z, new: C }));
    expect(cpuTimeMs(() => expect(validateRefUpdates(many, creates, true, 'sha1').rejected).toBe(false))).toBeLessThan(2000);
  });
});
