// receive-pack against crafted requests (what a stock client never sends but a server must refuse), with real
// git objects and packs, on the memory object store.
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../../src/object-store/memory-object-store.ts';
import { RepoStore, zeroOid } from '../../../src/repo-store/index.ts';
import { FLUSH, PktReader, pktLine, pktText } from '../pkt-line.ts';
import { RepoCache } from '../repo-cache.ts';
import { runGit } from '../../../src/git/run-git.ts';
import { receivePack, type RefusalReason } from './receive-pack.ts';
import { SpoolBudget, type SpoolMeter } from '../spool-budget.ts';

const Z = zeroOid('sha1');
const execFileAsync = promisify(execFile);
const ENV = { GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b', GIT_CONFIG_NOSYSTEM: '1', HOME: tmpdir() };

async function git(dir: string, args: string[], stdin?: string | Buffer): Promise<string> {
  return (await runGit(['-C', dir, ...args], { env: ENV, ...(stdin === undefined ? {} : { stdin }) })).stdout.toString().trim();
}

/** A scratch repository with one commit; answers its oids and a pack of everything in it. */
async function scratch(message = 'first') {
  const dir = await mkdtemp(join(tmpdir(), 'cw-rp-src-'));
  await git(dir, ['init', '-q']);
  const blob = await git(dir, ['hash-object', '-w', '--stdin'], 'hello\n');
  await git(dir, ['update-index', '--add', '--cacheinfo', `100644,${blob},hello.txt`]);
  const tree = await git(dir, ['write-tree']);
  const commit = await git(dir, ['commit-tree', tree, '-m', message]);
  const pack = (await runGit(['-C', dir, 'pack-objects', '--stdout', '--revs'], { stdin: `${commit}\n` })).stdout;
  return { blob, tree, commit, pack };
}

async function* body(...parts: Buffer[]): AsyncGenerator<Buffer> {
  yield Buffer.concat(parts);
}

async function setup(spool?: SpoolMeter) {
  const repos = new RepoStore({ store: new MemoryObjectStore() });
  await repos.createRepo('acme/site');
  const cache = new RepoCache({ repos, dir: await mkdtemp(join(tmpdir(), 'cw-rp-cache-')) });
  const refused: RefusalReason[] = [];
  const push = async (...parts: Buffer[]) => {
    const outcome = await receivePack(
      { repo: 'acme/site', body: body(...parts), pusher: 'ada', requestId: 'r1' },
      { repos, cache, maxPackBytes: 1 << 20, onRefused: (reason) => refused.push(reason), ...(spool ? { spool } : {}) },
    );
    const lines: string[] = [];
    const reader = new PktReader(body(outcome.body));
    for (let pkt = await reader.next(); pkt; pkt = await reader.next()) if (pkt.kind === 'data') lines.push(pktText(pkt)!);
    return { lines, seq: outcome.seq };
  };
  return { repos, push, refused };
}

describe('receivePack', () => {
  it('publishes a valid push and reports ok only after the log has it', async () => {
    const { repos, push } = await setup();
    const { commit, pack } = await scratch();
    const result = await push(pktLine(`${Z} ${commit} refs/heads/main\0report-status\n`), FLUSH, pack);
    expect(result.lines).toEqual(['unpack ok', 'ok refs/heads/main']);
    expect(result.seq).toBe(1);
    expect((await repos.readHead('acme/site')).refs.get('refs/heads/main')).toBe(commit);
  });

  it('refuses a branch pointing at a non-commit, a missing object and a bad ref name, publishing nothing', async () => {
    const { repos, push, refused } = await setup();
    const { blob, commit, pack } = await scratch();
    const result = await push(
      pktLine(`${Z} ${blob} refs/heads/blob\0report-status\n`),
      pktLine(`${Z} ${'1'.repeat(40)} refs/tags/ghost\n`),
      pktLine(`${Z} ${commit} refs/heads/bad..name\n`),
      FLUSH,
      pack,
    );
    expect(result.lines).toEqual([
      'unpack ok',
      'ng refs/heads/blob a branch must point to a commit, not a blob',
      'ng refs/tags/ghost missing necessary objects',
      'ng refs/heads/bad..name funny refname',
    ]);
    expect(refused.sort()).toEqual(['connectivity', 'invalid', 'invalid']);
    expect((await repos.readHead('acme/site')).seq).toBe(0);
  });

  it('refuses only the ref whose history is incomplete, and publishes the others', async () => {
    const { repos, push, refused } = await setup();
    const dir = await mkdtemp(join(tmpdir(), 'cw-rp-src-'));
    await git(dir, ['init', '-q']);
    const tree = async (text: string) => {
      const blob = await git(dir, ['hash-object', '-w', '--stdin'], text);
      await git(dir, ['read-tree', '--empty']);
      await git(dir, ['update-index', '--add', '--cacheinfo', `100644,${blob},f.txt`]);
      return git(dir, ['write-tree']);
    };
    const base = await git(dir, ['commit-tree', await tree('base\n'), '-m', 'base']);
    // Its parent (and the tree they share) stay out of the pack: the client claims history the server lacks.
    const orphan = await git(dir, ['commit-tree', await git(dir, ['rev-parse', `${base}^{tree}`]), '-p', base, '-m', 'orphan']);
    const whole = await git(dir, ['commit-tree', await tree('whole\n'), '-m', 'whole']);
    const pack = (await runGit(['-C', dir, 'pack-objects', '--stdout', '--revs'], { stdin: `${whole}\n${orphan}\n^${base}\n` })).stdout;
    const result = await push(pktLine(`${Z} ${whole} refs/heads/main\0report-status\n`), pktLine(`${Z} ${orphan} refs/heads/orphan\n`), FLUSH, pack);
    expect(result.lines).toEqual(['unpack ok', 'ok refs/heads/main', 'ng refs/heads/orphan missing necessary objects']);
    expect(refused).toEqual(['connectivity']);
    const head = await repos.readHead('acme/site');
    expect([...head.refs.keys()]).toEqual(['refs/heads/main']);
  });

  it('checks a push naming thousands of missing or incomplete tips at a bounded cost: a few git processes at a time (review-177 F1)', async () => {
    const { repos, push } = await setup();
    const dir = await mkdtemp(join(tmpdir(), 'cw-rp-src-'));
    await git(dir, ['init', '-q']);
    const blob = await git(dir, ['hash-object', '-w', '--stdin'], 'base\n');
    await git(dir, ['update-index', '--add', '--cacheinfo', `100644,${blob},f.txt`]);
    const tree = await git(dir, ['write-tree']);
    const base = await git(dir, ['commit-tree', tree, '-m', 'base']);
    // Its own tree: the pack leaves out what `base` has.
    const wholeBlob = await git(dir, ['hash-object', '-w', '--stdin'], 'whole\n');
    await git(dir, ['read-tree', '--empty']);
    await git(dir, ['update-index', '--add', '--cacheinfo', `100644,${wholeBlob},g.txt`]);
    const whole = await git(dir, ['commit-tree', await git(dir, ['write-tree']), '-m', 'whole']);
    // Commits whose parent stays out of the pack: each an incomplete history of its own.
    const orphans: string[] = [];
    for (let i = 0; i < 5; i++) orphans.push(await git(dir, ['commit-tree', tree, '-p', base, '-m', `orphan ${i}`]));
    const pack = (await runGit(['-C', dir, 'pack-objects', '--stdout', '--revs'], { stdin: `${whole}\n${orphans.join('\n')}\n^${base}\n` })).stdout;
    const missing = Array.from({ length: 2000 }, (_, i) => `${(i + 1).toString(16).padStart(8, '0')}${'e'.repeat(32)}`);
    const commands = [
      pktLine(`${Z} ${whole} refs/heads/main\0report-status\n`),
      ...orphans.map((oid, i) => pktLine(`${Z} ${oid} refs/heads/orphan-${i}\n`)),
      ...missing.map((oid, i) => pktLine(`${Z} ${oid} refs/heads/missing-${i}\n`)),
    ];
    let peak = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const children = await gitChildren();
        peak = Math.max(peak, children);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const result = await push(...commands, FLUSH, pack).finally(() => (sampling = false));
    await sampler;
    expect(result.lines[1]).toBe('ok refs/heads/main');
    const refused = result.lines.slice(2);
    expect(refused.filter((line) => line.startsWith('ng refs/heads/missing-') && line.endsWith(' missing necessary objects'))).toHaveLength(2000);
    // The missing tips cost no walk; the incomplete ones are found by halves (completeTips, tested on its own).
    expect(refused.filter((line) => line.startsWith('ng refs/heads/orphan-') && line.endsWith(' missing necessary objects'))).toHaveLength(5);
    expect([...(await repos.readHead('acme/site')).refs.keys()]).toEqual(['refs/heads/main']);
    // Before: one walk per tip, all at once (636 git processes at 800 tips).
    expect(peak, 'git processes running at once').toBeLessThanOrEqual(3);
  });

  it("refuses a push whose pack would pass its owner's share of the spool, naming it, and publishes nothing", async () => {
    const budget = new SpoolBudget({ perOwnerBytes: 1 << 20, totalBytes: 1 << 30 });
    // Another push of acme's is being received: all but 100 bytes of its share are taken.
    budget.open('acme').reach((1 << 20) - 100);
    const { repos, push, refused } = await setup(budget.open('acme'));
    const { commit, pack } = await scratch();
    const result = await push(pktLine(`${Z} ${commit} refs/heads/main\0report-status\n`), FLUSH, pack);
    expect(result.lines).toEqual([
      expect.stringMatching(/^unpack acme's pushes, LFS uploads and imports being received hold 1023\.9 KiB of the 1\.0 MiB they may hold at once/),
      'ng refs/heads/main unpacker error',
    ]);
    expect(refused).toEqual(['spool']);
    expect((await repos.readHead('acme/site')).seq).toBe(0);
  });

  it('with atomic, one refused ref refuses all; a corrupt pack is an unpack error', async () => {
    const { repos, push } = await setup();
    const { blob, commit, pack } = await scratch();
    const atomic = await push(pktLine(`${Z} ${commit} refs/heads/main\0report-status atomic\n`), pktLine(`${Z} ${blob} refs/heads/blob\n`), FLUSH, pack);
    expect(atomic.lines).toEqual(['unpack ok', 'ng refs/heads/main atomic push failure', 'ng refs/heads/blob a branch must point to a commit, not a blob']);
    const corrupt = await push(pktLine(`${Z} ${commit} refs/heads/main\0report-status\n`), FLUSH, Buffer.from('PACK not really'));
    expect(corrupt.lines).toEqual([expect.stringMatching(/^unpack index-pack failed: /), 'ng refs/heads/main unpacker error']);
    expect((await repos.readHead('acme/site')).seq).toBe(0);
  });

  it('reports a ref that moved since the client looked as "fetch first"; a lone flush gets nothing, a zero-to-zero command an ng', async () => {
    const { push } = await setup();
    const { commit, pack } = await scratch();
    await push(pktLine(`${Z} ${commit} refs/heads/main\0report-status\n`), FLUSH, pack);
    const other = await scratch('second');
    const stale = await push(pktLine(`${Z} ${other.commit} refs/heads/main\0report-status\n`), FLUSH, other.pack);
    expect(stale.lines).toEqual(['unpack ok', 'ng refs/heads/main fetch first']);
    // The first push again (a retry whose first answer was lost) finds main where it wants it: done.
    const again = await push(pktLine(`${Z} ${commit} refs/heads/main\0report-status\n`), FLUSH, pack);
    expect(again.lines).toEqual(['unpack ok', 'ok refs/heads/main']);
    expect((await push(FLUSH)).lines).toEqual([]);
    const nothing = await push(pktLine(`${Z} ${Z} refs/heads/zz\0report-status\n`), FLUSH);
    expect(nothing.lines).toEqual(['unpack ok', 'ng refs/heads/zz old and new are both the zero object id']);
  });
});

/** How many git processes this test process runs now. */
async function gitChildren(): Promise<number> {
  const { stdout } = await execFileAsync('ps', ['-o', 'comm=', '--ppid', String(process.pid)]).catch(() => ({ stdout: '' }));
  return stdout.split('\n').filter((line) => line.trim() === 'git').length;
}
