import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScratchRepo } from '../../../src/git/testing/scratch-repo.ts';
import { diffFiles, parseDiffFiles } from './diff-files.ts';
import { diffPatch } from './diff-patch.ts';
import { aheadBehind, emptyTree, mergeBase } from './merge-base.ts';

const O1 = '1'.repeat(40);
const O2 = '2'.repeat(40);
const Z = '0'.repeat(40);

describe('parseDiffFiles', () => {
  const raw = [
    `:100644 100644 ${O1} ${O1} R100\0old name\0new\tname\0`,
    `:100644 100644 ${O1} ${O2} M\0bin\0`,
    `:000000 100644 ${Z} ${O2} A\0with\nnewline\0`,
    `:100644 000000 ${O1} ${Z} D\0gone\0`,
    `:100644 120000 ${O1} ${O2} T\0link\0`,
  ].join('');
  const numstat = ['0\t0\t\0old name\0new\tname\0', '-\t-\tbin\0', '2\t0\twith\nnewline\0', '0\t3\tgone\0', '1\t1\tlink\0'].join('');

  it('pairs raw records with numstat records, renames and binaries included', () => {
    expect(parseDiffFiles(raw + numstat)).toEqual([
      { path: 'new\tname', previous_path: 'old name', status: 'renamed', additions: 0, deletions: 0 },
      { path: 'bin', status: 'modified', additions: null, deletions: null },
      { path: 'with\nnewline', status: 'added', additions: 2, deletions: 0 },
      { path: 'gone', status: 'removed', additions: 0, deletions: 3 },
      { path: 'link', status: 'type_changed', additions: 1, deletions: 1 },
    ]);
  });

  it('keeps files whose counts were cut off, and drops a raw record cut short', () => {
    const cut = parseDiffFiles(raw + numstat.slice(0, 28));
    expect(cut).toHaveLength(5);
    expect(cut[0]).toMatchObject({ additions: 0, deletions: 0 });
    expect(cut[1]).toMatchObject({ additions: null, deletions: null });
    expect(parseDiffFiles(`:100644 100644 ${O1} ${O1} R100\0old\0`)).toEqual([]);
    expect(parseDiffFiles('')).toEqual([]);
  });
});

describe('diffs over a real repository', () => {
  let repo: ScratchRepo;
  let dir: string;
  const c: Record<string, string> = {};
  beforeAll(async () => {
    repo = await ScratchRepo.create();
    dir = `${repo.dir}/.git`;
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i}\n`).join('');
    c.root = await repo.commit('main', { 'a.txt': lines, 'bin.dat': '\0\x01\x02' });
    c.main = await repo.commit('main', { 'a.txt': null, 'moved.txt': lines, 'bin.dat': '\0\x03', 'big.txt': 'x\n'.repeat(5000) });
    c.side = await repo.commit('side', { 'side.txt': 'side\n' }, { from: c.root });
    c.other = await repo.commit('other', { 'o.txt': 'o\n' });
  });
  afterAll(() => repo.remove());

  it('lists files with renames, binaries and counts', async () => {
    const { files, cut } = await diffFiles(dir, c.root ?? '', c.main ?? '', { maxFiles: 10 });
    expect(cut).toBe(false);
    expect(files).toEqual(
      expect.arrayContaining([
        { path: 'moved.txt', previous_path: 'a.txt', status: 'renamed', additions: 0, deletions: 0 },
        { path: 'bin.dat', status: 'modified', additions: null, deletions: null },
        { path: 'big.txt', status: 'added', additions: 5000, deletions: 0 },
      ]),
    );
    expect((await diffFiles(dir, c.root ?? '', c.main ?? '', { maxFiles: 1 })).cut).toBe(true);
  });

  it('cuts a patch at a whole line within the budget', async () => {
    const whole = await diffPatch(dir, c.root ?? '', c.main ?? '');
    expect(whole.truncated).toBe(false);
    expect(whole.patch).toContain('rename from a.txt');
    expect(whole.patch).toContain('Binary files a/bin.dat and b/bin.dat differ');
    const cut = await diffPatch(dir, c.root ?? '', c.main ?? '', { maxBytes: 1000 });
    expect(cut.truncated).toBe(true);
    expect(cut.patch.length).toBeLessThanOrEqual(1000);
    expect(cut.patch.endsWith('\n')).toBe(true);
    expect(whole.patch.startsWith(cut.patch)).toBe(true);
  });

  it('finds merge bases, ahead and behind, and the empty tree', async () => {
    expect(await mergeBase(dir, c.main ?? '', c.side ?? '')).toBe(c.root);
    expect(await mergeBase(dir, c.main ?? '', c.other ?? '')).toBeNull();
    expect(await aheadBehind(dir, c.main ?? '', c.side ?? '')).toEqual({ ahead: 1, behind: 1 });
    expect(await aheadBehind(dir, c.root ?? '', c.main ?? '')).toEqual({ ahead: 1, behind: 0 });
    const empty = await emptyTree(dir);
    expect(empty).toBe('4b825dc642cb6eb9a060e54bf8d69288fbee4904');
    const fromNothing = await diffFiles(dir, empty, c.root ?? '', { maxFiles: 10 });
    expect(fromNothing.files.map((f) => f.status)).toEqual(['added', 'added']);
  });

  it('stops at a deadline', async () => {
    await expect(diffPatch(dir, c.root ?? '', c.main ?? '', { signal: AbortSignal.abort() })).rejects.toThrow(/aborted/);
  });
});
