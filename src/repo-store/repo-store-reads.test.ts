// Reads: the freshness TTL, shared revalidation, history through a checkpoint, and maintenance markers.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../object-store/memory-object-store.ts';
import { CountingObjectStore } from '../object-store/testing/counting-object-store.ts';
import { encodeCheckpoint } from './checkpoint.ts';
import { HistoryUnavailableError, SeqOutOfRangeError } from './errors.ts';
import { checkpointKey, logKey, manifestKey } from './layout.ts';
import { encodeManifest, pristineManifest } from './manifest.ts';
import { CHECKPOINT_EVERY, maintenanceDue } from './pending.ts';
import { parseRepoPath } from './repo-path.ts';
import { RepoStore } from './repo-store.ts';
import { newRepoName, oid, update, Z } from './testing/repo-store-scenarios.ts';

async function repoWithHistory(bucket: MemoryObjectStore, n: number) {
  const repo = newRepoName();
  const store = new RepoStore({ store: bucket });
  await store.createRepo(repo);
  for (let i = 1; i <= n; i++) {
    await store.publish(
      repo,
      update([
        { ref: 'refs/heads/main', old: i === 1 ? Z : oid(`${i - 1}`), new: oid(`${i}`) },
        { ref: `refs/tags/t${i}`, old: Z, new: oid(`${i}`) },
      ]),
    );
  }
  return { repo, path: parseRepoPath(repo), store };
}

describe('RepoStore reads', () => {
  it('answers from memory within the freshness TTL, and shares one revalidation between concurrent reads', async () => {
    const bucket = new MemoryObjectStore();
    const { repo } = await repoWithHistory(bucket, 1);
    let now = Date.parse('2030-01-01T00:00:00Z');
    const counted = new CountingObjectStore(bucket);
    const store = new RepoStore({ store: counted, freshnessTtlMs: 1000, now: () => new Date(now) });
    await store.readHead(repo);
    await store.readHead(repo);
    expect(counted.total).toBe(1);
    now += 1000;
    await Promise.all([store.readHead(repo), store.readHead(repo), store.readHead(repo)]);
    expect(counted.total).toBe(2);
    const untimed = new CountingObjectStore(bucket);
    const strict = new RepoStore({ store: untimed });
    await Promise.all([strict.readHead(repo), strict.readHead(repo)]);
    expect(untimed.total).toBe(1);
  });

  it('chooses the cheapest way to an old state: undo from the head or replay from the start', async () => {
    const bucket = new MemoryObjectStore();
    const { repo, store } = await repoWithHistory(bucket, 10);
    const counted = new CountingObjectStore(bucket);
    const reader = new RepoStore({ store: counted });
    const at2 = await reader.stateAt(repo, 2);
    expect([...at2.refs]).toEqual([
      ['refs/heads/main', oid('2')],
      ['refs/tags/t1', oid('1')],
      ['refs/tags/t2', oid('2')],
    ]);
    expect(counted.count('get')).toBe(1 + 2); // head, entries 1..2
    counted.reset();
    expect((await reader.refsAt(repo, 9)).get('refs/heads/main')).toBe(oid('9'));
    expect(counted.count('get')).toBe(1 + 1); // head, entry 10
    await expect(store.stateAt(repo, 11)).rejects.toBeInstanceOf(SeqOutOfRangeError);
  });

  it('reads history through a checkpoint once retention has folded the log start away', async () => {
    const bucket = new MemoryObjectStore();
    const { repo, path, store } = await repoWithHistory(bucket, 8);
    const at5 = await store.stateAt(repo, 5);
    const head = await store.readHead(repo);
    // What maintenance will do: write the checkpoint, point the manifest at it, then drop entries before it.
    await bucket.put(checkpointKey(path, 5), encodeCheckpoint(head.repoId, at5));
    await bucket.put(manifestKey(path), encodeManifest({ ...head, checkpoint: { seq: 5 }, logStart: 6 }), { ifMatch: head.etag });
    for (let seq = 1; seq <= 5; seq++) await bucket.delete(logKey(path, seq));

    const reader = new RepoStore({ store: bucket });
    expect(await reader.stateAt(repo, 5)).toEqual(at5);
    expect((await reader.refsAt(repo, 6)).get('refs/heads/main')).toBe(oid('6'));
    await expect(reader.stateAt(repo, 4)).rejects.toBeInstanceOf(HistoryUnavailableError);
    expect(await reader.readEntry(repo, 5)).toBeUndefined();
    const page = await reader.listLog(repo, 1);
    expect(page.logStart).toBe(6);
    expect(page.entries.map((e) => e.seq)).toEqual([6, 7, 8]); // the gap is visible to a bridge that asked for 1
    // Publishing goes on past the fold.
    expect(await reader.publish(repo, update([{ ref: 'refs/heads/main', old: oid('8'), new: oid('9') }]))).toMatchObject({ outcome: 'published', seq: 9 });
  });

  it('puts a maintenance marker when a publish makes a checkpoint due, and lists it', async () => {
    const bucket = new MemoryObjectStore();
    const { repo } = await repoWithHistory(bucket, CHECKPOINT_EVERY - 1);
    const store = new RepoStore({ store: bucket, registry: new Registry() });
    expect((await store.listPending()).map((m) => m.repo)).not.toContain(repo);
    await store.publish(repo, update([{ ref: 'refs/heads/other', old: Z, new: oid('x') }]));
    expect((await store.listPending()).find((m) => m.repo === repo)).toMatchObject({ repo, key: `pending/${repo}.json`, markedAt: expect.any(Date) });
    await store.deleteRepo(repo);
    expect((await store.listPending()).map((m) => m.repo)).not.toContain(repo);
  });

  it('makes maintenance due once per threshold crossed', () => {
    const base = pristineManifest({ repo: 'a/b', repoId: 'x', objectFormat: 'sha1', headRef: 'refs/heads/main', now: new Date(0) });
    const at = (seq: number, packs = 0, checkpoint: number | null = null) => ({
      ...base,
      seq,
      checkpoint: checkpoint === null ? null : { seq: checkpoint },
      packs: Array.from({ length: packs }, (_, i) => ({ sha256: String(i).padStart(64, '0'), size: 1, idxSize: null, seq: 1 })),
    });
    expect(maintenanceDue(at(62), at(63))).toEqual([]);
    expect(maintenanceDue(at(63), at(64))).toEqual(['checkpoint']);
    expect(maintenanceDue(at(64), at(65))).toEqual([]);
    // Counted from the checkpoint: 64 entries past it.
    expect(maintenanceDue(at(100, 0, 64), at(127, 0, 64))).toEqual([]);
    expect(maintenanceDue(at(127, 0, 64), at(128, 0, 64))).toEqual(['checkpoint']);
    expect(maintenanceDue(at(10, 15), at(11, 16))).toEqual(['compaction']);
    expect(maintenanceDue(at(62, 15), at(64, 16))).toEqual(['checkpoint', 'compaction']);
  });
});
