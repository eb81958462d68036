// `POST /api/initialize` and `/api/import` through two cw-git instances on one bucket: a pristine repository gets
// one root commit with an allow-listed template's tree, or the whole history of an allow-listed source (seen by
// the stock git client); retries replay, other keys conflict.
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { mintToken } from '../git-server/auth/index.ts';
import { useGitTestbed } from './harness/git-testbed.ts';

const suffix = randomBytes(4).toString('hex');
const template = `e2e/tpl-${suffix}`;
const lfsTemplate = `e2e/tpl-lfs-${suffix}`;
const importSource = `e2e/src-${suffix}`;
const bed = useGitTestbed({ initializeSources: [template, lfsTemplate], importSources: [importSource] });
const who = { name: 'Ada', email: 'ada@example.com', when: '2026-03-01T09:00:00Z' };

type Answer = { status: number; body: Record<string, unknown> };

async function call(service: { url: string }, path: string, body?: unknown, token = bed.token): Promise<Answer> {
  const response = await fetch(`${service.url}/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A repository named `repo` (PUT), with `commits` pushed in order on main; answers the commits. */
async function pushed(repo: string, commits: Record<string, string>[]): Promise<string[]> {
  const response = await fetch(`${bed.a.url}/${repo}`, { method: 'PUT', headers: { authorization: `Bearer ${bed.token}` } });
  expect(response.status).toBe(201);
  const work = await bed.git.workdir(`seed-${repo.split('/')[1]}`);
  await bed.git.run(['init', '-q', '-b', 'main'], { cwd: work });
  const oids: string[] = [];
  for (const [i, files] of commits.entries()) oids.push(await bed.git.commit(work, `template ${i}`, files));
  await bed.git.run(['push', '-q', bed.remote(bed.a, repo), 'main'], { cwd: work });
  return oids;
}

let pinned = '';
beforeAll(async () => {
  const oids = await pushed(template, [{ 'README.md': '# template\n', 'src/index.ts': 'export {};\n' }, { 'src/app.ts': 'export const app = 1;\n' }]);
  pinned = oids[0] as string;
  await pushed(lfsTemplate, [{ 'big.bin': `version https://git-lfs.github.com/spec/v1\noid sha256:${'a'.repeat(64)}\nsize 12345\n` }]);
});

const request = (key: string, extra: Record<string, unknown> = {}) => ({
  source: { owner: 'e2e', repo: template.split('/')[1], commit_oid: pinned },
  operation_key: key,
  message: 'Initialize from the template\n',
  committer: who,
  ...extra,
});

describe('POST /api/initialize', () => {
  it('creates one root commit with the template tree; a retry replays; another key is 409', async () => {
    const repo = await bed.createRepo();
    const first = await call(bed.a, `${repo}/api/initialize`, request('init-1'));
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ ref: 'refs/heads/main', commit_oid: expect.stringMatching(/^[0-9a-f]{40}$/), tree_oid: expect.any(String), seq: expect.any(Number), replayed: false });

    const dir = await bed.git.workdir(`clone-${repo.split('/')[1]}`);
    await bed.git.run(['clone', '-q', bed.remote(bed.b, repo), dir]);
    expect(await bed.git.out(['rev-list', '--count', 'HEAD'], dir)).toBe('1');
    expect(await bed.git.out(['rev-parse', 'HEAD'], dir)).toBe(first.body.commit_oid);
    expect(await bed.git.out(['rev-parse', 'HEAD^{tree}'], dir)).toBe(first.body.tree_oid);
    expect(await bed.git.out(['ls-tree', '-r', '--name-only', 'HEAD'], dir)).toBe('README.md\nsrc/index.ts');
    expect(await bed.git.out(['log', '-1', '--format=%an|%aI|%(trailers:key=Cloudwright-Operation,valueonly)'], dir)).toBe('Ada|2026-03-01T09:00:00+00:00|init-1');
    await bed.git.run(['fsck', '--strict', '--no-dangling'], { cwd: dir });

    // The same request again, through the other instance: the first answer, replayed.
    const retry = await call(bed.b, `${repo}/api/initialize`, request('init-1'));
    expect(retry).toEqual({ status: 200, body: { ...first.body, replayed: true } });

    const other = await call(bed.a, `${repo}/api/initialize`, request('init-2'));
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('not_pristine');
    // The same key on another source commit is another request.
    const moved = await call(bed.a, `${repo}/api/initialize`, request('init-1', { source: { owner: 'e2e', repo: template.split('/')[1], commit_oid: 'b'.repeat(40) } }));
    expect(moved.status).toBe(409);
  });

  it('initializes another branch when asked', async () => {
    const repo = await bed.createRepo();
    const answer = await call(bed.a, `${repo}/api/initialize`, request('init-branch', { branch: 'trunk' }));
    expect(answer.status).toBe(201);
    expect(answer.body.ref).toBe('refs/heads/trunk');
  });

  it('refuses a source outside api.initialize_sources (403), an unknown commit (404), an LFS pointer (422), a read-only token (403)', async () => {
    const repo = await bed.createRepo();
    const outside = await call(bed.a, `${repo}/api/initialize`, request('k', { source: { owner: 'e2e', repo: 'elsewhere', commit_oid: pinned } }));
    expect(outside.status).toBe(403);
    expect(outside.body.error).toBe('source_not_allowed');

    const unknown = await call(bed.a, `${repo}/api/initialize`, request('k', { source: { owner: 'e2e', repo: template.split('/')[1], commit_oid: 'c'.repeat(40) } }));
    expect(unknown.status).toBe(404);

    const lfsHead = (await call(bed.a, `${lfsTemplate}/api`)).body as { head: { sha: string } };
    const lfs = await call(bed.a, `${repo}/api/initialize`, request('k', { source: { owner: 'e2e', repo: lfsTemplate.split('/')[1], commit_oid: lfsHead.head.sha } }));
    expect(lfs.status).toBe(422);
    expect(lfs.body.error).toBe('lfs_in_template');

    const reader = mintToken({ sub: 'reader', scopes: ['read'] }, bed.setup.tokenSecret);
    expect((await call(bed.a, `${repo}/api/initialize`, request('k'), reader)).status).toBe(403);
    // Nothing of it happened: the repository is still pristine.
    expect((await call(bed.a, `${repo}/api/initialize`, request('k'))).status).toBe(201);
  });
});

