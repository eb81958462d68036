// `POST /api/commits` through two cw-git instances on one bucket: file changes committed with no clone, seen by
// the stock git client and by the other instance at once; compare-and-swap on the branch head under contention.
import { describe, expect, it } from 'vitest';
import { mintToken } from '../git-server/auth/index.ts';
import { useGitTestbed } from './harness/git-testbed.ts';

const bed = useGitTestbed();
const who = { name: 'Ada', email: 'ada@example.com', when: '2026-02-01T10:00:00+01:00' };
const b64 = (text: string) => Buffer.from(text).toString('base64');

type Change = { op: 'upsert'; path: string; content: string; mode: string } | { op: 'delete'; path: string } | { op: 'rename'; from: string; to: string };
const upsert = (path: string, text: string, mode = '100644'): Change => ({ op: 'upsert', path, content: b64(text), mode });

async function post(service: { url: string }, repo: string, body: Record<string, unknown>, token = bed.token): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${service.url}/${repo}/api/commits`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const commitBody = (changes: Change[], extra: Record<string, unknown> = {}) => ({ branch: 'main', message: 'api commit\n', committer: who, changes, ...extra });

/** A repository whose `main` has one pushed commit; answers it and that commit. */
async function seeded(): Promise<{ repo: string; first: string }> {
  const repo = await bed.createRepo();
  const work = await bed.git.workdir(`seed-${repo.split('/')[1]}`);
  await bed.git.run(['init', '-q', '-b', 'main'], { cwd: work });
  const first = await bed.git.commit(work, 'first', { 'README.md': '# hello\n', 'docs/old.txt': 'old\n', 'gone.txt': 'bye\n' });
  await bed.git.run(['push', '-q', bed.remote(bed.a, repo), 'main'], { cwd: work });
  return { repo, first };
}

async function head(service: { url: string }, repo: string): Promise<string> {
  const response = await fetch(`${service.url}/${repo}/api`, { headers: { authorization: `Bearer ${bed.token}` } });
  return ((await response.json()) as { head: { sha: string } }).head.sha;
}

async function clone(repo: string, name: string): Promise<string> {
  const dir = await bed.git.workdir(name);
  await bed.git.run(['clone', '-q', bed.remote(bed.b, repo), dir]);
  return dir;
}

describe('POST /api/commits', () => {
  it('commits three files in one request; a clone shows contents and modes and fsck --strict is clean', async () => {
    const { repo, first } = await seeded();
    const answer = await post(
      bed.a,
      repo,
      commitBody([upsert('src/main.ts', 'export {};\n'), upsert('bin/run.sh', '#!/bin/sh\necho hi\n', '100755'), upsert('latest', 'README.md', '120000')], { expected_head_oid: first }),
    );
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({ ref: 'refs/heads/main', oid: expect.stringMatching(/^[0-9a-f]{40}$/), commit_oid: answer.body.oid, seq: expect.any(Number) });

    const dir = await clone(repo, `clone-${repo.split('/')[1]}`);
    expect(await bed.git.out(['rev-parse', 'HEAD'], dir)).toBe(answer.body.oid);
    expect(await bed.git.out(['rev-parse', 'HEAD^'], dir)).toBe(first);
    const entries = (await bed.git.out(['ls-tree', '-r', 'HEAD'], dir)).split('\n').map((l) => l.replace(/ blob \w+/, ''));
    expect(entries).toEqual(['100644\tREADME.md', '100755\tbin/run.sh', '100644\tdocs/old.txt', '100644\tgone.txt', '120000\tlatest', '100644\tsrc/main.ts']);
    expect(await bed.git.out(['show', 'HEAD:src/main.ts'], dir)).toBe('export {};');
    expect(await bed.git.out(['show', 'HEAD:bin/run.sh'], dir)).toBe('#!/bin/sh\necho hi');
    expect(await bed.git.out(['show', 'HEAD:latest'], dir)).toBe('README.md');
    expect(await bed.git.out(['log', '-1', '--format=%an <%ae> %ad|%cn|%s', '--date=iso-strict'], dir)).toBe('Ada <ada@example.com> 2026-02-01T10:00:00+01:00|Ada|api commit');
    await bed.git.run(['fsck', '--strict', '--no-dangling'], { cwd: dir });
  });

  it('deletes and renames, with a separate author; refuses a stale expected_head_oid with 409 naming the head', async () => {
    const { repo, first } = await seeded();
    const author = { name: 'Bo', email: 'bo@example.com', when: '2026-01-15T08:00:00Z' };
    const answer = await post(
      bed.a,
      repo,
      commitBody(
        [
          { op: 'delete', path: 'gone.txt' },
          { op: 'rename', from: 'docs/old.txt', to: 'docs/new/old.txt' },
        ],
        { author },
      ),
    );
    expect(answer.status).toBe(201);
    const dir = await clone(repo, `clone-dr-${repo.split('/')[1]}`);
    expect((await bed.git.out(['ls-tree', '-r', '--name-only', 'HEAD'], dir)).split('\n')).toEqual(['README.md', 'docs/new/old.txt']);
    expect(await bed.git.out(['show', 'HEAD:docs/new/old.txt'], dir)).toBe('old');
    expect(await bed.git.out(['log', '-1', '--format=%an|%cn'], dir)).toBe('Bo|Ada');

    const stale = await post(bed.b, repo, commitBody([upsert('x.txt', 'x\n')], { expected_head_oid: first }));
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual({ error: 'ref_mismatch', current_oid: answer.body.oid, message: `refs/heads/main is at ${String(answer.body.oid)}.`, retryable: false });
    expect(await head(bed.b, repo)).toBe(answer.body.oid);
  });

  it('refuses an empty change unless allow_empty', async () => {
    const { repo, first } = await seeded();
    const same = [upsert('README.md', '# hello\n')];
    const refused = await post(bed.a, repo, commitBody(same));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'empty_commit' });
    expect((await post(bed.a, repo, commitBody([]))).status).toBe(400);
    const allowed = await post(bed.a, repo, commitBody(same, { allow_empty: true }));
    expect(allowed.status).toBe(201);
    const dir = await clone(repo, `clone-empty-${repo.split('/')[1]}`);
    expect(await bed.git.out(['rev-parse', 'HEAD^{tree}'], dir)).toBe(await bed.git.out(['rev-parse', `${first}^{tree}`], dir));
  });

  it('refuses bad paths, missing files and malformed bodies with 400, an unknown branch with 404, too many changes with 413', async () => {
    const { repo, first } = await seeded();
    for (const path of ['../escape', '/abs', 'a//b', '.git/config', 'x/.git/y', 'a/./b', 'docs/.git./x', '.g\u200cit/hooks/post-checkout']) {
      const answer = await post(bed.a, repo, commitBody([upsert(path, 'x')]));
      expect(answer.status, path).toBe(400);
      expect(answer.body, path).toMatchObject({ error: 'invalid_path' });
    }
    expect(await post(bed.a, repo, commitBody([upsert('a', 'x'), upsert('a/b', 'y')]))).toMatchObject({ status: 400, body: { error: 'invalid_change', message: expect.stringContaining('"a/b"') } });
    expect(await post(bed.a, repo, commitBody([{ op: 'delete', path: 'missing.txt' }]))).toMatchObject({ status: 400, body: { message: expect.stringContaining('"missing.txt"') } });
    // Each change is checked against the kind its op names, and the message says what that kind lacks.
    expect(await post(bed.a, repo, commitBody([{ op: 'upsert', path: 'a', content: 'x', mode: '100600' } as Change]))).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', message: 'body/changes/0/mode must be equal to one of the allowed values: 100644, 100755, 120000' },
    });
    expect(await post(bed.a, repo, commitBody([{ op: 'upsert', path: 'a', content: 'x' } as Change]))).toMatchObject({
      status: 400,
      body: { message: "body/changes/0 must have required property 'mode'" },
    });
    expect(await post(bed.a, repo, commitBody([{ op: 'copy', path: 'a' } as unknown as Change]))).toMatchObject({
      status: 400,
      body: { message: 'body/changes/0/op must be one of: upsert, delete, rename' },
    });
    expect((await post(bed.a, repo, { ...commitBody([]), committer: { ...who, when: 'yesterday' }, allow_empty: true })).status).toBe(400);
    expect((await post(bed.a, repo, { ...commitBody([]), committer: { ...who, when: '1969-07-20T20:17:00Z' }, allow_empty: true })).status).toBe(400);
    // Content git's own object check refuses (a submodule URL that is an option) is the request's fault: 400, not 500.
    const submodule = '[submodule "x"]\n\tpath = x\n\turl = --upload-pack=touch /tmp/pwned\n';
    expect(await post(bed.a, repo, commitBody([upsert('.gitmodules', submodule)]))).toMatchObject({
      status: 400,
      body: { error: 'invalid_change', message: expect.stringContaining('gitmodulesUrl') },
    });
    expect(await post(bed.a, repo, commitBody([upsert('x', 'x')], { branch: 'nope' }))).toMatchObject({
      status: 404,
      body: { error: 'revision_not_found', message: expect.stringContaining('"nope"') },
    });
    const many = Array.from({ length: 1001 }, (_, i) => upsert(`f/${i}`, ''));
    expect(await post(bed.a, repo, commitBody(many))).toMatchObject({ status: 413, body: { error: 'too_large' } });
    expect(await head(bed.a, repo)).toBe(first);
  });

  it('writes the first commit of a pristine repository: a clone checks it out with HEAD resolving, no warning', async () => {
    const repo = await bed.createRepo();
    const answer = await post(bed.a, repo, commitBody([upsert('README.md', '# first\n')]));
    expect(answer).toMatchObject({ status: 201, body: { ref: 'refs/heads/main', oid: expect.stringMatching(/^[0-9a-f]{40}$/), seq: 1 } });

    const dir = await bed.git.workdir(`clone-first-${repo.split('/')[1]}`);
    const cloned = await bed.git.run(['clone', bed.remote(bed.b, repo), dir]);
    expect(cloned.stderr.toString()).not.toMatch(/warning/i);
    expect(await bed.git.out(['rev-parse', 'HEAD'], dir)).toBe(answer.body.oid);
    expect(await bed.git.out(['rev-list', '--count', 'HEAD'], dir)).toBe('1');
    expect(await bed.git.out(['show', 'HEAD:README.md'], dir)).toBe('# first');
    await bed.git.run(['fsck', '--strict'], { cwd: dir });
  });

  it('a pristine repository’s first commit on another branch makes it the default branch', async () => {
    const repo = await bed.createRepo();
    const answer = await post(bed.a, repo, commitBody([upsert('a.txt', 'a\n')], { branch: 'trunk' }));
    expect(answer).toMatchObject({ status: 201, body: { ref: 'refs/heads/trunk' } });
    const dir = await clone(repo, `clone-trunk-${repo.split('/')[1]}`);
    expect(await bed.git.out(['symbolic-ref', 'HEAD'], dir)).toBe('refs/heads/trunk');
    expect(await bed.git.out(['rev-parse', 'HEAD'], dir)).toBe(answer.body.oid);
  });

  it('creates a branch from base, or with expected_head_oid of zeros; refuses creating one that exists', async () => {
    const { repo, first } = await seeded();
    const ZERO = '0'.repeat(40);
    const fromBase = await post(bed.a, repo, commitBody([upsert('feature.txt', 'f\n')], { branch: 'feature/x', base: 'main' }));
    expect(fromBase).toMatchObject({ status: 201, body: { ref: 'refs/heads/feature/x' } });
    const dir = await clone(repo, `clone-base-${repo.split('/')[1]}`);
    await bed.git.run(['fetch', '-q', 'origin', 'feature/x'], { cwd: dir });
    expect(await bed.git.out(['rev-parse', 'FETCH_HEAD^'], dir)).toBe(first);

    // zeros and base: the same creation; zeros alone: a root commit (an orphan branch, asked for explicitly).
    const both = await post(bed.b, repo, commitBody([upsert('b.txt', 'b\n')], { branch: 'b', base: first, expected_head_oid: ZERO }));
    expect(both.status).toBe(201);
    const orphan = await post(bed.b, repo, commitBody([upsert('o.txt', 'o\n')], { branch: 'orphan', expected_head_oid: ZERO }));
    expect(orphan.status).toBe(201);
    await bed.git.run(['fetch', '-q', 'origin', 'b', 'orphan'], { cwd: dir });
    expect(await bed.git.out(['rev-parse', `${String(both.body.oid)}^`], dir)).toBe(first);
    expect(await bed.git.out(['rev-list', '--count', String(orphan.body.oid)], dir)).toBe('1');

    // The branch exists now: creating it again is a stale expectation, with where it is.
    for (const extra of [{ base: 'main' }, { expected_head_oid: ZERO }]) {
      expect(await post(bed.a, repo, commitBody([upsert('again.txt', 'x\n')], { branch: 'feature/x', ...extra }))).toMatchObject({
        status: 409,
        body: { error: 'ref_mismatch', current_oid: fromBase.body.oid },
      });
    }
    // A branch that does not exist cannot be where a non-zero expectation says; base must name a commit; base
    // contradicts a non-zero expectation; a branch beside one of its own directory's name conflicts.
    expect(await post(bed.a, repo, commitBody([upsert('x', 'x')], { branch: 'nope', expected_head_oid: first }))).toMatchObject({ status: 409, body: { error: 'ref_mismatch', current_oid: null } });
    expect(await post(bed.a, repo, commitBody([upsert('x', 'x')], { branch: 'nope', base: 'no-such-rev' }))).toMatchObject({ status: 404, body: { error: 'revision_not_found' } });
    expect((await post(bed.a, repo, commitBody([upsert('x', 'x')], { branch: 'nope', base: 'main', expected_head_oid: first }))).status).toBe(400);
    expect(await post(bed.a, repo, commitBody([upsert('x', 'x')], { branch: 'feature', base: 'main' }))).toMatchObject({ status: 409, body: { error: 'ref_name_conflict' } });
    expect(await head(bed.a, repo)).toBe(first);
  });

  it('without expected_head_oid, concurrent commits all land on the latest head however many races they lose', { timeout: 120_000 }, async () => {
    const { repo, first } = await seeded();
    const writers = 10;
    const answers = await Promise.all(
      Array.from({ length: writers }, (_, i) => post(i % 2 === 0 ? bed.a : bed.b, repo, { ...commitBody([upsert(`forced/${i}.txt`, `${i}\n`)]), message: `forced ${i}\n` })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: writers }, () => 201));
    const dir = await clone(repo, `clone-forced-${repo.split('/')[1]}`);
    const history = (await bed.git.out(['rev-list', '--first-parent', `${first}..HEAD`], dir)).split('\n');
    expect(new Set(history)).toEqual(new Set(answers.map((a) => a.body.oid)));
    expect((await bed.git.out(['ls-tree', '--name-only', 'HEAD', 'forced/'], dir)).split('\n')).toHaveLength(writers);
  });

  it('without expected_head_oid, a change another writer made impossible meanwhile answers 409 path_conflict with the path', { timeout: 120_000 }, async () => {
    const { repo } = await seeded();
    // Writers deleting one file at once: one wins; one that loses the race finds the file gone on the new head
    // (409, a conflict with another's write); one that starts after the win finds it gone at once (400, as asked).
    let conflicts = 0;
    for (let round = 0; round < 5 && conflicts === 0; round++) {
      const doomed = `doomed-${round}.txt`;
      const created = await post(bed.a, repo, commitBody([upsert(doomed, 'x\n')]));
      expect(created.status).toBe(201);
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => post(i % 2 === 0 ? bed.a : bed.b, repo, commitBody([{ op: 'delete', path: doomed }]))));
      expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
      for (const answer of answers.filter((a) => a.status !== 201)) {
        if (answer.status === 409) {
          expect(answer.body).toMatchObject({ error: 'path_conflict', conflicts: [doomed], current_oid: expect.stringMatching(/^[0-9a-f]{40}$/), retryable: false });
          conflicts++;
        } else expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_change' } });
      }
    }
    expect(conflicts).toBeGreaterThan(0);
  });

  it('refuses a read-only token with 403', async () => {
    const { repo, first } = await seeded();
    const reader = mintToken({ sub: 'reader', scopes: ['read'] }, bed.setup.tokenSecret);
    expect((await post(bed.a, repo, commitBody([upsert('x', 'x')]), reader)).status).toBe(403);
    expect(await head(bed.a, repo)).toBe(first);
  });

  it('concurrent commits through the two instances on one expected head: exactly one wins each round, none is lost', async () => {
    const { repo } = await seeded();
    const winners: string[] = [];
    for (let round = 0; round < 5; round++) {
      const expected = await head(bed.a, repo);
      const answers = await Promise.all([bed.a, bed.b].map((service, i) => post(service, repo, commitBody([upsert(`round-${round}-${i}.txt`, `${round} ${i}\n`)], { expected_head_oid: expected }))));
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
      const won = answers.find((a) => a.status === 201)!;
      winners.push(String(won.body.oid));
      // A write through one instance is what the other answers at once.
      expect(await head(bed.b, repo)).toBe(won.body.oid);
      expect(await head(bed.a, repo)).toBe(won.body.oid);
    }
    const dir = await clone(repo, `clone-race-${repo.split('/')[1]}`);
    expect((await bed.git.out(['rev-list', '--first-parent', 'HEAD~5..HEAD'], dir)).split('\n').reverse()).toEqual(winners);
    const files = (await bed.git.out(['ls-tree', '--name-only', 'HEAD'], dir)).split('\n').filter((f) => f.startsWith('round-'));
    expect(files).toHaveLength(5);
    await bed.git.run(['fsck', '--strict', '--no-dangling'], { cwd: dir });
  });

  it('a commit through instance a is readable through b at once (blob and summary)', async () => {
    const { repo } = await seeded();
    const answer = await post(bed.a, repo, commitBody([upsert('fresh.txt', 'fresh\n')]));
    expect(answer.status).toBe(201);
    expect(await head(bed.b, repo)).toBe(answer.body.oid);
    const blob = await fetch(`${bed.b.url}/${repo}/api/blob/main/fresh.txt?raw=1`, { headers: { authorization: `Bearer ${bed.token}` } });
    expect(blob.status).toBe(200);
    expect(await blob.text()).toBe('fresh\n');
  });
});
