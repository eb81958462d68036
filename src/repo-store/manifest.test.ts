import { describe, expect, it } from 'vitest';
import { decodeCheckpoint, encodeCheckpoint } from './checkpoint.ts';
import { CorruptObjectError, UnsupportedSchemaError } from './errors.ts';
import { decodeLogEntry, encodeLogEntry, type LogEntry } from './log-entry.ts';
import { amendedManifest, decodeManifest, encodeManifest, firstBranchesHead, manifestAt, pristineManifest, type Manifest } from './manifest.ts';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const PACK = 'f'.repeat(64);
const COPY = '0123456789abcdef';
const now = new Date('2030-01-02T03:04:05.678Z');

const manifest: Manifest = {
  ...pristineManifest({ repo: 'acme/app', repoId: 'id-1', objectFormat: 'sha1', headRef: 'refs/heads/main', now }),
  seq: 7,
  refs: new Map([
    ['refs/tags/v1', B],
    ['refs/heads/main', A],
  ]),
  packs: [{ sha256: PACK, size: 1234, idxSize: 56, seq: 3 }],
  checkpoint: { seq: 5 },
};

const json = (bytes: Uint8Array) => JSON.parse(Buffer.from(bytes).toString('utf8')) as Record<string, unknown>;
const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));

describe('manifest codec', () => {
  it('round-trips, with seqs as decimal strings and refs in git order', () => {
    const encoded = encodeManifest(manifest);
    const wire = json(encoded);
    expect(wire).toMatchObject({ schema: 1, seq: '7', logStart: '1', checkpoint: { seq: '5' }, packs: [{ sha256: PACK, size: 1234, idxSize: 56, seq: '3' }] });
    expect(Object.keys(wire.refs as object)).toEqual(['refs/heads/main', 'refs/tags/v1']);
    const decoded = decodeManifest('m', encoded);
    expect(decoded).toEqual({
      ...manifest,
      refs: new Map([
        ['refs/heads/main', A],
        ['refs/tags/v1', B],
      ]),
    });
    expect(encodeManifest(decoded)).toEqual(encoded);
  });

  it('round-trips a pack under a copy key, and writes no copy field for one under its content address', () => {
    const copied: Manifest = { ...manifest, packs: [...manifest.packs, { sha256: PACK, copy: COPY, size: 1234, idxSize: null, seq: 6 }] };
    const encoded = encodeManifest(copied);
    expect((json(encoded).packs as object[]).map((p) => Object.keys(p))).toEqual([
      ['sha256', 'size', 'idxSize', 'seq'],
      ['sha256', 'copy', 'size', 'idxSize', 'seq'],
    ]);
    expect(decodeManifest('m', encoded).packs).toEqual(copied.packs);
    // Schema 2, which builds from before copies refuse rather than rewrite without the copy (found in review: the
    // head then named the plain key, which gc deletes); one without a copy stays schema 1.
    expect([json(encoded).schema, json(encodeManifest(manifest)).schema]).toEqual([2, 1]);
  });

  it('refuses anything malformed, naming the field', () => {
    const wire = json(encodeManifest(manifest));
    const bad = (patch: Record<string, unknown>) => () => decodeManifest('repos/acme/app/manifest.json', bytes({ ...wire, ...patch }));
    expect(() => decodeManifest('m', Buffer.from('{'))).toThrow(CorruptObjectError);
    expect(bad({ seq: 7 })).toThrow(/seq is not a seq as a decimal string/);
    expect(bad({ seq: '07' })).toThrow(CorruptObjectError);
    expect(bad({ logStart: '0' })).toThrow(/logStart/);
    expect(bad({ logStart: '9' })).toThrow(/logStart/);
    expect(bad({ checkpoint: { seq: '8' } })).toThrow(/checkpoint.seq/);
    expect(bad({ refs: { 'refs/heads/main': 'A'.repeat(40) } })).toThrow(/refs.refs\/heads\/main/);
    expect(bad({ refs: { main: A } })).toThrow(CorruptObjectError);
    expect(bad({ objectFormat: 'md5' })).toThrow(/objectFormat/);
    expect(bad({ repo: '../x' })).toThrow(/repo/);
    expect(bad({ packs: [{ sha256: PACK, size: -1, idxSize: null, seq: '1' }] })).toThrow(/packs\[0\].size/);
    expect(bad({ packs: [{ sha256: PACK, size: 1, idxSize: null, seq: '8' }] })).toThrow(/packs/);
    for (const copy of ['', '0123456789ABCDEF', '0123456789abcde', '../../../x/0123', null, 7]) {
      expect(bad({ packs: [{ sha256: PACK, copy, size: 1, idxSize: null, seq: '1' }] })).toThrow(/packs\[0\].copy/);
    }
    expect(bad({ schema: 0 })).toThrow(CorruptObjectError);
  });

  it('refuses a schema from a newer build with its own error', () => {
    const wire = json(encodeManifest(manifest));
    expect(() => decodeManifest('m', bytes({ ...wire, schema: 3 }))).toThrow(UnsupportedSchemaError);
  });

  it('moves to a new state keeping identity, and dropping nothing else', () => {
    const later = new Date('2030-01-03T00:00:00Z');
    const next = manifestAt({ ...manifest, etag: '"x"' } as Manifest, { seq: 8, refs: new Map(), packs: [] }, later);
    expect(next).toEqual({ ...manifest, seq: 8, refs: new Map(), packs: [], updatedAt: later.toISOString() });
    expect('etag' in next).toBe(false);
  });
});

