// `POST /api/merges` through two cw-git instances on one bucket: branches pushed with the stock git client,
// merged through the API on either instance, and what a fresh `git clone` then sees.
import { describe, expect, it } from 'vitest';
import { mintToken } from '../git-server/auth/index.ts';
import { useGitTestbed } from './harness/git-testbed.ts';

const bed = useGitTestbed();

const committer = { name: 'Merge Bot', email: 'bot@example.test', when: '2026-02-01T10:00:00+01:00' };

async function merge(service: { url: string }, repo: string, body: Record<string, unknown>, token = bed.token): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${service.url}/${repo}/api/merges`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ committer, ...body }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * A repository with `main` (root, m1) and branches off it, pushed through instance a:
 * `feature` (root, f1, f2: other files), `squashme` (root, s1: another file), `ahead` (m1, a1),
 * `clash` (root, c1: shared.txt, as m1 changes it).
 */
async function seed(): Promise<{ repo: string; work: string; c: Record<string, string> }> {
  const repo = await bed.createRepo();
  const work = await bed.git.workdir(`merges-${repo.split('/')[1]}`);
  const git = (...args: string[]) => bed.git.out(args, work);
  await git('init', '-q', '-b', 'main');
  const c: Record<string, string> = {};
  c.root = await bed.git.commit(work, 'root', { 'shared.txt': 'one\ntwo\nthree\n', 'README.md': '# merges\n' });
  c.m1 = await bed.git.commit(work, 'm1', { 'shared.txt': 'one\nTWO (main)\nthree\n' });
  await git('checkout', '-q', '-b', 'feature', c.root);
  c.f1 = await bed.git.commit(work, 'f1', { 'feature/a.txt': 'a\n' });
  c.f2 = await bed.git.commit(work, 'f2', { 'feature/b.txt': 'b\n' });
  await git('checkout', '-q', '-b', 'squashme', c.root);
  c.s1 = await bed.git.commit(work, 's1', { 'squash.txt': 's\n' });
  await git('checkout', '-q', '-b', 'ahead', c.m1);
  c.a1 = await bed.git.commit(work, 'a1', { 'ahead.txt': 'a\n' });
  await git('checkout', '-q', '-b', 'clash', c.root);
  c.c1 = await bed.git.commit(work, 'c1', { 'shared.txt': 'one\nTWO (clash)\nthree\n', 'clash/only.txt': 'x\n' });
  await git('push', '-q', bed.remote(bed.a, repo), 'main', 'feature', 'squashme', 'ahead', 'clash');
  return { repo, work, c };
}

describe('POST /api/merges', () => {
  it('merges, squashes and fast-forwards; a clone shows the parents and passes fsck --strict', async () => {
    const { repo, c } = await seed();

    // Merge through b what was pushed through a: two parents.
    const merged = await merge(bed.b, repo, { base: 'main', head: 'feature', strategy: 'merge', expected_base_oid: c.m1 });
    expect(merged).toEqual({
      status: 201,
      body: { ref: 'refs/heads/main', oid: expect.stringMatching(/^[0-9a-f]{40}$/), commit_oid: expect.any(String), seq: expect.any(Number), already_merged: false },
    });
    expect(merged.body.oid).toBe(merged.body.commit_oid);

    // Squash through a, from the merge b published: one parent.
    const squashed = await merge(bed.a, repo, { base: 'main', head: 'squashme', strategy: 'squash', message: 'Squash the squashme branch', expected_base_oid: merged.body.oid });
    expect(squashed).toMatchObject({ status: 201, body: { ref: 'refs/heads/main', already_merged: false } });
    expect(squashed.body.seq as number).toBeGreaterThan(merged.body.seq as number);

    // ahead is off m1 and main has moved on: main cannot fast-forward to it. A branch `ff` pushed at m1 can.
    const nonFf = await merge(bed.b, repo, { base: 'main', head: 'ahead', strategy: 'fast-forward-only', expected_base_oid: squashed.body.oid });
    expect(nonFf).toEqual({ status: 409, body: { error: 'not_fast_forward', message: expect.stringContaining('refs/heads/main'), retryable: false } });

    const work2 = await bed.git.workdir(`ff-${repo.split('/')[1]}`);
    await bed.git.run(['clone', '-q', bed.remote(bed.b, repo), work2]);
    await bed.git.run(['push', '-q', 'origin', `${c.m1}:refs/heads/ff`], { cwd: work2 });
    const ff = await merge(bed.a, repo, { base: 'ff', head: 'ahead', strategy: 'fast-forward-only', expected_base_oid: c.m1 });
    expect(ff).toEqual({ status: 201, body: { ref: 'refs/heads/ff', oid: c.a1, seq: expect.any(Number), already_merged: false } });

    // What a fresh clone through the other instance sees.
    const clone = await bed.git.workdir(`clone-${repo.split('/')[1]}`);
    await bed.git.run(['clone', '-q', bed.remote(bed.b, repo), clone]);
    const parents = async (rev: string) => (await bed.git.out(['rev-list', '--parents', '-n', '1', rev], clone)).split(' ').slice(1);
    const main = await bed.git.out(['rev-parse', 'origin/main'], clone);
    expect(main).toBe(squashed.body.oid);
    expect(await parents(main)).toEqual([merged.body.oid]);
    expect(await parents(merged.body.oid as string)).toEqual([c.m1, c.f2]);
    expect(await bed.git.out(['rev-parse', 'origin/ff'], clone)).toBe(c.a1);
    expect(await bed.git.out(['log', '-1', '--format=%s|%an <%ae>|%ad', '--date=iso-strict', main], clone)).toBe('Squash the squashme branch|Merge Bot <bot@example.test>|2026-02-01T10:00:00+01:00');
    expect(await bed.git.out(['log', '-1', '--format=%s', merged.body.oid as string], clone)).toBe('Merge feature into main');
    expect((await bed.git.out(['ls-tree', '-r', '--name-only', main], clone)).split('\n')).toEqual(['README.md', 'feature/a.txt', 'feature/b.txt', 'shared.txt', 'squash.txt']);
    const graph = await bed.git.out(['log', '--graph', '--format=%s', 'origin/main'], clone);
    expect(graph.split('\n')[0]).toBe('* Squash the squashme branch');
    expect(graph).toContain('*   Merge feature into main');
    await bed.git.run(['fsck', '--strict', '--no-dangling'], { cwd: clone });
  });

  it('answers 409 with the conflicted paths, 409 with the current oid when the base moved, 200 when already merged', async () => {
    const { repo, c } = await seed();

    const conflict = await merge(bed.a, repo, { base: 'main', head: 'clash', strategy: 'merge', expected_base_oid: c.m1 });
    expect(conflict).toEqual({ status: 409, body: { error: 'merge_conflict', conflicts: ['shared.txt'], message: expect.stringContaining('shared.txt'), retryable: false } });

    const moved = await merge(bed.b, repo, { base: 'main', head: 'feature', strategy: 'squash', expected_base_oid: c.root });
    expect(moved).toEqual({ status: 409, body: { error: 'ref_mismatch', current_oid: c.m1, message: `refs/heads/main is at ${c.m1}.`, retryable: false } });

    // ahead contains main (m1): nothing to merge, whatever the strategy; main stays.
    for (const strategy of ['merge', 'squash', 'fast-forward-only']) {
      expect(await merge(bed.b, repo, { base: 'ahead', head: 'main', strategy, expected_base_oid: c.a1 })).toEqual({ status: 200, body: { ref: 'refs/heads/ahead', oid: c.a1, already_merged: true } });
    }
    expect(await merge(bed.a, repo, { base: 'main', head: c.root, strategy: 'merge', expected_base_oid: c.m1 })).toMatchObject({ status: 200, body: { already_merged: true } });

    expect((await merge(bed.a, repo, { base: 'nope', head: 'feature', strategy: 'merge', expected_base_oid: c.m1 })).body).toMatchObject({ error: 'branch_not_found' });
    expect((await merge(bed.a, repo, { base: 'main', head: 'nope', strategy: 'merge', expected_base_oid: c.m1 })).body).toMatchObject({ error: 'revision_not_found' });
    expect((await merge(bed.a, repo, { base: 'main', head: 'feature', strategy: 'rebase', expected_base_oid: c.m1 })).status).toBe(400);
    expect((await merge(bed.a, repo, { base: 'main', head: 'feature', strategy: 'merge' })).status).toBe(400);
    expect((await merge(bed.a, repo, { base: 'main', head: 'feature', strategy: 'merge', expected_base_oid: c.m1, committer: { ...committer, when: 'noon' } })).status).toBe(400);

    // Nothing of the refused requests moved a ref.
    const refs = await bed.git.out(['ls-remote', bed.remote(bed.b, repo)]);
    expect(refs).toContain(`${c.m1}\trefs/heads/main`);
    expect(refs).toContain(`${c.a1}\trefs/heads/ahead`);
  });

  it('needs the write scope', async () => {
    const { repo, c } = await seed();
    const readOnly = mintToken({ sub: 'reader', scopes: ['read'] }, bed.setup.tokenSecret);
    const refused = await merge(bed.a, repo, { base: 'main', head: 'feature', strategy: 'merge', expected_base_oid: c.m1 }, readOnly);
    expect(refused).toMatchObject({ status: 403, body: { error: 'forbidden' } });
  });
});
