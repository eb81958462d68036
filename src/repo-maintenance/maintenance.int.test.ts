import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { syncBareRepo } from '../git/bare-repo.ts';
import { runGit } from '../git/run-git.ts';
import { ScratchRepo } from '../git/testing/scratch-repo.ts';
import { S3ObjectStore } from '../object-store/s3-object-store.ts';
import { FaultObjectStore } from '../object-store/testing/fault-object-store.ts';
import { eventsCursorKey, manifestKey, parseRepoPath, PublishIncompleteError, RepoStore, zeroOid } from '../repo-store/index.ts';
import { listAll } from '../object-store/list-all.ts';
import { Lease } from './lease.ts';
import { LeaseHeldError, RepoMaintenance } from './maintenance.ts';
import { silentContext, UnitInterruptedError } from './operation.ts';
import { readStatus } from './status.ts';
import { repoOverview } from './overview.ts';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function connect() {
  const store = new S3ObjectStore({ config: inject('s3'), bucket: inject('bucket'), registry: new Registry() });
  cleanups.push(async () => store.destroy());
  return { store, repos: new RepoStore({ store, registry: new Registry() }) };
}

async function maintainer(host: string, options: { graceMs?: number; logRetentionMs?: number } = {}) {
  const { store, repos } = connect();
  return { store, repos, maintenance: new RepoMaintenance({ repos, store, host, workDir: await tempDir('cw-maint-'), ...options }) };
}

/** A repository with `commits` pushes of one commit each (one pack each), as many small pushes leave it. */
async function pushedRepo(repos: RepoStore, commits: number): Promise<{ repo: string; scratch: ScratchRepo; oids: string[] }> {
  const repo = `maint${Math.random().toString(36).slice(2, 10)}/app`;
  await repos.createRepo(repo);
  const scratch = await ScratchRepo.create();
  cleanups.push(() => scratch.remove());
  const oids: string[] = [];
  let old = zeroOid('sha1');
  for (let i = 0; i < commits; i++) {
    const oid = await scratch.commit('main', { [`file${i}.txt`]: `content ${i}\n` });
    const built = await scratch.pack([oid], oids.slice(-1));
    const result = await repos.publish(repo, {
      kind: 'push',
      refUpdates: [{ ref: 'refs/heads/main', old, new: oid }],
      pack: { body: built.pack, idx: built.idx },
      pusher: 't',
      requestId: `r${i}`,
      atomic: true,
    });
    expect(result.outcome).toBe('published');
    oids.push(oid);
    old = oid;
  }
  return { repo, scratch, oids };
}

/** A bare repository of `repo` as of `seq`, checked by git fsck; answers its refs. */
async function materialize(repos: RepoStore, repo: string, seq: number): Promise<string> {
  const dir = join(await tempDir('cw-mat-'), 'repo.git');
  const head = await repos.readHead(repo);
  await syncBareRepo({ repos, repo, head, state: await repos.stateAt(repo, seq), dir });
  await runGit(['-C', dir, 'fsck', '--no-dangling']);
  return (await runGit(['-C', dir, 'rev-parse', 'refs/heads/main'])).stdout.toString().trim();
}

