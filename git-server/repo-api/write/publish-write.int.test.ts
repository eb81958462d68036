// publishWrite with real git on the memory object store: objects built in the quarantine are packed and
// published with the ref updates as one `ref_update` entry; a stale old value publishes nothing.
import { ReadTurns } from '../repo-read.ts';
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RepoCache } from '../../plumbing/repo-cache.ts';
import { runGit } from '../../../src/git/run-git.ts';
import { HERMETIC_GIT_ENV } from '../../../src/git/testing/scratch-repo.ts';
import { MemoryObjectStore } from '../../../src/object-store/memory-object-store.ts';
import { RepoStore, zeroOid } from '../../../src/repo-store/index.ts';
import { TaskRegistry } from '../../tasks/task-registry.ts';
import { ArchiveSpool } from '../archive-spool.ts';
import type { RepoApiDependencies } from '../dependencies.ts';
import { publishWrite } from './publish-write.ts';
import { writeTurns } from './write-turns.ts';

const Z = zeroOid('sha1');
const DATE = { GIT_AUTHOR_DATE: '1700000000 +0000', GIT_COMMITTER_DATE: '1700000000 +0000' };

async function setup() {
  const repos = new RepoStore({ store: new MemoryObjectStore() });
  await repos.createRepo('acme/site');
  const root = await mkdtemp(join(tmpdir(), 'cw-pw-'));
  const cache = new RepoCache({ repos, dir: join(root, 'cache') });
  const deps: RepoApiDependencies = {
    repos,
    reads: new ReadTurns(),
    writes: writeTurns(),
    cache,
    archives: new ArchiveSpool({ dir: join(root, 'archives') }),
    tasks: new TaskRegistry({ instance: 'test' }),
  };
  return { repos, cache, deps };
}

/** Writes a one-file commit with `env` (objects land in the quarantine); answers its oid. */
async function commitIn(env: Readonly<Record<string, string>>, content: string, parent?: string): Promise<string> {
  const git = async (args: string[], stdin?: string) => (await runGit(args, { env: { ...HERMETIC_GIT_ENV, ...DATE, ...env }, ...(stdin === undefined ? {} : { stdin }) })).stdout.toString().trim();
  const blob = await git(['hash-object', '-w', '--stdin'], content);
  const tree = await git(['mktree'], `100644 blob ${blob}\thello.txt\n`);
  return git(['commit-tree', tree, '-m', content.trim(), ...(parent ? ['-p', parent] : [])]);
}

describe('publishWrite', () => {
  it('packs what the build wrote, publishes it with the ref updates as a ref_update entry, and adopts the pack', async () => {
    const { repos, cache, deps } = await setup();
    const first = await publishWrite(deps, {
      repo: 'acme/site',
      principal: 'ada',
      requestId: 'req-1',
      build: async ({ env, head }) => {
        expect(head.seq).toBe(0);
        return [{ ref: 'refs/heads/main', old: Z, new: await commitIn(env, 'one\n') }];
      },
    });
    expect(first.outcome).toBe('published');
    if (first.outcome !== 'published') return;
    const entry = await repos.readEntry('acme/site', first.seq);
    expect(entry).toMatchObject({ kind: 'ref_update', pusher: 'ada', requestId: 'req-1' });
    expect(entry?.pack).toBeTruthy();
    const main = (await repos.readHead('acme/site')).refs.get('refs/heads/main') as string;
    // The adopted pack: the cached copy has the commit before any sync, and the quarantine is gone.
    expect((await runGit(['-C', cache.dirOf('acme/site'), 'cat-file', '-t', main])).stdout.toString().trim()).toBe('commit');
    expect(await readdir(cache.tmpDir)).toEqual([]);

    // A second write builds on the first (the copy's objects are alternates of the quarantine).
    const second = await publishWrite(deps, {
      repo: 'acme/site',
      principal: 'bob',
      requestId: 'req-2',
      build: async ({ env, head }) => [{ ref: 'refs/heads/main', old: head.refs.get('refs/heads/main') as string, new: await commitIn(env, 'two\n', main) }],
    });
    expect(second).toMatchObject({ outcome: 'published', seq: 2 });
    const fresh = await cache.sync('acme/site', { fresh: true });
    const tip = fresh.head.refs.get('refs/heads/main') as string;
    expect((await runGit(['-C', fresh.dir, 'rev-list', '--count', tip])).stdout.toString().trim()).toBe('2');
  });

  it('publishes a ref-only update without a pack, and rejects a stale old value publishing nothing', async () => {
    const { repos, deps } = await setup();
    const created = await publishWrite(deps, {
      repo: 'acme/site',
      principal: 'ada',
      requestId: 'r1',
      build: async ({ env }) => [{ ref: 'refs/heads/main', old: Z, new: await commitIn(env, 'one\n') }],
    });
    if (created.outcome !== 'published') throw new Error('not published');
    const main = created.head.refs.get('refs/heads/main') as string;

    const branched = await publishWrite(deps, { repo: 'acme/site', principal: 'ada', requestId: 'r2', build: async () => [{ ref: 'refs/heads/feature', old: Z, new: main }] });
    expect(branched).toMatchObject({ outcome: 'published', seq: 2 });
    expect((await repos.readEntry('acme/site', 2))?.pack).toBeFalsy();

    const stale = await publishWrite(deps, {
      repo: 'acme/site',
      principal: 'ada',
      requestId: 'r3',
      build: async ({ env }) => [{ ref: 'refs/heads/feature', old: Z, new: await commitIn(env, 'x\n') }],
    });
    expect(stale.outcome).toBe('rejected');
    expect(stale.refs).toEqual([{ ref: 'refs/heads/feature', status: 'rejected', reason: 'stale old value' }]);
    expect((await repos.readHead('acme/site')).seq).toBe(2);
  });

  it('disposes the quarantine when the build throws', async () => {
    const { cache, deps } = await setup();
    await expect(
      publishWrite(deps, {
        repo: 'acme/site',
        principal: 'ada',
        requestId: 'r1',
        build: async ({ env }) => {
          await commitIn(env, 'lost\n');
          throw new Error('no');
        },
      }),
    ).rejects.toThrow('no');
    expect(await readdir(cache.tmpDir)).toEqual([]);
  });
});
