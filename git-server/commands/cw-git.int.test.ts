// The real `cw-git` binary (`node bin/cw-git.ts ...`) against MinIO, on a repository published through
// RepoStore with real packs built by git.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runGit } from '../../src/git/run-git.ts';
import { ScratchRepo } from '../../src/git/testing/scratch-repo.ts';
import { S3ObjectStore } from '../../src/object-store/s3-object-store.ts';
import { parseRepoPath, pendingKey, RepoStore, zeroOid, type RefUpdate } from '../../src/repo-store/index.ts';
import { verifyToken } from '../auth/index.ts';
import { gitServiceConfig, newTokenSecret } from '../../e2e/harness/git-service.ts';

const BIN = resolve(import.meta.dirname, '../../bin/cw-git.ts');
const Z = zeroOid('sha1');
const state = mkdtempSync(join(tmpdir(), 'cw-git-cli-'));
let config: { path: string; env: Record<string, string>; dir: string; tokenSecret: string };
let s3: S3ObjectStore;
let repos: RepoStore;
let work: ScratchRepo;
const repo = `cli${Math.random().toString(36).slice(2, 8)}/app`;
const commits: Record<string, string> = {};

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', HOME: state, ...config.env, ...env }, timeout: 30_000 }, (err, stdout, stderr) => {
      done({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr });
    });
  });
}

const withConfig = (...args: string[]) => cli([...args, '--config', config.path]);

async function push(updates: RefUpdate[], wants: string[], haves: string[]): Promise<void> {
  const built = await work.pack(wants, haves);
  const result = await repos.publish(repo, { kind: 'push', refUpdates: updates, pack: { body: built.pack, idx: built.idx }, pusher: 'alice', requestId: 'req-1', atomic: true });
  expect(result.outcome).toBe('published');
}

beforeAll(async () => {
  const tokenSecret = newTokenSecret();
  config = { ...(await gitServiceConfig({ s3: inject('s3'), bucket: inject('bucket'), tokenSecret })), tokenSecret };
  s3 = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket'), registry: new Registry() });
  repos = new RepoStore({ store: s3, registry: new Registry() });
  work = await ScratchRepo.create();
  await repos.createRepo(repo);
  commits.a = await work.commit('main', { 'README.md': 'hello\n' });
  commits.v1 = await work.tag('v1', commits.a);
  await push(
    [
      { ref: 'refs/heads/main', old: Z, new: commits.a },
      { ref: 'refs/tags/v1', old: Z, new: commits.v1 },
    ],
    [commits.a, commits.v1],
    [],
  );
  commits.b = await work.commit('main', { 'src/x.ts': 'export {};\n' });
  commits.c = await work.commit('topic', { 'topic.txt': 'topic\n' }, { from: commits.a });
  await push(
    [
      { ref: 'refs/heads/main', old: commits.a, new: commits.b },
      { ref: 'refs/heads/topic', old: Z, new: commits.c },
    ],
    [commits.b, commits.c],
    [commits.a],
  );
  commits.d = await work.commit('main', { 'README.md': 'hello again\n' });
  await push(
    [
      { ref: 'refs/heads/main', old: commits.b, new: commits.d },
      { ref: 'refs/heads/topic', old: commits.c, new: Z },
    ],
    [commits.d],
    [commits.b, commits.c],
  );
});

afterAll(async () => {
  s3?.destroy();
  await work?.remove();
  rmSync(state, { recursive: true, force: true });
  if (config) rmSync(config.dir, { recursive: true, force: true });
});

