import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Quarantine } from '../quarantine.ts';
import { runGit } from '../../../src/git/run-git.ts';
import { HERMETIC_GIT_ENV, ScratchRepo } from '../../../src/git/testing/scratch-repo.ts';
import { computeMerge, parseMergeTree, type MergeRequest, type MergeStrategy } from './merge.ts';

// History (each letter a commit on its branch):
//   main:     root ─ m1
//   feature:  root ─ f1 ─ f2          (touches other files than main: merges cleanly)
//   clash:    root ─ c1               (changes shared.txt as m1 does, README.md that f2 deletes: conflicts)
//   ahead:    root ─ m1 ─ a1          (main is its ancestor: fast-forwards)
//   lone:     x1                       (unrelated)
let scratch: ScratchRepo;
let tmp: string;
let bare: string;
const c: Record<string, string> = {};

beforeAll(async () => {
  scratch = await ScratchRepo.create();
  c.root = await scratch.commit('main', { 'shared.txt': 'one\ntwo\nthree\n', 'README.md': 'hello\n' });
  c.m1 = await scratch.commit('main', { 'shared.txt': 'one\nTWO (main)\nthree\n' });
  c.f1 = await scratch.commit('feature', { 'feature/a.txt': 'a\n' }, { from: c.root });
  c.f2 = await scratch.commit('feature', { 'feature/b.txt': 'b\n', 'README.md': null });
  c.c1 = await scratch.commit('clash', { 'shared.txt': 'one\nTWO (clash)\nthree\n', 'README.md': 'hello, clash\n' }, { from: c.root });
  c.a1 = await scratch.commit('ahead', { 'ahead.txt': 'a\n' }, { from: c.m1 });
  c.x1 = await scratch.commit('lone', { 'lone.txt': 'x\n' });
  tmp = await mkdtemp(join(tmpdir(), 'cw-merge-'));
  bare = join(tmp, 'repo.git');
  await runGit(['clone', '--quiet', '--bare', '--mirror', scratch.dir, bare], { env: HERMETIC_GIT_ENV });
});

