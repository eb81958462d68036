// Against a real (temporary) bare repository: what git records is the contract.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGit } from '../../../src/git/run-git.ts';
import { buildCommit, type BuildCommitRequest } from './build-commit.ts';
import { MAX_COMMIT_DIRECTORIES, MAX_PATH_DEPTH } from './changes.ts';

let dir = '';
const git = async (args: string[]) => (await runGit(['--git-dir', dir, ...args])).stdout.toString();
const b64 = (text: string) => Buffer.from(text).toString('base64');
const who = { name: 'Ada', email: 'ada@example.com', when: '2024-05-01T12:00:00+02:00' };
const base = (over: Partial<BuildCommitRequest>): BuildCommitRequest => ({ dir, parent: null, changes: [], message: 'm\n', author: who, committer: who, allowEmpty: false, ...over });
const files = async (commit: string) => (await git(['ls-tree', '-r', commit])).trim().split('\n').filter(Boolean);
const reason = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (e: unknown) => `${(e as { status?: number }).status} ${(e as Error).message}`,
  );

let root = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'build-commit-'));
  await runGit(['init', '-q', '--bare', dir]);
  root = (
    await buildCommit(
      base({
        changes: [
          { op: 'upsert', path: 'README.md', content: b64('hello\n'), mode: '100644' },
          { op: 'upsert', path: 'bin/run', content: b64('#!/bin/sh\n'), mode: '100755' },
          { op: 'upsert', path: 'link', content: b64('README.md'), mode: '120000' },
          { op: 'upsert', path: 'src/a/b.txt', content: b64('b\n'), mode: '100644' },
        ],
      }),
    )
  ).commit;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('buildCommit', () => {
  it('writes a root commit with contents, modes, identities and dates', async () => {
    expect(await files(root)).toEqual([
      `100644 blob ${(await git(['rev-parse', `${root}:README.md`])).trim()}\tREADME.md`,
      expect.stringMatching(/^100755 blob \w+\tbin\/run$/),
      expect.stringMatching(/^120000 blob \w+\tlink$/),
      expect.stringMatching(/^100644 blob \w+\tsrc\/a\/b\.txt$/),
    ]);
    expect(await git(['cat-file', '-p', `${root}:link`])).toBe('README.md');
    const raw = await git(['cat-file', 'commit', root]);
    expect(raw).not.toContain('parent ');
    expect(raw).toContain('author Ada <ada@example.com> 1714557600 +0200');
    expect(raw).toContain('committer Ada <ada@example.com> 1714557600 +0200');
    expect(raw.endsWith('\n\nm\n')).toBe(true);
    await git(['fsck', '--strict', '--no-dangling', root]);
  });

  it('applies upserts, deletes and renames on top of the parent, keeping the mode of a renamed file', async () => {
    const author = { name: 'Bo', email: 'bo@example.com', when: '2024-01-02T03:04:05Z' };
    const { commit } = await buildCommit(
      base({
        parent: root,
        author,
        changes: [
          { op: 'upsert', path: 'README.md', content: b64('changed\n'), mode: '100644' },
          { op: 'delete', path: 'src/a/b.txt' },
          { op: 'rename', from: 'bin/run', to: 'tools/run' },
        ],
      }),
    );
    expect((await files(commit)).map((l) => l.replace(/ blob \w+/, ''))).toEqual(['100644\tREADME.md', '120000\tlink', '100755\ttools/run']);
    expect(await git(['cat-file', '-p', `${commit}:README.md`])).toBe('changed\n');
    const raw = await git(['cat-file', 'commit', commit]);
    expect(raw).toContain(`parent ${root}`);
    expect(raw).toContain('author Bo <bo@example.com> 1704164645 +0000');
    expect(raw).toContain('committer Ada <ada@example.com> 1714557600 +0200');
  });

  it('refuses an unchanged tree unless allow_empty', async () => {
    const same = [{ op: 'upsert', path: 'README.md', content: b64('hello\n'), mode: '100644' } as const];
    expect(await reason(buildCommit(base({ parent: root, changes: same })))).toMatch(/^400 .*allow_empty/);
    expect(await reason(buildCommit(base({ parent: root, changes: [] })))).toMatch(/^400 /);
    expect(await reason(buildCommit(base({ changes: [] })))).toMatch(/^400 /);
    const { commit, tree } = await buildCommit(base({ parent: root, changes: same, allowEmpty: true }));
    expect(tree).toBe((await git(['rev-parse', `${root}^{tree}`])).trim());
    expect(commit).not.toBe(root);
  });

  it.each([
    ['../x', /"\.\." segment/],
    ['a/../b', /"\.\." segment/],
    ['./a', /"\." segment/],
    ['/etc/passwd', /absolute/],
    ['a//b', /empty segment/],
    ['a/', /empty segment/],
    ['.git/config', /\.git/],
    ['x/.GIT/hooks', /\.git/],
    // What git's index takes for `.git` (and would skip without failing): NTFS forms, HFS+'s ignored characters.
    ['docs/.git./secret.txt', /\.git/],
    ['.git /hooks/x', /\.git/],
    ['.git::$INDEX_ALLOCATION/config', /\.git/],
    ['GIT~1/config', /\.git/],
    ['.g\u200cit/hooks/post-checkout', /\.git/],
    ['', /empty/],
  ])('refuses the path %j', async (path, message) => {
    expect(await reason(buildCommit(base({ parent: root, changes: [{ op: 'upsert', path, content: '', mode: '100644' }] })))).toMatch(new RegExp(`^400 .*${message.source}`));
  });

  it('refuses overlapping or repeated paths, naming them', async () => {
    const up = (path: string) => ({ op: 'upsert', path, content: '', mode: '100644' }) as const;
    expect(await reason(buildCommit(base({ parent: root, changes: [up('a'), up('a/b')] })))).toMatch(/^400 Paths "a" and "a\/b" overlap/);
    expect(await reason(buildCommit(base({ parent: root, changes: [up('x'), { op: 'delete', path: 'x' }] })))).toMatch(/^400 Path "x" is changed more than once/);
    expect(await reason(buildCommit(base({ parent: root, changes: [{ op: 'rename', from: 'README.md', to: 'README.md/x' }] })))).toMatch(/^400 .*overlap/);
  });

  it('refuses deleting or renaming a missing file, a directory, and writing across a file or onto a directory', async () => {
    expect(await reason(buildCommit(base({ parent: root, changes: [{ op: 'delete', path: 'nope.txt' }] })))).toMatch(/^400 Cannot delete "nope.txt": no such file/);
    expect(await reason(buildCommit(base({ parent: root, changes: [{ op: 'rename', from: 'nope', to: 'x' }] })))).toMatch(/^400 Cannot rename "nope"/);
    expect(await reason(buildCommit(base({ parent: root, changes: [{ op: 'delete', path: 'src' }] })))).toMatch(/^400 .*directory/);
    expect(await reason(buildCommit(base({ parent: root, changes: [{ op: 'upsert', path: 'README.md/x', content: '', mode: '100644' }] })))).toMatch(/^400 .*"README.md" is a file/);
    expect(await reason(buildCommit(base({ parent: root, changes: [{ op: 'upsert', path: 'src/a', content: '', mode: '100644' }] })))).toMatch(/^400 .*is a directory/);
    expect(await reason(buildCommit(base({ parent: root, changes: [{ op: 'rename', from: 'link', to: 'README.md' }] })))).toMatch(/^400 .*exists/);
  });

  it('refuses a rename onto a path git will not store rather than lose the file, and a .gitmodules link by any of its names', async () => {
    expect(await reason(buildCommit(base({ parent: root, changes: [{ op: 'rename', from: 'README.md', to: 'docs/.git./README.md' }] })))).toMatch(/^400 .*\.git/);
    for (const path of ['gitmod~1', '.gitmodules.', 'x/GI7EBA~2', '.gitmodules\u200c']) {
      expect(await reason(buildCommit(base({ parent: root, changes: [{ op: 'upsert', path, content: '', mode: '120000' }] }))), path).toMatch(/^400 .*symbolic link/);
    }
  });

  it('refuses paths under too many directories, one by one and together, before git runs (review-177 F3)', async () => {
    const deep = `${Array.from({ length: MAX_PATH_DEPTH + 1 }, (_, i) => `d${i}`).join('/')}/f.txt`;
    expect(await reason(buildCommit(base({ parent: root, changes: [{ op: 'upsert', path: deep, content: b64('x'), mode: '100644' }] })))).toBe(
      `400 Path ${JSON.stringify(deep)} is under ${MAX_PATH_DEPTH + 1} directories; at most ${MAX_PATH_DEPTH} are taken.`,
    );
    // At the depth bound, each path under directories of its own: past the commit's budget together.
    const wide = Array.from({ length: Math.ceil(MAX_COMMIT_DIRECTORIES / MAX_PATH_DEPTH) + 1 }, (_, p) => ({
      op: 'upsert' as const,
      path: `${Array.from({ length: MAX_PATH_DEPTH }, (_, i) => `p${p}d${i}`).join('/')}/f.txt`,
      content: b64('x'),
      mode: '100644' as const,
    }));
    const started = performance.now();
    expect(await reason(buildCommit(base({ parent: root, changes: wide })))).toMatch(/^400 The changes are under \d+ directories; one commit may touch paths under at most 2000: split it\.$/);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('writes a commit at the bounds in seconds: the deepest paths, as many directories as a commit may touch', async () => {
    const paths = Math.floor(MAX_COMMIT_DIRECTORIES / MAX_PATH_DEPTH);
    // Segments long enough that each path is near its 4,096 bytes.
    const segment = (p: number, i: number) => `${String(p).padStart(3, '0')}${String(i).padStart(3, '0')}${'x'.repeat(24)}`;
    const changes = Array.from({ length: paths }, (_, p) => ({
      op: 'upsert' as const,
      path: `${Array.from({ length: MAX_PATH_DEPTH }, (_, i) => segment(p, i)).join('/')}/f`,
      content: b64(`${p}`),
      mode: '100644' as const,
    }));
    const started = performance.now();
    const { commit } = await buildCommit(base({ parent: root, changes }));
    const took = performance.now() - started;
    process.stdout.write(`build-commit: ${paths} paths under ${MAX_PATH_DEPTH} directories each (${paths * MAX_PATH_DEPTH} directories): ${Math.round(took)} ms\n`);
    expect((await files(commit)).length).toBe(4 + paths);
  });

  it('stops when its signal aborts (the client left)', async () => {
    const left = new AbortController();
    left.abort();
    expect(await reason(buildCommit(base({ parent: root, changes: [{ op: 'upsert', path: 'gone.txt', content: b64('x'), mode: '100644' }], signal: left.signal })))).toMatch(/aborted/);
  });

  it('refuses a date git cannot record', async () => {
    const at = (when: string) => buildCommit(base({ committer: { ...who, when }, changes: [{ op: 'upsert', path: 'a', content: '', mode: '100644' }] }));
    expect(await reason(at('1969-07-20T20:17:00Z'))).toMatch(/^400 .*before 1970/);
  });

  it('refuses bad base64 and bad signatures', async () => {
    expect(await reason(buildCommit(base({ changes: [{ op: 'upsert', path: 'a', content: 'not base64!', mode: '100644' }] })))).toMatch(/^400 .*base64/);
    expect(await reason(buildCommit(base({ committer: { ...who, when: '2024-05-01 12:00' }, changes: [{ op: 'upsert', path: 'a', content: '', mode: '100644' }] })))).toMatch(/^400 .*RFC 3339/);
    expect(await reason(buildCommit(base({ author: { ...who, name: 'a <b>' }, changes: [{ op: 'upsert', path: 'a', content: '', mode: '100644' }] })))).toMatch(/^400 /);
  });

  it('writes objects only where env sends them (a quarantine)', async () => {
    const quarantine = await mkdtemp(join(tmpdir(), 'build-commit-q-'));
    try {
      const env = { GIT_OBJECT_DIRECTORY: quarantine, GIT_ALTERNATE_OBJECT_DIRECTORIES: join(dir, 'objects') };
      const { commit } = await buildCommit(base({ env, parent: root, changes: [{ op: 'upsert', path: 'q.txt', content: b64('quarantined\n'), mode: '100644' }] }));
      expect(await reason(git(['cat-file', '-e', commit]))).not.toBe('resolved');
      expect((await runGit(['--git-dir', dir, 'cat-file', '-p', `${commit}:q.txt`], { env })).stdout.toString()).toBe('quarantined\n');
    } finally {
      await rm(quarantine, { recursive: true, force: true });
    }
  });
});