describe('cw-git wal', () => {
  it('ls prints one line per entry (seq, kind, time, pusher, ref updates), and pages with --from', async () => {
    const all = await withConfig('wal', 'ls', repo);
    expect(all).toMatchObject({ code: 0, stderr: '' });
    const lines = all.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^\s+SEQ\s+KIND\s+TIME\s+PUSHER\s+REF UPDATES$/);
    expect(lines.slice(1).map((l) => l.trim().split(/\s+/).slice(0, 2))).toEqual([
      ['1', 'push'],
      ['2', 'push'],
      ['3', 'push'],
    ]);
    expect(lines[3]).toMatch(/alice\s+refs\/heads\/main [0-9a-f]{10}\.\.[0-9a-f]{10}, refs\/heads\/topic deleted \(was [0-9a-f]{10}\)$/);
    expect(lines[1]).toContain(`refs/tags/v1 created ${commits.v1!.slice(0, 10)}`);

    const json = await withConfig('wal', 'ls', repo, '--from', '2', '--json');
    const entries = json.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: string; refUpdates: RefUpdate[] });
    expect(entries.map((e) => e.seq)).toEqual(['2', '3']);
    expect(entries[1]!.refUpdates).toEqual([
      { ref: 'refs/heads/main', old: commits.b, new: commits.d },
      { ref: 'refs/heads/topic', old: commits.c, new: Z },
    ]);
    expect((await withConfig('wal', 'ls', repo, '--from', '3', '--limit', '1', '--json')).stdout.trimEnd().split('\n')).toHaveLength(1);
  });

  it('show prints the entry as JSON; a seq it does not have is a usage error', async () => {
    const shown = await withConfig('wal', 'show', repo, '2');
    expect(shown.code).toBe(0);
    const entry = JSON.parse(shown.stdout) as Record<string, unknown>;
    expect(entry).toMatchObject({ repo, seq: '2', kind: 'push', pusher: 'alice', requestId: 'req-1' });
    expect(entry.pack).toMatchObject({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/), size: expect.any(Number) });

    expect(await withConfig('wal', 'show', repo, '9')).toEqual({ code: 2, stdout: '', stderr: `cw-git: ${repo} has no entry at seq 9: its head is seq 3 (see: cw-git wal show --help)\n` });
    expect(await withConfig('wal', 'show', repo, 'x')).toMatchObject({ code: 2, stderr: 'cw-git: <seq> must be a non-negative integer (a WAL seq), not "x" (see: cw-git wal show --help)\n' });
  });

  it('materialize writes a bare repository with the refs of that seq, and refuses a non-empty directory', async () => {
    const out = join(state, 'at-2.git');
    const made = await withConfig('wal', 'materialize', repo, '--at-seq', '2', '--out', out);
    expect(made).toMatchObject({ code: 0, stderr: '' });
    expect(made.stdout).toBe(`materialized ${repo} at seq 2 into ${out}: 3 refs, 3 packs, HEAD → refs/heads/main\n`);
    await runGit(['-C', out, 'fsck', '--full', '--strict']);
    const refs = (await runGit(['-C', out, 'for-each-ref', '--format=%(refname) %(objectname)'])).stdout.toString().trim().split('\n');
    expect(refs).toEqual([`refs/heads/main ${commits.b}`, `refs/heads/topic ${commits.c}`, `refs/tags/v1 ${commits.v1}`]);
    expect(existsSync(join(out, 'cloudwright'))).toBe(false);

    const busy = join(state, 'busy');
    mkdirSync(busy);
    writeFileSync(join(busy, 'file'), 'x');
    expect(await withConfig('wal', 'materialize', repo, '--at-seq', '1', '--out', busy)).toMatchObject({
      code: 2,
      stderr: `cw-git: --out ${busy} is not empty; give a new or empty directory (see: cw-git wal materialize --help)\n`,
    });
    const past = await withConfig('wal', 'materialize', repo, '--at-seq', '4', '--out', join(state, 'past'));
    expect(past).toMatchObject({ code: 2, stderr: `cw-git: repository ${repo} has no seq 4: its head is 3\n` });
    expect(existsSync(join(state, 'past'))).toBe(false);
  });

  it('pending lists the maintenance markers of the bucket with what waits in each repository', async () => {
    await s3.put(pendingKey(parseRepoPath(repo)), '{"schema":1}');
    const listed = await withConfig('wal', 'pending');
    expect(listed.code).toBe(0);
    // This repository has 3 entries and 3 packs: marked, but nothing due by the thresholds.
    expect(listed.stdout.split('\n').find((l) => l.startsWith(`${repo} `))).toMatch(/^\S+\s+\d{4}-\d\d-\d\dT\S+\s+3\s+3\s+3\s+nothing \(done since marked\)$/);
    const json = await withConfig('wal', 'pending', '--json');
    expect(
      json.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toContainEqual({ repo, key: `pending/${repo}.json`, marked_at: expect.any(String), head_seq: '3', entries_since_checkpoint: 3, packs: 3, due: [] });
    await s3.delete(pendingKey(parseRepoPath(repo)));
  });
});

