import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../src/repo-store/index.ts';
import { countRefs, entryJson, ENTRY_HEADER, formatBytes, formatEntryLine, formatRepoInfo, formatRefUpdate, parseCountObjects, repoInfoJson, type RepoInfo } from './format.ts';

const Z = '0'.repeat(40);
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

const entry: LogEntry = {
  repoId: 'r1',
  seq: 12,
  kind: 'push',
  at: '2030-01-02T03:04:05.678Z',
  pusher: 'alice',
  requestId: 'req-1',
  nonce: 'n1',
  refUpdates: [
    { ref: 'refs/heads/main', old: A, new: B },
    { ref: 'refs/tags/v1', old: Z, new: A },
    { ref: 'refs/heads/old', old: B, new: Z },
  ],
  pack: { sha256: 'c'.repeat(64), size: 4096, idxSize: null },
};

describe('log entry formatting', () => {
  it('prints one aligned line per entry with each ref update', () => {
    expect(formatRefUpdate({ ref: 'refs/heads/main', old: A, new: B })).toBe('refs/heads/main aaaaaaaaaa..bbbbbbbbbb');
    const line = formatEntryLine(entry);
    expect(line).toBe(
      '      12  push        2030-01-02T03:04:05.678Z  alice             refs/heads/main aaaaaaaaaa..bbbbbbbbbb, refs/tags/v1 created aaaaaaaaaa, refs/heads/old deleted (was bbbbbbbbbb)',
    );
    expect(line.indexOf('push')).toBe(ENTRY_HEADER.indexOf('KIND'));
    expect(line.indexOf('alice')).toBe(ENTRY_HEADER.indexOf('PUSHER'));
  });

  it('escapes control characters in what a client chose (the pusher)', () => {
    expect(formatEntryLine({ ...entry, pusher: 'eve\x1b]0;pwned\x07' })).toContain('eve\\x1b]0;pwned\\x07');
  });

  it('gives the entry JSON with seq as a decimal string', () => {
    expect(entryJson('acme/app', entry)).toEqual({
      repo: 'acme/app',
      seq: '12',
      kind: 'push',
      at: entry.at,
      pusher: 'alice',
      requestId: 'req-1',
      repoId: 'r1',
      nonce: 'n1',
      refUpdates: entry.refUpdates,
      pack: entry.pack,
    });
  });
});

describe('repository summary', () => {
  it('counts refs by kind and reads count-objects', () => {
    expect(countRefs(['refs/heads/a', 'refs/heads/b', 'refs/tags/v1', 'refs/notes/x'])).toEqual({ total: 4, branches: 2, tags: 1, other: 1 });
    expect(parseCountObjects('count: 3\nsize: 12\nin-pack: 1200\npacks: 2\nsize-pack: 345\nprune-packable: 0\ngarbage: 0\nsize-garbage: 0\n')).toMatchObject({
      count: 3,
      'in-pack': 1200,
      'size-pack': 345,
    });
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(30 * 1024 * 1024)).toBe('30.0 MiB');
  });

  it('prints every field, and JSON with seqs as strings', () => {
    const info: RepoInfo = {
      repo: 'acme/app',
      objectFormat: 'sha1',
      headSeq: 3,
      headRef: 'refs/heads/main',
      logStart: 1,
      checkpointSeq: null,
      pristine: false,
      refs: { total: 3, branches: 2, tags: 1, other: 0 },
      packs: { count: 2, bytes: 2048 },
      objects: 9,
      cacheDir: '/cache/admin/repos/acme/app.git',
    };
    expect(formatRepoInfo(info)).toBe(
      [
        'repository    acme/app',
        'object format sha1',
        'head seq      3 (log kept from 1, checkpoint none)',
        'head ref      refs/heads/main',
        'pristine      no',
        'refs          3 (2 branches, 1 tags)',
        'live packs    2, 2.0 KiB (2048 bytes)',
        'objects       9',
        'synced into   /cache/admin/repos/acme/app.git',
        '',
      ].join('\n'),
    );
    expect(repoInfoJson(info)).toMatchObject({ headSeq: '3', logStart: '1', checkpointSeq: null, pristine: false, objects: 9 });
  });
});
