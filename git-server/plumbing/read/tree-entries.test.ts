// Against a real (temporary) repository: git's output is the contract here.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGit } from '../../../src/git/run-git.ts';
import { listTree, lookupEntry } from './tree-entries.ts';

let dir = '';
let commit = '';
const git = async (args: string[], stdin?: string) => (await runGit(['-C', dir, ...args], stdin === undefined ? {} : { stdin })).stdout.toString().trim();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tree-entries-'));
  await runGit(['init', '-q', '--bare', dir]);
  const blob = await git(['hash-object', '-w', '--stdin'], 'hello\n');
  const sub = await git(['mktree'], `100644 blob ${blob}\tinner\n`);
  // Names git sorts differently from "directories first": `a.txt` < `a` (tree, compared as `a/`) < `b*c`.
  const rows = [`100644 blob ${blob}\ta.txt`, `040000 tree ${sub}\ta`, `100644 blob ${blob}\tb*c`, `100755 blob ${blob}\tZ`, `040000 tree ${sub}\tz`];
  const root = await git(['mktree'], `${rows.join('\n')}\n`);
  commit = await runGit(['-C', dir, 'commit-tree', root, '-m', 'x'], { env: { GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' } }).then((r) =>
    r.stdout.toString().trim(),
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('listTree', () => {
  it('lists directories first, then by name, with blob sizes', async () => {
    const { entries, truncated } = await listTree(dir, `${commit}^{tree}`, 100);
    expect(truncated).toBe(false);
    expect(entries.map((e) => [e.name, e.type, e.mode, e.size])).toEqual([
      ['a', 'tree', '040000', null],
      ['z', 'tree', '040000', null],
      ['Z', 'blob', '100755', 6],
      ['a.txt', 'blob', '100644', 6],
      ['b*c', 'blob', '100644', 6],
    ]);
  });

  it('stops at the limit and says so', async () => {
    const { entries, truncated } = await listTree(dir, `${commit}^{tree}`, 2);
    expect(truncated).toBe(true);
    expect(entries).toHaveLength(2);
  });
});

describe('lookupEntry', () => {
  it('finds a path literally (no globbing), a directory as its own entry', async () => {
    expect(await lookupEntry(dir, commit, 'b*c')).toMatchObject({ name: 'b*c', type: 'blob' });
    expect(await lookupEntry(dir, commit, 'b*')).toBeUndefined();
    expect(await lookupEntry(dir, commit, 'a')).toMatchObject({ name: 'a', type: 'tree', size: null });
    expect(await lookupEntry(dir, commit, 'a/inner')).toMatchObject({ name: 'inner', type: 'blob', size: 6 });
    expect(await lookupEntry(dir, commit, 'a/missing')).toBeUndefined();
  });
});
