// The JSON API's ref writes through two cw-git instances on one bucket: branches created, moved and deleted
// with compare-and-swap, an annotated tag the stock git client fetches, the write scope enforced, and each write
// in the log as a `ref_update` entry with its principal.
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { mintToken } from '../git-server/auth/index.ts';
import { gitServiceConfig } from './harness/git-service.ts';
import { useGitTestbed } from './harness/git-testbed.ts';

const bed = useGitTestbed();
const ZERO = '0'.repeat(40);

async function api(service: { url: string }, method: string, path: string, body?: unknown, token = bed.token): Promise<Response> {
  return fetch(`${service.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function errorOf(response: Response): Promise<{ error: string; message: string; retryable: boolean }> {
  return (await response.json()) as { error: string; message: string; retryable: boolean };
}

async function cwGit(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['bin/cw-git.ts', ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      error ? reject(new Error(`cw-git ${args.join(' ')}: ${stderr}`)) : resolve(stdout),
    );
  });
}

/** A repository with two commits on main, pushed through instance a; answers both oids. */
async function seeded(): Promise<{ repo: string; first: string; second: string }> {
  const repo = await bed.createRepo();
  const work = await bed.git.workdir(`write-refs-${repo.split('/')[1]}`);
  await bed.git.run(['init', '-q', '-b', 'main'], { cwd: work });
  const first = await bed.git.commit(work, 'first', { 'README.md': '# one\n' });
  const second = await bed.git.commit(work, 'second', { 'README.md': '# two\n' });
  await bed.git.run(['push', '-q', bed.remote(bed.a, repo), 'main'], { cwd: work });
  return { repo, first, second };
}

describe('repository JSON API: ref writes', () => {
  it('creates, moves and deletes a branch with compare-and-swap, each write read at once through the other instance', async () => {
    const { repo, first, second } = await seeded();

    const created = await api(bed.a, 'PUT', `/${repo}/api/refs/heads/feature/x`, { target: 'main~1', expected_old_oid: ZERO });
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ ref: 'refs/heads/feature/x', oid: first, seq: 2 });
    expect(await (await api(bed.b, 'GET', `/${repo}/api/refs/branches?prefix=feature`)).json()).toEqual({ refs: [{ name: 'feature/x', sha: first }], more: false });

    // Must not exist, but does: 409 naming where it is.
    const exists = await api(bed.b, 'PUT', `/${repo}/api/refs/heads/feature/x`, { target: 'main', expected_old_oid: ZERO });
    expect(exists.status).toBe(409);
    expect(await exists.json()).toEqual({ error: 'ref_mismatch', current_oid: first, message: `refs/heads/feature/x is at ${first}.`, retryable: false });

    const moved = await api(bed.b, 'PUT', `/${repo}/api/refs/heads/feature/x`, { target: second, expected_old_oid: first });
    expect(moved.status).toBe(200);
    expect(await moved.json()).toEqual({ ref: 'refs/heads/feature/x', oid: second, seq: 3 });
    // Stale even where the ref already is at the target: a create-only write, or one expecting where it was.
    for (const expected of [ZERO, first]) {
      const already = await api(bed.a, 'PUT', `/${repo}/api/refs/heads/feature/x`, { target: second, expected_old_oid: expected });
      expect([already.status, ((await already.json()) as { current_oid: string }).current_oid], expected).toEqual([409, second]);
    }

    const stale = await api(bed.a, 'PUT', `/${repo}/api/refs/heads/feature/x`, { target: first, expected_old_oid: first });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toEqual({ error: 'ref_mismatch', current_oid: second, message: `refs/heads/feature/x is at ${second}.`, retryable: false });

    // No expected_old_oid: forced from wherever it is.
    const forced = await api(bed.a, 'PUT', `/${repo}/api/refs/heads/feature/x`, { target: first });
    expect(forced.status).toBe(200);
    expect(await forced.json()).toEqual({ ref: 'refs/heads/feature/x', oid: first, seq: 4 });

    const staleDelete = await api(bed.b, 'DELETE', `/${repo}/api/refs/heads/feature/x?expected_old_oid=${second}`);
    expect(staleDelete.status).toBe(409);
    expect(await staleDelete.json()).toMatchObject({ error: 'ref_mismatch', current_oid: first });
    expect((await api(bed.b, 'DELETE', `/${repo}/api/refs/heads/feature/x?expected_old_oid=${first}`)).status).toBe(204);
    expect((await api(bed.a, 'DELETE', `/${repo}/api/refs/heads/feature/x`)).status).toBe(404);
    // Expected somewhere, but gone: current_oid null.
    const gone = await api(bed.a, 'PUT', `/${repo}/api/refs/heads/feature/x`, { target: first, expected_old_oid: first });
    expect(await gone.json()).toEqual({ error: 'ref_mismatch', current_oid: null, message: 'refs/heads/feature/x does not exist.', retryable: false });
    expect(await (await api(bed.a, 'GET', `/${repo}/api/refs/branches`)).json()).toEqual({ refs: [{ name: 'main', sha: second }], more: false });
    expect(await bed.git.out(['ls-remote', bed.remote(bed.b, repo)])).not.toContain('feature');

    // What git would refuse, refused before anything is written.
    const bad = await api(bed.a, 'PUT', `/${repo}/api/refs/heads/bad..name`, { target: 'main' });
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).error).toBe('invalid_ref_name');
    const noCommit = await api(bed.a, 'PUT', `/${repo}/api/refs/heads/x`, { target: 'nowhere' });
    expect(noCommit.status).toBe(400);
    expect((await errorOf(noCommit)).error).toBe('invalid_target');
    expect((await api(bed.a, 'PUT', `/${repo}/api/refs/heads/x`, { target: 'main', extra: 1 })).status).toBe(400);
    expect((await api(bed.a, 'PUT', `/${repo}/api/refs/heads/x`, { target: 'main', expected_old_oid: 'abc' })).status).toBe(400);
    expect((await api(bed.a, 'PUT', `/nobody/missing-${repo.split('/')[1]}/api/refs/heads/x`, { target: 'main' })).status).toBe(404);
  });

  it('creates lightweight and annotated tags that git fetches, refusing an existing one', async () => {
    const { repo, first, second } = await seeded();
    const light = await api(bed.a, 'PUT', `/${repo}/api/refs/tags/v0`, { target: first });
    expect(light.status).toBe(201);
    expect(await light.json()).toEqual({ ref: 'refs/tags/v0', oid: first, seq: 2 });

    const tagger = { name: 'Ada Lovelace', email: 'ada@example.test', when: '2024-05-01T12:00:00Z' };
    const annotated = await api(bed.b, 'POST', `/${repo}/api/tags`, { name: 'v1.0', target: 'main', message: 'Release 1.0\n\nThe first one.', tagger });
    expect(annotated.status).toBe(201);
    const body = (await annotated.json()) as { ref: string; oid: string; peeled: string; seq: number };
    expect(body).toEqual({ ref: 'refs/tags/v1.0', oid: expect.stringMatching(/^[0-9a-f]{40}$/), peeled: second, seq: 3 });
    expect(body.oid).not.toBe(second);

    const again = await api(bed.a, 'POST', `/${repo}/api/tags`, { name: 'v1.0', target: first, message: 'again', tagger });
    expect(again.status).toBe(409);
    expect((await errorOf(again)).error).toBe('tag_exists');

    const clone = await bed.git.workdir(`write-tags-clone-${repo.split('/')[1]}`);
    await bed.git.run(['clone', '-q', bed.remote(bed.a, repo), clone]);
    const shown = await bed.git.out(['cat-file', '-p', 'v1.0'], clone);
    expect(shown).toContain(`object ${second}`);
    expect(shown).toContain('tag v1.0');
    expect(shown).toContain(`tagger Ada Lovelace <ada@example.test> ${Date.parse(tagger.when) / 1000} +0000`);
    expect(shown).toContain('Release 1.0\n\nThe first one.');
    await bed.git.run(['fsck', '--strict'], { cwd: clone });
    expect(await bed.git.out(['rev-parse', 'v0'], clone)).toBe(first);
    expect(await (await api(bed.b, 'GET', `/${repo}/api/refs/tags`)).json()).toEqual({
      refs: [
        { name: 'v0', sha: first },
        { name: 'v1.0', sha: body.oid, peeled: second },
      ],
      more: false,
    });
    // A plain string prefix, as git's ref-prefix: `v1.` ends mid-segment and still finds `v1.0`.
    expect(await (await api(bed.a, 'GET', `/${repo}/api/refs/tags?prefix=v1.`)).json()).toEqual({ refs: [{ name: 'v1.0', sha: body.oid, peeled: second }], more: false });

    expect((await api(bed.a, 'DELETE', `/${repo}/api/refs/tags/v1.0?expected_old_oid=${body.oid}`)).status).toBe(204);
    const badTagger = await api(bed.a, 'POST', `/${repo}/api/tags`, { name: 'v2', target: 'main', message: 'm', tagger: { name: 'a <b>', email: 'x' } });
    expect(badTagger.status).toBe(400);
    // Dates as a commit takes them: RFC 3339 with an offset, not before 1970 (git's mktag cannot record one).
    for (const when of ['1960-01-01T00:00:00Z', '1', '2024-05-01T12:00:00']) {
      const badDate = await api(bed.a, 'POST', `/${repo}/api/tags`, { name: 'v2', target: 'main', message: 'm', tagger: { name: 'a', email: 'a@b', when } });
      expect(badDate.status, when).toBe(400);
    }
  });

  it('needs the write scope, and logs each write as a ref_update entry with its principal', async () => {
    const { repo, first } = await seeded();
    const readOnly = mintToken({ sub: 'reader', scopes: ['read'] }, bed.setup.tokenSecret);
    const refused = await api(bed.a, 'PUT', `/${repo}/api/refs/heads/r`, { target: first }, readOnly);
    expect(refused.status).toBe(403);
    expect((await errorOf(refused)).error).toBe('forbidden');
    expect((await api(bed.a, 'DELETE', `/${repo}/api/refs/heads/main`, undefined, readOnly)).status).toBe(403);
    expect((await api(bed.a, 'POST', `/${repo}/api/tags`, { name: 't', target: 'main', message: 'm', tagger: { name: 'a', email: 'b' } }, readOnly)).status).toBe(403);
    expect((await api(bed.a, 'GET', `/${repo}/api/refs/branches`, undefined, readOnly)).status).toBe(200);

    expect((await api(bed.a, 'PUT', `/${repo}/api/refs/heads/r`, { target: first })).status).toBe(201);
    const config = await gitServiceConfig(bed.setup);
    const log = (await cwGit(['wal', 'ls', repo], { ...config.env, CW_GIT_CONFIG: config.path })).trimEnd().split('\n');
    expect(log.slice(1).map((line) => line.trim().split(/\s+/).slice(0, 2))).toEqual([
      ['1', 'push'],
      ['2', 'ref_update'],
    ]);
    expect(log[2]).toContain('ada');
  });
});
