// The default branch (HEAD) through two cw-git instances on one bucket: the first push that creates branches
// chooses it when HEAD's own branch is not among them (as GitHub and Gitea do), and `PUT /api/refs` retargets it
// with no log entry; each instance's cached copy follows, so a clone checks out the new default branch.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mintToken } from '../git-server/auth/index.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { RepoStore } from '../src/repo-store/index.ts';
import { useGitTestbed } from './harness/git-testbed.ts';

const bed = useGitTestbed();

async function api(service: { url: string }, method: string, path: string, body?: unknown, token = bed.token): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Pushes `branches` (each one commit on the last) to a new repository created with HEAD on main; answers repo and tips. */
async function pushed(branches: readonly string[]): Promise<{ repo: string; work: string; tips: Record<string, string> }> {
  const repo = await bed.createRepo();
  const work = await bed.git.workdir(`head-${randomBytes(4).toString('hex')}`);
  await bed.git.run(['init', '-q', '-b', branches[0] as string], { cwd: work });
  const tips: Record<string, string> = {};
  for (const branch of branches) {
    await bed.git.run(['checkout', '-q', '-B', branch], { cwd: work });
    tips[branch] = await bed.git.commit(work, branch, { [`${branch}.txt`]: `${branch}\n` });
  }
  await bed.git.run(['push', '-q', bed.remote(bed.a, repo), ...branches], { cwd: work });
  return { repo, work, tips };
}

async function cloneHead(service: { url: string }, repo: string): Promise<{ branch: string; sha: string; stderr: string }> {
  const dir = await bed.git.workdir(`head-clone-${randomBytes(4).toString('hex')}`);
  const cloned = await bed.git.run(['clone', bed.remote(service, repo), dir]);
  return { branch: await bed.git.out(['symbolic-ref', 'HEAD'], dir), sha: await bed.git.out(['rev-parse', 'HEAD'], dir), stderr: cloned.stderr };
}

describe('the default branch', () => {
  it('follows a first push of master alone: no dangling HEAD, the summary and a clone agree', async () => {
    const { repo, tips } = await pushed(['master']);
    expect(await api(bed.b, 'GET', `/${repo}/api/refs`)).toEqual({ status: 200, body: { head: { name: 'refs/heads/master', sha: tips.master } } });
    const clone = await cloneHead(bed.b, repo);
    expect(clone).toMatchObject({ branch: 'refs/heads/master', sha: tips.master });
    expect(clone.stderr).not.toMatch(/warning/i);
  });

  it('among several first branches without HEAD’s own: master before the others; else the first in byte order', async () => {
    const withMaster = await pushed(['feature', 'master', 'alpha']);
    expect((await api(bed.a, 'GET', `/${withMaster.repo}/api/refs`)).body).toEqual({ head: { name: 'refs/heads/master', sha: withMaster.tips.master } });
    const without = await pushed(['zeta', 'beta']);
    expect((await api(bed.a, 'GET', `/${without.repo}/api/refs`)).body).toEqual({ head: { name: 'refs/heads/beta', sha: without.tips.beta } });
    // HEAD's own branch among them: it stays, whatever else comes.
    const withMain = await pushed(['master', 'main']);
    expect((await api(bed.a, 'GET', `/${withMain.repo}/api/refs`)).body).toEqual({ head: { name: 'refs/heads/main', sha: withMain.tips.main } });
  });

  it('a later push leaves HEAD alone', async () => {
    const { repo, work, tips } = await pushed(['master']);
    await bed.git.run(['checkout', '-q', '-b', 'main'], { cwd: work });
    await bed.git.run(['push', '-q', bed.remote(bed.a, repo), 'main'], { cwd: work });
    expect((await api(bed.b, 'GET', `/${repo}/api/refs`)).body).toEqual({ head: { name: 'refs/heads/master', sha: tips.master } });
  });

  it('PUT /api/refs retargets HEAD with no log entry; the other instance’s cached copy and its ETag follow', async () => {
    const { repo, tips } = await pushed(['main', 'dev']);
    // b's copy is synced at this seq before the retarget: it must follow a change that brings no new seq.
    expect((await cloneHead(bed.b, repo)).branch).toBe('refs/heads/main');
    const before = await fetch(`${bed.b.url}/${repo}/api/refs`, { headers: { authorization: `Bearer ${bed.token}` } });
    const etag = before.headers.get('etag') as string;
    const store = new RepoStore({ store: new S3ObjectStore({ config: bed.setup.s3, bucket: bed.setup.bucket }) });
    const seq = (await store.readHead(repo)).seq;

    expect(await api(bed.a, 'PUT', `/${repo}/api/refs`, { branch: 'dev' })).toEqual({ status: 200, body: { head: { name: 'refs/heads/dev', sha: tips.dev } } });
    const cached = await fetch(`${bed.b.url}/${repo}/api/refs`, { headers: { authorization: `Bearer ${bed.token}`, 'if-none-match': etag } });
    expect(cached.status).toBe(200);
    expect(await cached.json()).toEqual({ head: { name: 'refs/heads/dev', sha: tips.dev } });
    expect((await api(bed.b, 'GET', `/${repo}/api`)).body).toMatchObject({ head: { name: 'refs/heads/dev', sha: tips.dev } });
    expect(await cloneHead(bed.b, repo)).toMatchObject({ branch: 'refs/heads/dev', sha: tips.dev });
    // No log entry (so no event): the seq is the push's, the manifest's HEAD the new one.
    expect(await store.readHead(repo, { fresh: true })).toMatchObject({ seq, headRef: 'refs/heads/dev' });

    // The same again is no change; a branch that does not exist, a bad name, a read token and unknown fields are refused.
    expect((await api(bed.b, 'PUT', `/${repo}/api/refs`, { branch: 'dev' })).status).toBe(200);
    expect(await api(bed.a, 'PUT', `/${repo}/api/refs`, { branch: 'nope' })).toMatchObject({ status: 404, body: { error: 'ref_not_found' } });
    expect((await api(bed.a, 'PUT', `/${repo}/api/refs`, { branch: 'a..b' })).status).toBe(400);
    expect((await api(bed.a, 'PUT', `/${repo}/api/refs`, { branch: 'main', extra: 1 })).status).toBe(400);
    const reader = mintToken({ sub: 'viewer', scopes: ['read'] }, bed.setup.tokenSecret);
    expect((await api(bed.a, 'PUT', `/${repo}/api/refs`, { branch: 'main' }, reader)).status).toBe(403);
    expect((await api(bed.a, 'GET', `/${repo}/api/refs`)).body).toEqual({ head: { name: 'refs/heads/dev', sha: tips.dev } });
  });

  it('an empty repository may name the branch its first push will bring', async () => {
    const repo = await bed.createRepo();
    expect(await api(bed.a, 'PUT', `/${repo}/api/refs`, { branch: 'trunk' })).toEqual({ status: 200, body: { head: null } });
    const work = await bed.git.workdir(`head-empty-${randomBytes(4).toString('hex')}`);
    await bed.git.run(['init', '-q', '-b', 'trunk'], { cwd: work });
    const trunk = await bed.git.commit(work, 'trunk', { 'a.txt': 'a\n' });
    await bed.git.run(['checkout', '-q', '-b', 'main'], { cwd: work });
    await bed.git.run(['push', '-q', bed.remote(bed.b, repo), 'trunk', 'main'], { cwd: work });
    expect((await api(bed.a, 'GET', `/${repo}/api/refs`)).body).toEqual({ head: { name: 'refs/heads/trunk', sha: trunk } });
  });
});
