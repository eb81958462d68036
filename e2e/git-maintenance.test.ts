// Maintenance against real git clients: compaction publishes a new pack set while clients fetch and push
// through a serving instance, and nothing they do fails or is lost.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mintToken } from '../git-server/auth/index.ts';
import type { RunningService } from '../git-server/serve.ts';
import { ensureBucket } from '../src/object-store/s3-buckets.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { RepoMaintenance, silentContext } from '../src/repo-maintenance/index.ts';
import { RepoStore } from '../src/repo-store/index.ts';
import { GitClient } from './harness/git-client.ts';
import { newTokenSecret, startGitService, type GitServiceSetup } from './harness/git-service.ts';

// A bucket of its own: maintenance here must not meet other tests' repositories, nor theirs ours.
const setup: GitServiceSetup = { s3: inject('s3'), bucket: `${inject('bucket')}-maint`.slice(0, 63), tokenSecret: newTokenSecret() };
const token = mintToken({ sub: 'ada', scopes: ['read', 'write'] }, setup.tokenSecret);
let service: RunningService;
let git: GitClient;
let store: S3ObjectStore;
let repos: RepoStore;
let workDir: string;

beforeAll(async () => {
  await ensureBucket(setup.s3, setup.bucket);
  [service, git] = await Promise.all([startGitService(setup), GitClient.create()]);
  store = new S3ObjectStore({ config: setup.s3, bucket: setup.bucket, registry: new Registry() });
  repos = new RepoStore({ store, registry: new Registry() });
  workDir = await mkdtemp(join(tmpdir(), 'cw-maint-e2e-'));
});
afterAll(async () => {
  await service?.stop();
  store?.destroy();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

const remote = (repo: string) => `${service.url.replace('http://', `http://git:${token}@`)}/${repo}`;

async function createRepo(): Promise<string> {
  const repo = `maint/r-${randomBytes(4).toString('hex')}`;
  const response = await fetch(`${service.url}/${repo}`, { method: 'PUT', headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(201);
  return repo;
}

describe('compaction under load', () => {
  it('publishes a new pack set while 4 clients fetch and 4 push: no fetch fails, no push is lost, git fsck is clean', { timeout: 180_000 }, async () => {
    const repo = await createRepo();
    const seed = await git.workdir(`seed-${randomBytes(3).toString('hex')}`);
    await git.run(['init', '-q'], { cwd: seed });
    for (let i = 0; i < 20; i++) {
      await git.commit(seed, `seed ${i}`, { [`seed/${i}.txt`]: `${randomBytes(256).toString('hex')}\n` });
      await git.run(['push', '-q', remote(repo), 'main'], { cwd: seed });
    }
    expect((await repos.readHead(repo, { fresh: true })).packs).toHaveLength(20);

    const maintenance = new RepoMaintenance({ repos, store, host: 'e2e-maintainer', workDir });
    const compactions: string[] = [];
    let load = true;
    const compacting = (async () => {
      // Compact again and again while the clients run (each round finds the packs the pushers added).
      while (load) compactions.push((await maintenance.run(repo, 'compact', silentContext())).summary);
    })();

    const pushed = new Map<string, string>();
    const pushers = Array.from({ length: 4 }, async (_, p) => {
      const dir = await git.workdir(`pusher-${p}-${randomBytes(3).toString('hex')}`);
      await git.run(['clone', '-q', remote(repo), dir]);
      await git.run(['checkout', '-q', '-b', `pusher-${p}`], { cwd: dir });
      for (let i = 0; i < 6; i++) {
        const oid = await git.commit(dir, `pusher ${p} #${i}`, { [`p${p}/${i}.txt`]: `${randomBytes(512).toString('hex')}\n` });
        await git.run(['push', '-q', 'origin', `pusher-${p}`], { cwd: dir });
        pushed.set(`refs/heads/pusher-${p}`, oid);
      }
    });
    const fetchers = Array.from({ length: 4 }, async (_, f) => {
      for (let i = 0; i < 6; i++) {
        const dir = join(git.home, `fetcher-${f}-${i}-${randomBytes(3).toString('hex')}`);
        await git.run(['clone', '-q', '--bare', remote(repo), dir]);
        await git.run(['fsck', '--no-dangling'], { cwd: dir });
      }
    });
    const results = await Promise.allSettled([...pushers, ...fetchers]);
    load = false;
    await compacting;
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => String(r.reason));
    expect(failures).toEqual([]);
    // The pack set changed under the clients more than once (each round finds the packs pushed since the last).
    expect(compactions.filter((s) => s.startsWith('compacted')).length).toBeGreaterThanOrEqual(2);

    // Every acknowledged push is there, and a clone of the end state is whole.
    await maintenance.run(repo, 'compact', silentContext());
    const refs = new Map((await git.out(['ls-remote', remote(repo)])).split('\n').map((line) => line.split('\t').reverse() as [string, string]));
    for (const [ref, oid] of pushed) expect(refs.get(ref)).toBe(oid);
    const final = join(git.home, `final-${randomBytes(3).toString('hex')}`);
    await git.run(['clone', '-q', '--mirror', remote(repo), final]);
    await git.run(['fsck', '--full', '--strict', '--no-dangling'], { cwd: final });
    expect((await repos.readHead(repo, { fresh: true })).packs).toHaveLength(1);
    expect((await maintenance.run(repo, 'fsck', silentContext())).summary).toMatch(/clean/);
  });
});