describe('cw-git repo info', () => {
  it('syncs the repository into the cache and summarises it', async () => {
    const info = await withConfig('repo', 'info', repo, '--json');
    expect(info).toMatchObject({ code: 0, stderr: '' });
    const summary = JSON.parse(info.stdout) as Record<string, unknown> & { cacheDir: string };
    expect(summary).toMatchObject({
      repo,
      headSeq: '3',
      headRef: 'refs/heads/main',
      pristine: false,
      refs: { total: 2, branches: 1, tags: 1, other: 0 },
      packs: { count: 3, bytes: expect.any(Number) },
      // a: README blob, root tree, commit; v1: tag; b: blob, 2 trees, commit; c: blob, tree, commit; d: blob, tree, commit
      objects: 14,
    });
    expect(summary.cacheDir).toBe(join(config.dir, 'cache', 'admin', 'repos', repo.split('/')[0]!, 'app.git'));
    await runGit(['-C', summary.cacheDir, 'fsck', '--full']);

    const text = await withConfig('repo', 'info', repo);
    expect(text.stdout).toMatch(/^head seq\s+3 \(log kept from 1, checkpoint none\)$/m);
    expect(text.stdout).toMatch(/^refs\s+2 \(1 branches, 1 tags\)$/m);
  });

  it('says pristine for a repository never pushed to', async () => {
    const fresh = `cli${Math.random().toString(36).slice(2, 8)}/empty`;
    await repos.createRepo(fresh);
    const info = JSON.parse((await withConfig('repo', 'info', fresh, '--json')).stdout) as Record<string, unknown>;
    expect(info).toMatchObject({ headSeq: '0', pristine: true, refs: { total: 0 }, packs: { count: 0, bytes: 0 }, objects: 0 });
  });
});

describe('cw-git token', () => {
  it('mints a token the service accepts, signed with the configured secret', async () => {
    const minted = await withConfig('token', '--sub', 'ci-bot', '--scope', 'read,write', '--ttl', '1h');
    expect(minted).toMatchObject({ code: 0, stderr: '' });
    const claims = verifyToken(minted.stdout.trim(), config.tokenSecret);
    expect(claims.sub).toBe('ci-bot');
    expect([...claims.scopes].sort()).toEqual(['read', 'write']);
    expect(claims.exp! - claims.iat).toBe(3600);
    expect(() => verifyToken(minted.stdout.trim(), 'y'.repeat(32))).toThrow();

    const json = JSON.parse((await withConfig('token', '--sub', 'reader', '--scope', 'read', '--json')).stdout) as { token: string; expiresAt: string };
    expect(verifyToken(json.token, config.tokenSecret).exp! - Date.now() / 1000).toBeGreaterThan(29 * 86_400);
    expect(Date.parse(json.expiresAt)).toBeGreaterThan(Date.now());
    expect(await withConfig('token', '--sub', 'a b', '--scope', 'read')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^cw-git: --sub: the subject must be 1-256 printable characters without spaces/),
    });
    expect(await withConfig('token', '--scope', 'read')).toMatchObject({ code: 2, stderr: 'cw-git: --sub <principal> is required (see: cw-git token --help)\n' });
  });
});

describe('cw-git errors', () => {
  it('answers one line and exit 2 for a wrong invocation, a bad config, or a missing repository', async () => {
    expect(await cli(['frobnicate'])).toEqual({ code: 2, stdout: '', stderr: 'cw-git: unknown command "frobnicate" (see: cw-git --help)\n' });
    expect(await cli(['wal', 'ls', repo])).toMatchObject({ code: 2, stderr: 'cw-git: --config FILE is required (or set CW_GIT_CONFIG) (see: cw-git wal ls --help)\n' });
    expect(await cli(['wal', 'ls', repo, '--config', join(state, 'nope.yaml')])).toMatchObject({ code: 2, stderr: `cw-git: config ${join(state, 'nope.yaml')}: no such file\n` });
    expect(await withConfig('wal', 'ls', 'nobody/nothing')).toMatchObject({ code: 2, stderr: 'cw-git: repository nobody/nothing does not exist\n' });
    expect(await withConfig('repo', 'info', 'not-a-repo')).toMatchObject({ code: 2, stderr: expect.stringMatching(/^cw-git: "not-a-repo" is not a repository name/) });
  });

  it('reads the config from CW_GIT_CONFIG, and prints help without one', async () => {
    const viaEnv = await cli(['wal', 'ls', repo, '--json'], { CW_GIT_CONFIG: config.path });
    expect(viaEnv.code).toBe(0);
    expect(viaEnv.stdout.trimEnd().split('\n')).toHaveLength(3);
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^  wal materialize\s+write a bare git repository/m);
    const commandHelp = await cli(['wal', 'materialize', '--help']);
    expect(commandHelp.stdout).toMatch(/^usage: cw-git wal materialize <owner\/repo> --at-seq <seq> --out <dir> \[--json\] --config FILE$/m);
  });

  it('fails with exit 1 and one line when the object store is unreachable', async () => {
    const down = await gitServiceConfig({ s3: { ...inject('s3'), endpoint: 'http://127.0.0.1:9' }, bucket: inject('bucket'), tokenSecret: newTokenSecret() });
    const run = await cli(['wal', 'ls', repo, '--config', down.path]);
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')).toHaveLength(2);
    expect(run.stderr).toMatch(/^cw-git: .*(unavailable|reach)/i);
    expect(run.stderr).not.toContain(down.env.AWS_SECRET_ACCESS_KEY);
  });
});
