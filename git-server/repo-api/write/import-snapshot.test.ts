import { describe, expect, it } from 'vitest';
import { checkSnapshot, importedRefs, snapshotOf } from './import-snapshot.ts';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const head = (refs: [string, string][]) => ({ refs: new Map(refs), objectFormat: 'sha1' as const, headRef: 'refs/heads/main' });

describe('import snapshots', () => {
  it('carries branches and tags only, in byte order', () => {
    expect([
      ...importedRefs(
        new Map([
          ['refs/tags/v1', A],
          ['refs/cloudwright/x', A],
          ['refs/heads/main', B],
          ['refs/heads/Z', A],
        ]),
      ),
    ]).toEqual([
      ['refs/heads/Z', A],
      ['refs/heads/main', B],
      ['refs/tags/v1', A],
    ]);
  });

  it('hashes independently of ref order, and changes with any ref', () => {
    const one = snapshotOf(
      'o/r',
      head([
        ['refs/heads/main', A],
        ['refs/tags/v1', B],
      ]),
    );
    const two = snapshotOf(
      'o/r',
      head([
        ['refs/tags/v1', B],
        ['refs/heads/main', A],
      ]),
    );
    expect(one.snapshot_hash).toBe(two.snapshot_hash);
    expect(
      snapshotOf(
        'o/r',
        head([
          ['refs/heads/main', B],
          ['refs/tags/v1', B],
        ]),
      ).snapshot_hash,
    ).not.toBe(one.snapshot_hash);
    expect(
      snapshotOf(
        'o/other',
        head([
          ['refs/heads/main', A],
          ['refs/tags/v1', B],
        ]),
      ).snapshot_hash,
    ).not.toBe(one.snapshot_hash);
  });

  it('accepts a snapshot as resolved; refuses an edited one', () => {
    const snapshot = snapshotOf('o/r', head([['refs/heads/main', A]]));
    expect(() => checkSnapshot(snapshot)).not.toThrow();
    expect(() => checkSnapshot({ ...snapshot, refs: { 'refs/heads/main': B } })).toThrow(/does not match/);
    expect(() => checkSnapshot({ ...snapshot, refs: { 'refs/notes/x': A } })).toThrow(/branches and tags/);
  });
});