afterAll(async () => {
  await scratch?.remove();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const committer = { name: 'Merge Bot', email: 'bot@example.test', when: '2026-03-01T12:00:00+02:00' };

async function merge(base: string, head: string, strategy: MergeStrategy): Promise<{ outcome: Awaited<ReturnType<typeof computeMerge>>; quarantine: Quarantine }> {
  const quarantine = await Quarantine.create(join(tmp, 'tmp'), bare);
  const request: MergeRequest = { dir: bare, env: { ...HERMETIC_GIT_ENV, ...quarantine.env }, base, head, strategy, message: `${strategy} ${head.slice(0, 7)}`, committer };
  return { outcome: await computeMerge(request), quarantine };
}

/** git in the bare repository, seeing the quarantine's objects too. */
async function show(quarantine: Quarantine, ...args: string[]): Promise<string> {
  return (await runGit(args, { env: { ...HERMETIC_GIT_ENV, ...quarantine.env } })).stdout.toString().trim();
}

async function inRepo(oid: string): Promise<boolean> {
  const result = await runGit(['-C', bare, 'cat-file', '-e', oid], { okCodes: [0, 1, 128] });
  return result.code === 0;
}

describe('computeMerge', () => {
  it('merge: a commit with base and head as parents, the union of both changes, written to the quarantine only', async () => {
    const { outcome, quarantine } = await merge(c.m1!, c.f2!, 'merge');
    expect(outcome).toMatchObject({ kind: 'committed', parents: [c.m1, c.f2] });
    if (outcome.kind !== 'committed') return;
    expect((await show(quarantine, 'rev-list', '--parents', '-n', '1', outcome.oid)).split(' ')).toEqual([outcome.oid, c.m1, c.f2]);
    expect(await show(quarantine, 'ls-tree', '-r', '--name-only', outcome.oid)).toBe(['feature/a.txt', 'feature/b.txt', 'shared.txt'].join('\n'));
    expect(await show(quarantine, 'cat-file', '-p', `${outcome.oid}:shared.txt`)).toBe('one\nTWO (main)\nthree');
    expect(await show(quarantine, 'log', '-1', '--format=%an <%ae> %ad|%cn <%ce> %cd|%s', '--date=iso-strict', outcome.oid)).toBe(
      'Merge Bot <bot@example.test> 2026-03-01T12:00:00+02:00|Merge Bot <bot@example.test> 2026-03-01T12:00:00+02:00|merge ' + c.f2!.slice(0, 7),
    );
    expect(await inRepo(outcome.oid)).toBe(false);
    await runGit(['fsck', '--strict', '--no-dangling'], { env: { ...HERMETIC_GIT_ENV, ...quarantine.env } });
  });

  it('squash: the same tree with base as the only parent', async () => {
    const merged = await merge(c.m1!, c.f2!, 'merge');
    const { outcome, quarantine } = await merge(c.m1!, c.f2!, 'squash');
    expect(outcome).toMatchObject({ kind: 'committed', parents: [c.m1] });
    if (outcome.kind !== 'committed' || merged.outcome.kind !== 'committed') return;
    expect(outcome.tree).toBe(merged.outcome.tree);
    expect(await show(quarantine, 'rev-list', '--parents', '-n', '1', outcome.oid)).toBe(`${outcome.oid} ${c.m1}`);
  });

  it('merge and squash still commit when base is an ancestor of head (no implicit fast-forward)', async () => {
    const { outcome } = await merge(c.m1!, c.a1!, 'merge');
    expect(outcome).toMatchObject({ kind: 'committed', parents: [c.m1, c.a1] });
  });

  it('fast-forward-only: head when base is its ancestor, not_fast_forward otherwise; writes nothing', async () => {
    const ff = await merge(c.m1!, c.a1!, 'fast-forward-only');
    expect(ff.outcome).toEqual({ kind: 'fast_forward', oid: c.a1 });
    expect((await merge(c.m1!, c.f2!, 'fast-forward-only')).outcome).toEqual({ kind: 'not_fast_forward' });
    expect(await show(ff.quarantine, 'count-objects')).toBe('0 objects, 0 kilobytes');
  });

  it('already merged when head is in base history (or is base), whatever the strategy', async () => {
    for (const strategy of ['merge', 'squash', 'fast-forward-only'] as const) {
      expect((await merge(c.a1!, c.m1!, strategy)).outcome).toEqual({ kind: 'already_merged' });
      expect((await merge(c.m1!, c.m1!, strategy)).outcome).toEqual({ kind: 'already_merged' });
    }
  });

  it('conflict: the conflicted paths, and no commit', async () => {
    const { outcome } = await merge(c.m1!, c.c1!, 'merge');
    expect(outcome).toEqual({ kind: 'conflict', conflicts: ['shared.txt'] });
    expect((await merge(c.f2!, c.c1!, 'squash')).outcome).toEqual({ kind: 'conflict', conflicts: ['README.md'] });
  });

  it('unrelated histories are refused', async () => {
    expect((await merge(c.m1!, c.x1!, 'merge')).outcome).toEqual({ kind: 'unrelated_histories' });
  });

  it('refuses an identity git could not record', async () => {
    const quarantine = await Quarantine.create(join(tmp, 'tmp'), bare);
    const base = { dir: bare, env: quarantine.env, base: c.m1!, head: c.f2!, strategy: 'merge' as const, message: 'm' };
    await expect(computeMerge({ ...base, committer: { ...committer, when: '2026-03-01 12:00' } })).rejects.toMatchObject({ status: 400 });
    await expect(computeMerge({ ...base, committer: { ...committer, name: 'a <b>' } })).rejects.toMatchObject({ status: 400 });
  });
});

describe('parseMergeTree', () => {
  it('reads the tree and each conflicted path once, stopping at the messages', () => {
    expect(parseMergeTree(`${'a'.repeat(40)}\0b.txt\0a dir/x\ny\0b.txt\0\0Auto-merging b.txt\0`)).toEqual({ tree: 'a'.repeat(40), conflicts: ['a dir/x\ny', 'b.txt'] });
    expect(parseMergeTree(`${'a'.repeat(40)}\0`)).toEqual({ tree: 'a'.repeat(40), conflicts: [] });
  });
});
