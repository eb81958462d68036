// Maintenance against real git clients: compaction publishes a new pack set while clients fetch and push
// through a serving instance, and nothing they do fails or is lost.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mintToken } from '../git-server/auth/index.ts';
import type { RunningService } from '../git-server/serve.ts';
import { ensureBucket } from '../src/object-store/s3-buckets.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { readStatus, RepoMaintenance, silentContext } from '../src/repo-maintenance/index.ts';
import { parseRepoPath, RepoStore } from '../src/repo-store/index.ts';
import { EventStream } from '../git-server/repo-api/testing/event-stream-client.ts';
import { GitClient } from './harness/git-client.ts';
import { newTokenSecret, spawnGitService, startGitService, type GitServiceSetup } from './harness/git-service.ts';

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

describe('SIGTERM during a compaction', () => {
  it('interrupts it (task ends interrupted, nothing published) and a restarted maintainer finishes it', { timeout: 240_000 }, async () => {
    const repo = await createRepo();
    const work = await git.workdir(`big-${randomBytes(3).toString('hex')}`);
    await git.run(['init', '-q'], { cwd: work });
    // Incompressible content, so the repack takes long enough (seconds) for the signal to land inside it.
    for (let i = 0; i < 32; i++) {
      await writeFile(join(work, `blob-${i}.bin`), randomBytes(1024 * 1024));
      await git.commit(work, `big ${i}`, {});
      await git.run(['push', '-q', remote(repo), 'main'], { cwd: work });
    }
    const before = await repos.readHead(repo, { fresh: true });
    expect(before.packs).toHaveLength(32);

    // The first instance only serves, so the compaction is the one the POST starts (a maintainer's own first
    // pass could finish it before the POST arrives); the restarted one maintains.
    const first = await spawnGitService({ ...setup, roles: ['serve'] });
    try {
      const stream = await EventStream.open(`${first.url}/${repo}/api/ops/compact`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
      expect(stream.status).toBe(200);
      for (;;) {
        const message = await stream.next({ events: true });
        if (!message || !('event' in message)) throw new Error('the task stream ended before the repack');
        const phase = (message.data as { phase?: string; progress?: { phase?: string } | null }).phase ?? (message.data as { progress?: { phase?: string } | null }).progress?.phase;
        if (phase?.startsWith('repacking')) break;
      }
      const exit = new Promise<number | null>((resolve) => first.service.child.once('exit', (code) => resolve(code)));
      first.service.child.kill('SIGTERM');
      let terminal: { event: string; data: unknown } | undefined;
      for (let message = await stream.next({ events: true }); message; message = await stream.next({ events: true })) {
        if ('event' in message && (message.event === 'result' || message.event === 'error')) terminal = message;
      }
      expect(terminal).toMatchObject({ event: 'error', data: { state: 'interrupted', operation: 'compact' } });
      expect(await exit).toBe(0);
    } finally {
      await first.service.stop();
    }
    const interrupted = await repos.readHead(repo, { fresh: true });
    expect(interrupted.packs).toEqual(before.packs);
    expect((await readStatus(store, parseRepoPath(repo), before.repoId)).compaction?.outcome).toBe('interrupted');

    // A restarted maintainer finds the marker still there and finishes the compaction on its first pass.
    const second = await spawnGitService({ ...setup, roles: ['serve', 'maintain'], maintenance: { interval: '1h' } });
    try {
      await waitFor(async () => (await repos.readHead(repo, { fresh: true })).packs.length === 1, 120_000);
      // The status is written after the compaction is published: its outcome follows a moment later.
      await waitFor(async () => (await readStatus(store, parseRepoPath(repo), before.repoId)).compaction?.outcome === 'succeeded', 30_000);
      expect((await readStatus(store, parseRepoPath(repo), before.repoId)).compaction).toMatchObject({ outcome: 'succeeded', packsBefore: 32, packsAfter: 1 });
      const refs = await git.out(['ls-remote', `${second.url.replace('http://', `http://git:${token}@`)}/${repo}`]);
      expect(refs).toContain(`${before.refs.get('refs/heads/main')}\trefs/heads/main`);
    } finally {
      await second.service.stop();
    }
  });
});

/** Polls `condition` (a bucket read) until it holds; the change it waits for comes from another process. */
async function waitFor(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await sleep(250);
  }
}

describe('maintenance metrics on /metrics', () => {
  it('moves service_repo_missing_objects with an fsck, and a maintainer reports its heartbeat and the markers it found', { timeout: 120_000 }, async () => {
    const metrics = async (url: string) => (await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text()).split('\n');
    // A ref to an object no pack has (the JSON API would refuse it; the log takes what it is given).
    const repo = await createRepo();
    const seed = await git.workdir(`fsck-${randomBytes(3).toString('hex')}`);
    await git.run(['init', '-q'], { cwd: seed });
    await git.commit(seed, 'one', { 'a.txt': 'a\n' });
    await git.run(['push', '-q', remote(repo), 'main'], { cwd: seed });
    await repos.publish(repo, { kind: 'ref_update', refUpdates: [{ ref: 'refs/heads/ghost', old: '0'.repeat(40), new: 'e'.repeat(40) }], pusher: 'test', requestId: 'ghost', atomic: true });
    const stream = await EventStream.open(`${service.url}/${repo}/api/ops/fsck`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    let last: unknown;
    for (let message = await stream.next({ events: true }); message; message = await stream.next({ events: true })) if ('event' in message) last = message;
    expect(last).toMatchObject({ event: 'result', data: { state: 'succeeded', summary: expect.stringMatching(/1 missing objects/) } });
    expect(await metrics(service.url)).toContain(`service_repo_missing_objects{repo="${repo}"} 1`);

    const maintainer = await startGitService({ ...setup, roles: ['serve', 'maintain'], maintenance: { interval: '1h' } });
    try {
      // The first pass runs at start: its heartbeat and marker count are on /metrics once it has begun.
      await waitFor(async () => (await metrics(maintainer.url)).some((l) => l.startsWith('service_maintainer_heartbeat_timestamp{host=')), 30_000);
      const lines = await metrics(maintainer.url);
      const beat = Number(lines.find((l) => l.startsWith('service_maintainer_heartbeat_timestamp{host='))?.split(' ')[1]);
      expect(Math.abs(beat - Date.now() / 1000)).toBeLessThan(120);
      expect(lines.find((l) => l.startsWith('service_pending_markers '))).toMatch(/^service_pending_markers \d+$/);
    } finally {
      await maintainer.stop();
    }
  });
});
