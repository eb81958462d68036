import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ScratchRepo } from '../src/git/testing/scratch-repo.ts';
import { ensureBucket } from '../src/object-store/s3-buckets.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { Lease, RepoMaintenance, silentContext, UnitInterruptedError, type MaintenanceOp } from '../src/repo-maintenance/index.ts';
import { listAll } from '../src/object-store/list-all.ts';
import { decodeMarker } from '../src/repo-store/pending.ts';
import { parseRepoPath, pendingKey, RepoStore, zeroOid, type RepoPath } from '../src/repo-store/index.ts';
import { repoPrefix } from '../src/repo-store/layout.ts';
import { Maintainer, type TaskOutcome } from './maintainer.ts';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

// A bucket of its own: a pass maintains every marked repository of its bucket, other tests' ones included.
const bucket = `${inject('bucket')}-maintainer`.slice(0, 63);

async function setup(host: string, { graceMs = 0, now = () => new Date() }: { graceMs?: number; now?: () => Date } = {}) {
  await ensureBucket(inject('s3'), bucket);
  const store = new S3ObjectStore({ config: inject('s3'), bucket, registry: new Registry() });
  cleanups.push(async () => store.destroy());
  const repos = new RepoStore({ store, registry: new Registry() });
  const workDir = await mkdtemp(join(tmpdir(), 'cw-maintainer-'));
  cleanups.push(() => rm(workDir, { recursive: true, force: true }));
  const maintenance = new RepoMaintenance({ repos, store, host, workDir, graceMs, now });
  const registry = new Registry();
  const ran: { repo: string; op: MaintenanceOp }[] = [];
  const runTask = async (repo: string, op: MaintenanceOp): Promise<TaskOutcome> => {
    ran.push({ repo, op });
    try {
      await maintenance.run(repo, op, silentContext());
      return 'succeeded';
    } catch (err) {
      return err instanceof UnitInterruptedError ? 'interrupted' : 'failed';
    }
  };
  const maintainer = new Maintainer({ repos, store, context: { workDir, now, graceMs }, host, intervalMs: 60_000, registry, log: pino({ level: 'silent' }), runTask });
  return { store, repos, maintainer, registry, ran };
}

/** `n` pushes of one commit each: 16 of them leave 16 packs, which marks the repository for compaction. */
async function push(repos: RepoStore, repo: string, n: number): Promise<void> {
  const scratch = await ScratchRepo.create();
  cleanups.push(() => scratch.remove());
  let old = zeroOid('sha1');
  for (let i = 0; i < n; i++) {
    const oid = await scratch.commit('main', { [`f${i}`]: `${i}\n` });
    const built = await scratch.pack([oid], old === zeroOid('sha1') ? [] : [old]);
    await repos.publish(repo, { kind: 'push', refUpdates: [{ ref: 'refs/heads/main', old, new: oid }], pack: { body: built.pack, idx: built.idx }, pusher: 't', requestId: `r${i}`, atomic: true });
    old = oid;
  }
}

/** The `.pack` objects in the repository's bucket prefix, listed or not. */
async function packsInBucket(store: S3ObjectStore, repo: RepoPath): Promise<string[]> {
  const packs: string[] = [];
  for await (const item of listAll(store, `${repoPrefix(repo)}packs/`)) if (item.key.endsWith('.pack')) packs.push(item.key);
  return packs;
}

const metric = async (registry: Registry, name: string) => (await registry.getSingleMetric(name)?.get())?.values ?? [];