describe('repository maintenance', () => {
  it('compacts many packs into one, keeps every old seq materializable, and gc deletes the retired packs only after the grace period', async () => {
    const { store, repos, maintenance } = await maintainer('m1', { graceMs: 0 });
    const { repo, oids } = await pushedRepo(repos, 18);
    expect((await repos.readHead(repo)).packs).toHaveLength(18);

    const lines: string[] = [];
    const result = await maintenance.run(repo, 'compact', { ...silentContext(), log: (line) => lines.push(line) });
    expect(result.summary).toMatch(/compacted 18 packs into 1/);
    const head = await repos.readHead(repo, { fresh: true });
    expect(head.packs).toHaveLength(1);
    expect(head.refs.get('refs/heads/main')).toBe(oids.at(-1));
    const status = await readStatus(store, parseRepoPath(repo), head.repoId);
    expect(status.compaction).toMatchObject({ outcome: 'succeeded', packsBefore: 18, packsAfter: 1 });
    expect(status.retiredPacks).toHaveLength(18);
    expect(await materialize(repos, repo, 5)).toBe(oids[4]);

    const gc = await maintenance.run(repo, 'gc', silentContext());
    expect(gc.summary).toMatch(/deleted 36 objects/); // 18 packs and their indexes
    const packKeys: string[] = [];
    for await (const item of listAll(store, `repos/${repo}/packs/`)) packKeys.push(item.key);
    expect(packKeys).toHaveLength(2);
    expect(await materialize(repos, repo, 3)).toBe(oids[2]);
    const fsck = await maintenance.run(repo, 'fsck', silentContext());
    expect(fsck.summary).toMatch(/clean/);
  });

  it('gc keeps the pack of a push whose writer died between its log entry and its manifest swap', async () => {
    const { store, repos, maintenance } = await maintainer('m-orphan', { graceMs: 0 });
    const { repo, scratch, oids } = await pushedRepo(repos, 1);
    const feature = await scratch.commit('feature', { 'feature.txt': 'feature\n' }, { from: oids[0] });
    const built = await scratch.pack([feature], oids);
    // Another instance writes log entry 2 for the push, then dies before its manifest swap.
    const dying = new RepoStore({ store: new FaultObjectStore(store).inject({ match: (key) => key === manifestKey(parseRepoPath(repo)), fault: 'crash-before' }), registry: new Registry() });
    const push = {
      kind: 'push',
      refUpdates: [{ ref: 'refs/heads/feature', old: zeroOid('sha1'), new: feature }],
      pack: { body: built.pack, idx: built.idx },
      pusher: 't',
      requestId: 'dies',
      atomic: true,
    } as const;
    await expect(dying.publish(repo, push)).rejects.toBeInstanceOf(PublishIncompleteError);
    expect((await repos.readHead(repo, { fresh: true })).seq).toBe(1);

    await maintenance.run(repo, 'gc', silentContext());
    // The next write commits entry 2 on its way, whoever runs first: its pack must still be there.
    const next = await repos.publish(repo, { kind: 'ref_update', refUpdates: [{ ref: 'refs/tags/v1', old: zeroOid('sha1'), new: feature }], pusher: 't', requestId: 'next', atomic: true });
    expect(next).toMatchObject({ outcome: 'published', seq: 3 });
    expect(next.head.refs.get('refs/heads/feature')).toBe(feature);
    for (const pack of next.head.packs) expect(await repos.readPack(repo, pack), pack.sha256).toBeDefined();
    expect((await maintenance.run(repo, 'fsck', silentContext())).summary).toMatch(/clean/);
  });

  it('a push sent again after a first try that lost is published under a copy key, read, retired and collected by it', async () => {
    const { store, repos, maintenance } = await maintainer('m-copy', { graceMs: 0 });
    const { repo, scratch, oids } = await pushedRepo(repos, 1);
    const second = await scratch.commit('main', { 'second.txt': 'second\n' });
    const built = await scratch.pack([second], oids);
    const push = (old: string) =>
      repos.publish(repo, { kind: 'push', refUpdates: [{ ref: 'refs/heads/main', old, new: second }], pack: { body: built.pack, idx: built.idx }, pusher: 't', requestId: 'again', atomic: true });
    expect((await push(zeroOid('sha1'))).outcome).toBe('rejected');
    expect(await push(oids[0] as string)).toMatchObject({ outcome: 'published', seq: 2 });
    const copied = (await repos.readHead(repo, { fresh: true })).packs.find((p) => p.copy !== undefined);
    expect(copied?.seq).toBe(2);
    expect(await materialize(repos, repo, 2)).toBe(second);
    expect((await maintenance.run(repo, 'fsck', silentContext())).summary).toMatch(/clean/);

    await maintenance.run(repo, 'compact', silentContext());
    const head = await repos.readHead(repo, { fresh: true });
    expect((await readStatus(store, parseRepoPath(repo), head.repoId)).retiredPacks).toContainEqual(expect.objectContaining({ sha256: copied?.sha256, copy: copied?.copy }));
    // No grace: the orphan the first try left, and both retired packs, copy included, go; the compacted pack stays.
    expect((await maintenance.run(repo, 'gc', silentContext())).summary).toMatch(/deleted 6 objects/);
    const keys: string[] = [];
    for await (const item of listAll(store, `repos/${repo}/packs/`)) keys.push(item.key);
    expect(keys).toHaveLength(2);
    expect(await materialize(repos, repo, 2)).toBe(second);
  });

  it('keeps retired packs during the grace period', async () => {
    const { store, repos, maintenance } = await maintainer('m-grace', { graceMs: 60 * 60 * 1000 });
    const { repo } = await pushedRepo(repos, 3);
    await maintenance.run(repo, 'compact', silentContext());
    const gc = await maintenance.run(repo, 'gc', silentContext());
    expect(gc.summary).toMatch(/deleted 0 objects/);
    const keys: string[] = [];
    for await (const item of listAll(store, `repos/${repo}/packs/`)) keys.push(item.key);
    expect(keys).toHaveLength(8);
  });

  it('checkpoints fold the log: entries behind an old enough checkpoint are retired, never past the events cursor', async () => {
    const { store, repos, maintenance } = await maintainer('m2', { logRetentionMs: 0, graceMs: 0 });
    const { repo, oids } = await pushedRepo(repos, 6);
    const path = parseRepoPath(repo);
    // The bridge has delivered up to seq 3: the log must keep seq 4 on.
    await store.put(eventsCursorKey(path), JSON.stringify({ schema: 1, published_seq: '3', updated_at: new Date().toISOString() }));
    await maintenance.run(repo, 'checkpoint', silentContext()); // checkpoint at 6; nothing old enough at ≤ 3
    let head = await repos.readHead(repo, { fresh: true });
    expect(head.checkpoint).toEqual({ seq: 6 });
    expect(head.logStart).toBe(1);

    await store.put(eventsCursorKey(path), JSON.stringify({ schema: 1, published_seq: '6', updated_at: new Date().toISOString() }));
    await maintenance.run(repo, 'checkpoint', silentContext());
    head = await repos.readHead(repo, { fresh: true });
    expect(head.logStart).toBe(7);
    await maintenance.run(repo, 'gc', silentContext());
    const logKeys: string[] = [];
    for await (const item of listAll(store, `repos/${repo}/log/`)) logKeys.push(item.key);
    expect(logKeys).toEqual([]);
    expect((await repos.listLog(repo, 1)).entries).toEqual([]);
    // The head and the checkpoint's seq stay materializable; what retention folded away is reported as such.
    expect(await materialize(repos, repo, 6)).toBe(oids[5]);
    await expect(repos.stateAt(repo, 2)).rejects.toThrow(/history/i);
    const status = await readStatus(store, path, head.repoId);
    expect(status.checkpoint?.seq).toBe(6);
  });

  it('two maintainers never work on one repository at once', async () => {
    const a = await maintainer('host-a');
    const b = await maintainer('host-b');
    const { repo } = await pushedRepo(a.repos, 6);
    // While one holds the lease, the other is refused, naming the holder.
    const held = await Lease.acquire({ store: a.store, repo: parseRepoPath(repo), host: 'host-a', operation: 'compact', ttlMs: 60_000 });
    if (!(held instanceof Lease)) throw new Error('expected to take the lease');
    await expect(b.maintenance.run(repo, 'compact', silentContext())).rejects.toThrow(/maintained by host-a \(compact\)/);
    await held.release();

    // Racing: the units that ran never overlapped in time.
    const spans: { start: number; end: number }[] = [];
    const timed = async (m: RepoMaintenance) => {
      let start = 0;
      try {
        await m.run(repo, 'compact', { ...silentContext(), progress: () => (start ||= performance.now()) });
        spans.push({ start, end: performance.now() });
      } catch (err) {
        expect(err).toBeInstanceOf(LeaseHeldError);
      }
    };
    await Promise.all([timed(a.maintenance), timed(b.maintenance), timed(a.maintenance), timed(b.maintenance)]);
    spans.sort((x, y) => x.start - y.start);
    expect(spans.length).toBeGreaterThanOrEqual(1);
    for (let i = 1; i < spans.length; i++) expect(spans[i]?.start).toBeGreaterThanOrEqual(spans[i - 1]?.end as number);
    expect((await a.repos.readHead(repo, { fresh: true })).packs).toHaveLength(1);
  });

  it('an interrupted compaction changes nothing and is recorded; the next run finishes it', async () => {
    const { store, repos, maintenance } = await maintainer('m3');
    const { repo, oids } = await pushedRepo(repos, 5);
    const controller = new AbortController();
    const run = maintenance.run(repo, 'compact', {
      ...silentContext(controller.signal),
      progress: (_done, _total, phase) => {
        if (phase.startsWith('repacking')) controller.abort();
      },
    });
    await expect(run).rejects.toBeInstanceOf(UnitInterruptedError);
    let head = await repos.readHead(repo, { fresh: true });
    expect(head.packs).toHaveLength(5);
    expect((await readStatus(store, parseRepoPath(repo), head.repoId)).compaction?.outcome).toBe('interrupted');
    await maintenance.run(repo, 'compact', silentContext());
    head = await repos.readHead(repo, { fresh: true });
    expect(head.packs).toHaveLength(1);
    expect(head.refs.get('refs/heads/main')).toBe(oids.at(-1));
  });

  it('fsck counts the objects the refs need and no pack has, and the overview reports it as an error', async () => {
    const { store, repos, maintenance } = await maintainer('m4');
    const { repo, oids } = await pushedRepo(repos, 2);
    const ghost = 'f'.repeat(40);
    await repos.publish(repo, { kind: 'ref_update', refUpdates: [{ ref: 'refs/heads/ghost', old: zeroOid('sha1'), new: ghost }], pusher: 't', requestId: 'g', atomic: true });
    const result = await maintenance.run(repo, 'fsck', silentContext());
    expect(result.summary).toMatch(/1 missing objects/);
    const head = await repos.readHead(repo, { fresh: true });
    const overview = await repoOverview(store, parseRepoPath(repo), head);
    expect(overview.lastFsck).toMatchObject({ missingObjects: 1, seq: 3 });
    expect(overview.health.status).toBe('error');
    expect(oids).toHaveLength(2);
  });
});
