// The JSON API's history routes (commits, commit, compare) through two cw-git instances on one bucket: pushed
// with the stock git client through a, read through b at once.
import { beforeAll, describe, expect, it } from 'vitest';
import type { CommitDetails } from '../git-server/repo-api/commit.ts';
import type { CommitList } from '../git-server/repo-api/commits.ts';
import type { Comparison } from '../git-server/repo-api/compare.ts';
import { useGitTestbed } from './harness/git-testbed.ts';

const bed = useGitTestbed();

async function api(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${bed.b.url}/${repo}/api${path}`, { headers: { authorization: `Bearer ${bed.token}`, ...headers } });
}
async function json<T>(path: string): Promise<T> {
  const response = await api(path);
  expect(response.status, `${path}: ${response.status}`).toBe(200);
  return (await response.json()) as T;
}
const shas = (list: CommitList | Comparison): string[] => list.commits.map((x) => x.sha);

let repo = '';
/** main: c1 (README, logo.bin) → c2 (rename) → c3 (binary change) → c4 (big file) ; feature from c2: f1 → f2. */
const c: Record<string, string> = {};
const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} line ${i}\n`).join('');

beforeAll(async () => {
  repo = await bed.createRepo();
  const work = await bed.git.workdir(`history-${repo.split('/')[1]}`);
  const git = (...args: string[]) => bed.git.run(args, { cwd: work });
  await git('init', '-q', '-b', 'main');
  c.c1 = await bed.git.commit(work, 'first\n\nwith a body\nof two lines', { 'README.md': lines(20, 'readme'), 'logo.bin': '\0\x01\x02binary' });
  await git('mv', 'README.md', 'GUIDE.md');
  c.c2 = await bed.git.commit(work, 'rename the readme', {});
  c.c3 = await bed.git.commit(work, 'new logo', { 'logo.bin': '\0\x03\x04binary' });
  // Over 2 MiB of patch: 60 000 lines of 40 bytes.
  c.c4 = await bed.git.commit(work, 'a big file', { 'big.txt': lines(60_000, 'a rather long line of text, padded') });
  await git('checkout', '-q', '-b', 'feature', c.c2 ?? '');
  c.f1 = await bed.git.commit(work, 'feature one', { 'feature.txt': 'one\n' });
  c.f2 = await bed.git.commit(work, 'feature two', { 'feature.txt': 'one\ntwo\n', 'GUIDE.md': lines(20, 'readme') + 'more\n' });
  await git('checkout', '-q', '--orphan', 'unrelated');
  await git('rm', '-rq', '--cached', '.');
  await git('clean', '-fdq');
  c.u1 = await bed.git.commit(work, 'elsewhere', { 'other.txt': 'other\n' });
  await git('push', '-q', bed.remote(bed.a, repo), 'main', 'feature', 'unrelated');
}, 60_000);