/** The refs of `repo` as `git clone --mirror` sees them (`<oid> <name>` lines), after `fsck --strict`. */
async function mirrored(repo: string): Promise<string> {
  const dir = await bed.git.workdir(`mirror-${repo.split('/')[1]}-${randomBytes(2).toString('hex')}`);
  await bed.git.run(['clone', '-q', '--mirror', bed.remote(bed.b, repo), dir]);
  await bed.git.run(['fsck', '--strict', '--no-dangling'], { cwd: dir });
  return bed.git.out(['for-each-ref', '--format=%(objectname) %(refname)'], dir);
}

describe('POST /api/import', () => {
  let work = '';
  beforeAll(async () => {
    const response = await fetch(`${bed.a.url}/${importSource}`, { method: 'PUT', headers: { authorization: `Bearer ${bed.token}` } });
    expect(response.status).toBe(201);
    work = await bed.git.workdir(`import-${suffix}`);
    await bed.git.run(['init', '-q', '-b', 'main'], { cwd: work });
    await bed.git.commit(work, 'one', { 'a.txt': 'a\n' });
    await bed.git.run(['tag', 'v1'], { cwd: work });
    await bed.git.run(['checkout', '-q', '-b', 'feature/x'], { cwd: work });
    await bed.git.commit(work, 'two', { 'b.txt': 'b\n' });
    await bed.git.run(['tag', '-a', '-m', 'release two', 'v2'], { cwd: work });
    await bed.git.run(['checkout', '-q', 'main'], { cwd: work });
    await bed.git.commit(work, 'three', { 'c.txt': 'c\n' });
    await bed.git.run(['push', '-q', bed.remote(bed.a, importSource), 'main', 'feature/x', 'v1', 'v2'], { cwd: work });
  });

  const resolve = async () => {
    const answer = await call(bed.a, `${importSource}/api/import/resolve`, { source: { owner: 'e2e', repo: importSource.split('/')[1] } });
    expect(answer.status).toBe(200);
    return answer.body;
  };

  it('imports every branch and tag; the mirror equals the source; the receipt is readable; a retry replays; another key is 409', async () => {
    const snapshot = await resolve();
    expect(snapshot).toMatchObject({
      source: { owner: 'e2e', repo: importSource.split('/')[1] },
      object_format: 'sha1',
      head: 'refs/heads/main',
      snapshot_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(Object.keys(snapshot.refs as object)).toEqual(['refs/heads/feature/x', 'refs/heads/main', 'refs/tags/v1', 'refs/tags/v2']);

    const repo = await bed.createRepo();
    const first = await call(bed.a, `${repo}/api/import`, { operation_key: 'imp-1', snapshot });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ operation_key: 'imp-1', request_hash: snapshot.snapshot_hash, snapshot, seq: expect.any(Number), replayed: false });
    expect(await mirrored(repo)).toBe(await mirrored(importSource));

    const { replayed: _, ...receipt } = first.body;
    const read = await call(bed.b, `${repo}/api/import/receipt?operation_key=imp-1&request_hash=${String(snapshot.snapshot_hash)}`);
    expect(read).toEqual({ status: 200, body: receipt });
    expect((await call(bed.b, `${repo}/api/import/receipt?operation_key=imp-2`)).status).toBe(404);

    const retry = await call(bed.b, `${repo}/api/import`, { operation_key: 'imp-1', snapshot });
    expect(retry).toEqual({ status: 200, body: { ...first.body, replayed: true } });
    const other = await call(bed.a, `${repo}/api/import`, { operation_key: 'imp-2', snapshot });
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('not_pristine');
  });

  it('refuses a stale snapshot (409), an edited one (400), a source outside api.import_sources (403), a read-only token (403)', async () => {
    const snapshot = await resolve();
    const repo = await bed.createRepo();
    const edited = { ...snapshot, refs: { ...(snapshot.refs as object), 'refs/heads/extra': 'a'.repeat(40) } };
    const invalid = await call(bed.a, `${repo}/api/import`, { operation_key: 'k', snapshot: edited });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toBe('invalid_snapshot');

    const outside = await call(bed.a, `${repo}/api/import/resolve`, { source: { owner: 'e2e', repo: template.split('/')[1] } });
    expect(outside.status).toBe(403);
    expect(outside.body.error).toBe('source_not_allowed');

    const reader = mintToken({ sub: 'reader', scopes: ['read'] }, bed.setup.tokenSecret);
    expect((await call(bed.a, `${repo}/api/import`, { operation_key: 'k', snapshot }, reader)).status).toBe(403);

    await bed.git.commit(work, 'four', { 'd.txt': 'd\n' });
    await bed.git.run(['push', '-q', bed.remote(bed.a, importSource), 'main'], { cwd: work });
    const stale = await call(bed.a, `${repo}/api/import`, { operation_key: 'k', snapshot });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toBe('snapshot_stale');
    // Resolved again, it imports.
    expect((await call(bed.a, `${repo}/api/import`, { operation_key: 'k', snapshot: await resolve() })).status).toBe(201);
  });
});
