// Against a real (temporary) repository: what git resolves, and what never reaches it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGit } from '../../../src/git/run-git.ts';
import { resolveCommit } from './rev-parse.ts';

let dir = '';
const commits: string[] = [];
const AUTHOR = { GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rev-parse-'));
  await runGit(['init', '-q', '--bare', dir]);
  const tree = (await runGit(['-C', dir, 'mktree'], { stdin: '' })).stdout.toString().trim();
  for (const message of ['one', 'two', 'three']) {
    const parent = commits.at(-1);
    const made = await runGit(['-C', dir, 'commit-tree', tree, '-m', message, ...(parent ? ['-p', parent] : [])], { env: AUTHOR });
    commits.push(made.stdout.toString().trim());
  }
  await runGit(['-C', dir, 'update-ref', 'refs/heads/main', commits[2] ?? '']);
  await runGit(['-C', dir, 'update-ref', 'refs/tags/v1.0', commits[1] ?? '']);
  // Braces are allowed in ref names (only `@{` is not): such a branch stays a revision.
  await runGit(['-C', dir, 'update-ref', 'refs/heads/feat{x}', commits[0] ?? '']);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('resolveCommit', () => {
  it('resolves branches, tags, object ids and ~N / ^N steps', async () => {
    const [one, two, three] = commits;
    expect(await resolveCommit(dir, 'main')).toBe(three);
    expect(await resolveCommit(dir, 'main~2')).toBe(one);
    expect(await resolveCommit(dir, 'main^')).toBe(two);
    expect(await resolveCommit(dir, 'main^1~1')).toBe(one);
    expect(await resolveCommit(dir, 'v1.0^')).toBe(one);
    expect(await resolveCommit(dir, three?.slice(0, 10) ?? '')).toBe(three);
    expect(await resolveCommit(dir, 'main~3')).toBeUndefined();
    expect(await resolveCommit(dir, 'feat{x}')).toBe(one);
    expect(await resolveCommit(dir, 'feat{x}^0')).toBe(one);
  });

  it.each([
    // A regular expression compiled by glibc, outside GIT_ALLOC_LIMIT: 25 characters held 650 MiB (review-177 F2).
    'main^{/(x{0,200}){0,200}}',
    'main^{/one}',
    ':/one',
    'main^{commit}',
    'main@{0}',
    '@{upstream}',
    'main~1^{/x}',
    'main..v1.0',
    '-main',
  ])('refuses %s with a 400 before git sees it', async (revision) => {
    await expect(resolveCommit(dir, revision)).rejects.toMatchObject({ status: 400, code: 'invalid_request', message: expect.stringContaining('is not a revision') });
  });
});