describe('the maintainer', () => {
  it('runs the due units of every marked repository, then deletes its marker; heartbeat and marker gauges move', async () => {
    const { store, repos, maintainer, registry, ran } = await setup('maint-a');
    const repo = `pass${Math.random().toString(36).slice(2, 10)}/app`;
    await repos.createRepo(repo);
    await push(repos, repo, 16);
    expect(await store.head(pendingKey(parseRepoPath(repo)))).toBeDefined();

    const report = await maintainer.pass();
    expect(report.repos.find((r) => r.repo === repo)).toEqual({ repo, ran: ['compact', 'fsck', 'gc'], outcome: 'done' });
    expect(ran.filter((r) => r.repo === repo).map((r) => r.op)).toEqual(['compact', 'fsck', 'gc']);
    expect((await repos.readHead(repo, { fresh: true })).packs).toHaveLength(1);
    expect(await store.head(pendingKey(parseRepoPath(repo)))).toBeUndefined();
    expect((await metric(registry, 'service_pending_markers'))[0]?.value).toBeGreaterThanOrEqual(1);
    const beat = (await metric(registry, 'service_maintainer_heartbeat_timestamp'))[0];
    expect(beat?.labels).toEqual({ host: 'maint-a' });
    expect(Math.abs((beat?.value ?? 0) - Date.now() / 1000)).toBeLessThan(60);
  });

  it('leaves a repository another maintainer holds for a later pass, marker kept', async () => {
    const { store, repos, maintainer, ran } = await setup('maint-b');
    const repo = `held${Math.random().toString(36).slice(2, 10)}/app`;
    await repos.createRepo(repo);
    await push(repos, repo, 16);
    const path = parseRepoPath(repo);
    const lease = await Lease.acquire({ store, repo: path, host: 'someone-else', operation: 'compact', ttlMs: 60_000 });
    if (!(lease instanceof Lease)) throw new Error('expected the lease');
    const report = await maintainer.pass();
    expect(report.repos.find((r) => r.repo === repo)).toEqual({ repo, ran: [], outcome: 'skipped' });
    expect(ran.some((r) => r.repo === repo)).toBe(false);
    expect(await store.head(pendingKey(path))).toBeDefined();
    await lease.release();
    expect((await maintainer.pass()).repos.find((r) => r.repo === repo)?.outcome).toBe('done');
  });

  it('deletes the pack of a push that lost, once its grace period is over: the lost push marks the repository, the marker waits for the period', async () => {
    const graceMs = 60 * 60 * 1000;
    let clock = Date.now();
    const { store, repos, maintainer } = await setup('maint-c', { graceMs, now: () => new Date(clock) });
    const repo = `lost${Math.random().toString(36).slice(2, 10)}/app`;
    const path = parseRepoPath(repo);
    await repos.createRepo(repo);
    await push(repos, repo, 1);
    await maintainer.pass();
    expect(await store.head(pendingKey(path))).toBeUndefined();

    // A push whose old value went stale before its turn: its pack was uploaded, and no entry names it.
    const scratch = await ScratchRepo.create();
    cleanups.push(() => scratch.remove());
    const oid = await scratch.commit('main', { lost: 'lost\n' });
    const built = await scratch.pack([oid], []);
    const lost = await repos.publish(repo, {
      kind: 'push',
      refUpdates: [{ ref: 'refs/heads/main', old: zeroOid('sha1'), new: oid }],
      pack: { body: built.pack, idx: built.idx },
      pusher: 't',
      requestId: 'lost',
      atomic: true,
    });
    expect(lost.outcome).toBe('rejected');
    const listed = (await repos.readHead(repo, { fresh: true })).packs.map((p) => p.sha256);
    const orphans = (await packsInBucket(store, path)).filter((key) => !listed.some((sha256) => key.endsWith(`${sha256}.pack`)));
    expect(orphans).toHaveLength(1);
    const marker = await store.get(pendingKey(path));
    expect(marker?.kind === 'object' && decodeMarker(marker.body).reasons).toEqual(['orphaned-pack']);

    // gc runs, keeps the young pack, and the marker comes back with the time it is due.
    const first = await maintainer.pass();
    expect(first.repos.find((r) => r.repo === repo)).toEqual({ repo, ran: ['fsck', 'gc'], outcome: 'waiting' });
    expect(await packsInBucket(store, path)).toEqual(expect.arrayContaining(orphans));
    const waiting = await store.get(pendingKey(path));
    const dueAt = waiting?.kind === 'object' ? decodeMarker(waiting.body).dueAt : undefined;
    expect(dueAt?.getTime()).toBeGreaterThan(clock + graceMs - 10 * 60_000);
    expect(dueAt?.getTime()).toBeLessThanOrEqual(clock + graceMs + 60_000);
    // Before then, a pass does nothing for it.
    expect((await maintainer.pass()).repos.find((r) => r.repo === repo)).toEqual({ repo, ran: [], outcome: 'waiting' });

    clock += graceMs + 2 * 60_000;
    const due = await maintainer.pass();
    expect(due.repos.find((r) => r.repo === repo)).toEqual({ repo, ran: ['gc'], outcome: 'done' });
    expect(await packsInBucket(store, path)).not.toEqual(expect.arrayContaining(orphans));
    expect(await store.head(pendingKey(path))).toBeUndefined();
    expect((await repos.readHead(repo, { fresh: true })).refs.get('refs/heads/main')).toBeDefined();
  });
});