describe('HEAD after a write', () => {
  const pristine = pristineManifest({ repo: 'acme/app', repoId: 'id-1', objectFormat: 'sha1', headRef: 'refs/heads/main', now });
  const refs = (...names: string[]) => new Map(names.map((n) => [n, A]));

  it('follows the first branches when HEAD’s own is not among them: main, then master, then the first by bytes', () => {
    expect(firstBranchesHead(pristine, refs('refs/heads/master'))).toBe('refs/heads/master');
    expect(firstBranchesHead(pristine, refs('refs/heads/zeta', 'refs/heads/master', 'refs/heads/alpha'))).toBe('refs/heads/master');
    expect(firstBranchesHead(pristine, refs('refs/heads/zeta', 'refs/heads/Beta', 'refs/tags/a'))).toBe('refs/heads/Beta');
    expect(firstBranchesHead({ ...pristine, headRef: 'refs/heads/trunk' }, refs('refs/heads/master', 'refs/heads/main'))).toBe('refs/heads/main');
    expect(manifestAt(pristine, { seq: 1, refs: refs('refs/heads/master'), packs: [] }, now).headRef).toBe('refs/heads/master');
  });

  it('stays when its branch comes, when only tags come, and once the repository has branches', () => {
    expect(firstBranchesHead(pristine, refs('refs/heads/master', 'refs/heads/main'))).toBe('refs/heads/main');
    expect(firstBranchesHead(pristine, refs('refs/tags/v1'))).toBe('refs/heads/main');
    expect(firstBranchesHead({ ...pristine, refs: refs('refs/heads/dev') }, refs('refs/heads/dev', 'refs/heads/master'))).toBe('refs/heads/main');
  });

  it('is retargeted by an amendment naming a branch, and only a branch', () => {
    expect(amendedManifest(manifest, { headRef: 'refs/heads/dev' }, now).headRef).toBe('refs/heads/dev');
    expect(() => amendedManifest(manifest, { headRef: 'refs/tags/v1' }, now)).toThrow(RangeError);
    expect(() => amendedManifest(manifest, { headRef: 'refs/heads/a..b' }, now)).toThrow(RangeError);
  });
});

describe('log entry codec', () => {
  const entry: LogEntry = {
    repoId: 'id-1',
    seq: 8,
    kind: 'push',
    at: now.toISOString(),
    pusher: 'alice',
    requestId: 'req-1',
    nonce: 'n0nce',
    refUpdates: [{ ref: 'refs/heads/main', old: A, new: B }],
    pack: { sha256: PACK, size: 10, idxSize: null },
  };

  it('round-trips', () => {
    const encoded = encodeLogEntry(entry);
    expect(json(encoded)).toMatchObject({ schema: 1, seq: '8', kind: 'push', pack: { idxSize: null } });
    expect(decodeLogEntry('l', encoded)).toEqual(entry);
    expect(decodeLogEntry('l', encodeLogEntry({ ...entry, kind: 'ref_update', pack: null }))).toEqual({ ...entry, kind: 'ref_update', pack: null });
    expect('copy' in (json(encoded).pack as object)).toBe(false);
  });

  it('round-trips a pack under a copy key, and refuses a malformed copy token', () => {
    const copied: LogEntry = { ...entry, pack: { sha256: PACK, copy: COPY, size: 10, idxSize: 4 } };
    const encoded = encodeLogEntry(copied);
    expect(json(encoded)).toMatchObject({ schema: 2, pack: { sha256: PACK, copy: COPY } });
    expect(decodeLogEntry('l', encoded)).toEqual(copied);
    const wire = json(encoded);
    expect(() => decodeLogEntry('l', bytes({ ...wire, pack: { ...(wire.pack as object), copy: 'x/..' } }))).toThrow(/pack.copy/);
  });

  it('refuses unknown kinds, bad refs and newer schemas', () => {
    const wire = json(encodeLogEntry(entry));
    expect(() => decodeLogEntry('l', bytes({ ...wire, kind: 'compact' }))).toThrow(/kind/);
    expect(() => decodeLogEntry('l', bytes({ ...wire, refUpdates: [{ ref: 'HEAD', old: A, new: B }] }))).toThrow(/refUpdates\[0\].ref/);
    expect(() => decodeLogEntry('l', bytes({ ...wire, schema: 3 }))).toThrow(UnsupportedSchemaError);
  });
});

describe('checkpoint codec', () => {
  it('round-trips a state and checks incarnation and seq', () => {
    const state = {
      seq: 5,
      refs: new Map([['refs/heads/main', A]]),
      packs: [
        { sha256: PACK, size: 1, idxSize: 2, seq: 3 },
        { sha256: 'e'.repeat(64), copy: COPY, size: 1, idxSize: 2, seq: 4 },
      ],
    };
    const encoded = encodeCheckpoint('id-1', state);
    expect(json(encoded).schema).toBe(2); // it names a copy
    expect(decodeCheckpoint('c', encoded, { repoId: 'id-1', seq: 5, objectFormat: 'sha1' })).toEqual(state);
    expect(() => decodeCheckpoint('c', encoded, { repoId: 'id-2', seq: 5, objectFormat: 'sha1' })).toThrow(/incarnation/);
    expect(() => decodeCheckpoint('c', encoded, { repoId: 'id-1', seq: 6, objectFormat: 'sha1' })).toThrow(/holds seq 5/);
  });
});
