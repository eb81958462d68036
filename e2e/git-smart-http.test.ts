// Stock git against two cw-git instances sharing one MinIO bucket: what a user sees when pushing through one
// instance and fetching through another.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { mintToken } from '../git-server/auth/index.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { RepoStore } from '../src/repo-store/index.ts';
import { FLUSH, pktLine } from '../git-server/plumbing/pkt-line.ts';
import { useGitTestbed } from './harness/git-testbed.ts';

const bed = useGitTestbed();
const readToken = mintToken({ sub: 'reader', scopes: ['read'] }, bed.setup.tokenSecret);
const { remote, createRepo } = bed;

/** `ref oid` lines of a remote, sorted: what two instances must agree on. */
async function lsRemote(url: string): Promise<string> {
  return bed.git.out(['ls-remote', url]);
}

describe('git smart HTTP through two instances', () => {
  const git = () => bed.git;
  it('pushes through one instance and clones through the other, with protocol v0 and v2', async () => {
    const repo = await createRepo();
    const work = await git().workdir(`src-${randomBytes(3).toString('hex')}`);
    await git().run(['init', '-q'], { cwd: work });
    await git().commit(work, 'first', { 'README.md': '# app\n', 'src/main.ts': 'console.log(1);\n' });
    await git().run(['tag', 'v1'], { cwd: work });
    await git().commit(work, 'second', { 'src/main.ts': 'console.log(2);\n' });
    await git().run(['tag', '-a', 'v2', '-m', 'release 2'], { cwd: work });
    await git().run(['branch', 'feature'], { cwd: work });
    await git().run(['push', '-q', remote(bed.a, repo), 'main', 'feature', '--tags'], { cwd: work });

    const local = await git().out(['show-ref', '--head', '--dereference'], work);
    const throughB = await lsRemote(remote(bed.b, repo));
    expect(throughB.split('\n').sort()).toEqual(
      expect.arrayContaining(
        local
          .split('\n')
          .filter((l) => !l.includes(' HEAD'))
          .map((l) => l.replace(' ', '\t')),
      ),
    );
    expect(throughB).toContain('refs/tags/v2^{}');

    for (const version of ['0', '2']) {
      const trace = await git().run(['-c', `protocol.version=${version}`, 'ls-remote', remote(bed.b, repo)], { env: { GIT_TRACE_PACKET: '1' } });
      expect(trace.stderr.includes('< version 2')).toBe(version === '2');
      const clone = join(git().home, `clone-v${version}-${randomBytes(3).toString('hex')}`);
      await git().run(['-c', `protocol.version=${version}`, 'clone', '-q', remote(bed.b, repo), clone]);
      expect(await readFile(join(clone, 'src/main.ts'), 'utf8')).toBe('console.log(2);\n');
      expect(await git().out(['rev-parse', 'HEAD', 'v1', 'v2^{}', 'origin/feature'], clone)).toBe(await git().out(['rev-parse', 'HEAD', 'v1', 'v2^{}', 'feature'], work));
      await git().run(['fsck', '--full', '--strict'], { cwd: clone });
    }

    // A gzip-compressed request body (git compresses large negotiations) is read like a plain one.
    const lsRefs = Buffer.concat([pktLine('command=ls-refs\n'), pktLine('agent=e2e\n'), Buffer.from('0001'), pktLine('ref-prefix refs/tags/\n'), FLUSH]);
    for (const [encoding, payload] of [
      ['identity', lsRefs],
      ['gzip', gzipSync(lsRefs)],
    ] as const) {
      const response = await fetch(`${bed.b.url}/${repo}/git-upload-pack`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bed.token}`, 'git-protocol': 'version=2', 'content-type': 'application/x-git-upload-pack-request', 'content-encoding': encoding },
        body: payload,
      });
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).toContain('refs/tags/v1');
      expect(text).not.toContain('refs/heads/');
    }
  });

  it('serves shallow clones, deepen, and blob-less partial clones', async () => {
    const repo = await createRepo();
    const work = await git().workdir(`hist-${randomBytes(3).toString('hex')}`);
    await git().run(['init', '-q'], { cwd: work });
    for (let i = 1; i <= 5; i++) await git().commit(work, `commit ${i}`, { 'file.txt': `version ${i}\n`, [`dir/f${i}.txt`]: `${i}\n` });
    await git().run(['push', '-q', remote(bed.a, repo), 'main'], { cwd: work });

    const shallow = join(git().home, `shallow-${randomBytes(3).toString('hex')}`);
    await git().run(['clone', '-q', '--depth', '1', remote(bed.b, repo), shallow]);
    expect(await git().out(['rev-list', '--count', 'HEAD'], shallow)).toBe('1');
    await git().run(['fetch', '-q', '--deepen', '2'], { cwd: shallow });
    expect(await git().out(['rev-list', '--count', 'HEAD'], shallow)).toBe('3');

    // side-band-all, which git clients use when asked to (GIT_TEST_SIDEBAND_ALL).
    const sidebandAll = join(git().home, `sba-${randomBytes(3).toString('hex')}`);
    const traced = await git().run(['clone', '-q', remote(bed.b, repo), sidebandAll], { env: { GIT_TEST_SIDEBAND_ALL: '1', GIT_TRACE_PACKET: '1' } });
    expect(traced.stderr).toContain('sideband-all');
    expect(await readFile(join(sidebandAll, 'file.txt'), 'utf8')).toBe('version 5\n');

    const partial = join(git().home, `partial-${randomBytes(3).toString('hex')}`);
    await git().run(['clone', '-q', '--filter=blob:none', '--no-checkout', remote(bed.b, repo), partial]);
    const missing = await git().out(['rev-list', '--objects', '--all', '--missing=print'], partial);
    expect(missing.split('\n').filter((l) => l.startsWith('?')).length).toBeGreaterThan(0);
    await git().run(['checkout', '-q', 'main'], { cwd: partial });
    expect(await readFile(join(partial, 'file.txt'), 'utf8')).toBe('version 5\n');
    // Not a sparse filter read from a pushed blob: every path of the fetch matched against the tenant's patterns.
    const sparse = join(git().home, `sparse-${randomBytes(3).toString('hex')}`);
    const refused = await git().run(['clone', '-q', '--filter=sparse:oid=main:file.txt', '--no-checkout', remote(bed.b, repo), sparse], { okCodes: [128] });
    expect(refused.stderr).toMatch(/filter 'sparse:oid' not supported/);
  });

  it('pushes atomically, deletes branches, and rejects a non-fast-forward as git does', async () => {
    const repo = await createRepo();
    const work = await git().workdir(`atomic-${randomBytes(3).toString('hex')}`);
    await git().run(['init', '-q'], { cwd: work });
    await git().commit(work, 'base', { 'a.txt': 'a\n' });
    await git().run(['branch', 'topic'], { cwd: work });
    await git().run(['push', '-q', '--atomic', remote(bed.a, repo), 'main', 'topic'], { cwd: work });
    expect(await lsRemote(remote(bed.b, repo))).toMatch(/refs\/heads\/topic/);

    await git().run(['push', '-q', remote(bed.b, repo), ':topic'], { cwd: work });
    // Push options are accepted (and a push that only deletes sends no pack).
    await git().commit(work, 'with options', { 'o.txt': 'o\n' });
    await git().run(['push', '-q', '-o', 'ci.skip', '-o', 'reviewer=ada', remote(bed.a, repo), 'main'], { cwd: work });
    expect(await lsRemote(remote(bed.a, repo))).not.toMatch(/refs\/heads\/topic/);

    // Someone else moves main; our push of a diverged main is refused, and the remote keeps theirs.
    const other = join(git().home, `other-${randomBytes(3).toString('hex')}`);
    await git().run(['clone', '-q', remote(bed.b, repo), other]);
    const theirs = await git().commit(other, 'theirs', { 'b.txt': 'theirs\n' });
    await git().run(['push', '-q', 'origin', 'main'], { cwd: other });
    await git().commit(work, 'ours', { 'b.txt': 'ours\n' });
    const refused = await git().run(['push', remote(bed.a, repo), 'main'], { cwd: work, okCodes: [1] });
    expect(refused.stderr).toMatch(/\[rejected\].*main -> main \(fetch first\)/);
    expect(await lsRemote(remote(bed.a, repo))).toContain(`${theirs}\trefs/heads/main`);

    const forced = await git().commit(work, 'forced', { 'c.txt': 'c\n' });
    await git().run(['push', '-q', '--force', remote(bed.a, repo), 'main'], { cwd: work });
    expect(await lsRemote(remote(bed.b, repo))).toContain(`${forced}\trefs/heads/main`);
  });

  it("refuses a push of a malformed object with git fsck's complaint, and keeps the branch where it was", async () => {
    const repo = await createRepo();
    const work = await git().workdir(`fsck-${randomBytes(3).toString('hex')}`);
    await git().run(['init', '-q'], { cwd: work });
    const good = await git().commit(work, 'base', { 'a.txt': 'a\n' });
    await git().run(['push', '-q', remote(bed.a, repo), 'main'], { cwd: work });
    // A commit whose author line has an impossible time zone: git itself never writes one, a hostile client can.
    const tree = await git().out(['rev-parse', 'HEAD^{tree}'], work);
    const body = `tree ${tree}\nparent ${good}\nauthor Eve <eve@example.com> 1700000000 +99999\ncommitter Eve <eve@example.com> 1700000000 +0000\n\nbad\n`;
    await writeFile(join(work, '.git', 'bad-commit'), body);
    const bad = await git().out(['hash-object', '-t', 'commit', '-w', '--literally', '.git/bad-commit'], work);
    await git().run(['update-ref', 'refs/heads/main', bad], { cwd: work });
    const refused = await git().run(['push', remote(bed.a, repo), 'main'], { cwd: work, okCodes: [1] });
    expect(refused.stderr).toMatch(/remote unpack failed: index-pack failed: .*(badTimezone|bad time zone)/i);
    expect(await lsRemote(remote(bed.b, repo))).toContain(`${good}\trefs/heads/main`);
  });

  it('refuses a branch that would be a directory of another branch, as git does, and the repository stays clonable', async () => {
    const repo = await createRepo();
    const work = await git().workdir(`df-${randomBytes(3).toString('hex')}`);
    await git().run(['init', '-q'], { cwd: work });
    await git().commit(work, 'base', { 'a.txt': 'a\n' });
    await git().run(['push', '-q', remote(bed.a, repo), 'main', 'main:refs/heads/release'], { cwd: work });
    const refused = await git().run(['push', remote(bed.b, repo), 'main:refs/heads/release/1.0', 'main:refs/heads/next'], { cwd: work, okCodes: [1] });
    expect(refused.stderr).toMatch(/\[remote rejected\] main -> release\/1\.0 \(cannot create 'refs\/heads\/release\/1\.0': it conflicts with 'refs\/heads\/release'/);
    // The other ref of the (non-atomic) push went through.
    expect(refused.stderr).toMatch(/\* \[new branch\] +main -> next/);
    const clone = join(git().home, `df-clone-${randomBytes(3).toString('hex')}`);
    await git().run(['clone', '-q', remote(bed.a, repo), clone]);
    const branches = await git().out(['branch', '-r'], clone);
    expect(branches).toContain('origin/next');
    expect(branches).toContain('origin/release');
    expect(branches).not.toContain('release/1.0');
  });

  it('answers 404 for an unknown repository and refuses a push with a read-only token', async () => {
    const missing = await git().run(['ls-remote', remote(bed.a, 'e2e/does-not-exist')], { okCodes: [128] });
    expect(missing.stderr).toMatch(/not found/i);

    const repo = await createRepo();
    const work = await git().workdir(`ro-${randomBytes(3).toString('hex')}`);
    await git().run(['init', '-q'], { cwd: work });
    await git().commit(work, 'x', { 'x.txt': 'x\n' });
    const refused = await git().run(['push', remote(bed.a, repo, readToken), 'main'], { cwd: work, okCodes: [128] });
    expect(refused.stderr).toMatch(/403/);
    const unauthenticated = await git().run(['ls-remote', `${bed.a.url}/${repo}`], { okCodes: [128] });
    expect(unauthenticated.stderr).toMatch(/Authentication failed|could not read Username/i);
  });

  it('keeps every acknowledged push of 8 concurrent pushers through both instances, with a gapless log', { timeout: 180_000 }, async () => {
    const repo = await createRepo();
    const pushers = 8;
    const rounds = 25;
    const seed = await git().workdir(`seed-${randomBytes(3).toString('hex')}`);
    await git().run(['init', '-q'], { cwd: seed });
    await git().commit(seed, 'seed', { 'seed.txt': 'seed\n' });
    await git().run(['push', '-q', remote(bed.a, repo), 'main'], { cwd: seed });

    const finals = await Promise.all(
      Array.from({ length: pushers }, async (_, p) => {
        const dir = join(git().home, `pusher-${p}-${randomBytes(3).toString('hex')}`);
        await git().run(['clone', '-q', remote(bed.a, repo), dir]);
        await git().run(['checkout', '-q', '-b', `p${p}`], { cwd: dir });
        let last = '';
        for (let round = 0; round < rounds; round++) {
          last = await git().commit(dir, `p${p} r${round}`, { [`p${p}.txt`]: `${round}\n` });
          const via = (p + round) % 2 === 0 ? bed.a : bed.b;
          await git().run(['push', '-q', remote(via, repo), `p${p}`], { cwd: dir });
        }
        return [`refs/heads/p${p}`, last] as const;
      }),
    );

    const refs = await lsRemote(remote(bed.b, repo));
    for (const [ref, oid] of finals) expect(refs).toContain(`${oid}\t${ref}`);
    const store = new RepoStore({ store: new S3ObjectStore({ config: bed.setup.s3, bucket: bed.setup.bucket }) });
    const head = await store.readHead(repo);
    expect(head.seq).toBe(1 + pushers * rounds);
    const seqs: number[] = [];
    for (let from = 1; ;) {
      const page = await store.listLog(repo, from, { limit: 100 });
      seqs.push(...page.entries.map((e) => e.seq));
      if (page.next === undefined) break;
      from = page.next;
    }
    expect(seqs).toEqual(Array.from({ length: head.seq }, (_, i) => i + 1));
  });
});