describe('repository JSON API: history', () => {
  it('pages commits newest first with n, skip and more, and filters by path', async () => {
    const page = await api('/commits?n=2');
    const etag = page.headers.get('etag') ?? '';
    expect(etag).toContain(c.c4);
    expect((await api('/commits?n=2', { 'if-none-match': etag })).status).toBe(304);
    expect((await api('/commits?n=3', { 'if-none-match': etag })).status).toBe(200);
    const first = (await page.json()) as CommitList;
    expect(first).toMatchObject({ ref: 'main', sha: c.c4, more: true });
    expect(shas(first)).toEqual([c.c4, c.c3]);
    const second = await json<CommitList>('/commits?n=2&skip=2');
    expect(shas(second)).toEqual([c.c2, c.c1]);
    expect(second.more).toBe(false);
    expect(second.commits[1]).toEqual({
      sha: c.c1,
      parents: [],
      author: { name: 'Ada', email: 'ada@example.com', date: '2026-01-01T00:00:00+00:00' },
      committer: { name: 'Ada', email: 'ada@example.com', date: '2026-01-01T00:00:00+00:00' },
      subject: 'first',
      body: 'with a body\nof two lines',
    });
    const logo = await json<CommitList>('/commits?path=logo.bin');
    expect(shas(logo)).toEqual([c.c3, c.c1]);
    const feature = await json<CommitList>('/commits?ref=feature&n=200');
    expect(shas(feature)).toEqual([c.f2, c.f1, c.c2, c.c1]);
    expect((await api('/commits?ref=nope')).status).toBe(404);
    expect((await api('/commits?n=201')).status).toBe(400);
    expect((await api('/commits?skip=-1')).status).toBe(400);
  });

  it('shows a commit with stats and patch; a rename, a binary file, immutable by full oid', async () => {
    const response = await api(`/commit/${c.c2}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toContain('immutable');
    const renamed = (await response.json()) as CommitDetails;
    expect(renamed.commit).toMatchObject({ sha: c.c2, parents: [c.c1], subject: 'rename the readme' });
    expect(renamed.stats).toEqual([{ path: 'GUIDE.md', previous_path: 'README.md', status: 'renamed', additions: 0, deletions: 0 }]);
    expect(renamed.patch).toContain('rename from README.md');
    expect(renamed.truncated).toBe(false);

    const logo = await json<CommitDetails>('/commit/main~1');
    expect(logo.commit.sha).toBe(c.c3);
    expect(logo.stats).toEqual([{ path: 'logo.bin', status: 'modified', additions: null, deletions: null }]);
    expect(logo.patch).toContain('Binary files a/logo.bin and b/logo.bin differ');

    const root = await json<CommitDetails>(`/commit/${c.c1?.slice(0, 10)}`);
    expect(root.stats.map((f) => [f.path, f.status])).toEqual([
      ['README.md', 'added'],
      ['logo.bin', 'added'],
    ]);
    const ref = await api('/commit/main');
    expect(ref.headers.get('etag')).toBe(`"${c.c4}"`);
    const big = (await ref.json()) as CommitDetails;
    expect(big.stats).toEqual([{ path: 'big.txt', status: 'added', additions: 60_000, deletions: 0 }]);
    expect(big).toMatchObject({ patch_truncated: true, truncated: true, stats_truncated: false });
    expect(big.patch.length).toBeLessThanOrEqual(2 << 20);
    expect(big.patch.endsWith('\n')).toBe(true);
    expect((await api('/commit/0123456789abcdef0123456789abcdef01234567')).status).toBe(404);
  });

  it('compares a diverged branch: merge base, ahead and behind, commits oldest first, files from the merge base', async () => {
    const response = await api('/compare/main...feature');
    expect(response.status).toBe(200);
    const etag = response.headers.get('etag') ?? '';
    expect(etag).toContain(c.f2);
    const body = (await response.json()) as Comparison;
    expect(body).toMatchObject({
      base: { ref: 'main', sha: c.c4 },
      head: { ref: 'feature', sha: c.f2 },
      merge_base: c.c2,
      status: 'diverged',
      ahead_by: 2,
      behind_by: 2,
      commits_truncated: false,
      truncated: false,
    });
    expect(shas(body)).toEqual([c.f1, c.f2]);
    expect(body.files).toEqual([
      { path: 'GUIDE.md', status: 'modified', additions: 1, deletions: 0 },
      { path: 'feature.txt', status: 'added', additions: 2, deletions: 0 },
    ]);
    expect(body.patch).toContain('+two');
    expect(body.patch).not.toContain('big.txt');
    expect((await api('/compare/main...feature', { 'if-none-match': etag })).status).toBe(304);

    const byOid = await api(`/compare/${c.c1}...${c.c3}`);
    expect(byOid.headers.get('cache-control')).toContain('immutable');
    expect(await byOid.json()).toMatchObject({ status: 'ahead', ahead_by: 2, behind_by: 0, merge_base: c.c1 });
    expect(await json<Comparison>(`/compare/feature...${c.c2}`)).toMatchObject({ status: 'behind', ahead_by: 0, commits: [], files: [], patch: '' });
  });

  it('names the side that does not resolve, refuses two dots, and compares unrelated histories from the empty tree', async () => {
    const missing = await api('/compare/no-such-branch...feature');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'revision_not_found', message: expect.stringContaining('base revision "no-such-branch"') });
    const missingHead = await api('/compare/main...gone');
    expect(await missingHead.json()).toMatchObject({ error: 'revision_not_found', message: expect.stringContaining('head revision "gone"') });
    expect((await api('/compare/main..feature')).status).toBe(400);
    const unrelated = await json<Comparison>('/compare/main...unrelated');
    expect(unrelated).toMatchObject({ merge_base: null, status: 'diverged', ahead_by: 1, behind_by: 4 });
    expect(unrelated.files).toEqual([{ path: 'other.txt', status: 'added', additions: 1, deletions: 0 }]);
  });

  it('sees a push through instance a at once when reading through b', async () => {
    const work = await bed.git.workdir(`history-more-${repo.split('/')[1]}`);
    await bed.git.run(['clone', '-q', '-b', 'feature', bed.remote(bed.a, repo), work]);
    const f3 = await bed.git.commit(work, 'feature three', { 'feature.txt': 'three\n' });
    await bed.git.run(['push', '-q', 'origin', 'feature'], { cwd: work });
    expect((await json<CommitList>('/commits?ref=feature&n=1')).commits[0]?.sha).toBe(f3);
    expect(await json<Comparison>('/compare/main...feature')).toMatchObject({ ahead_by: 3, head: { sha: f3 } });
  });
});
