// Crash and pause cases of the publish protocol, on the memory store (exact, fast, deterministic).
import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../object-store/memory-object-store.ts';
import { FaultObjectStore, SimulatedCrash } from '../object-store/testing/fault-object-store.ts';
import { GateStore } from '../object-store/testing/gate-object-store.ts';
import { InvalidPublishError, PublishOutcomeUnknownError, UnsupportedSchemaError } from './errors.ts';
import { logKey, manifestKey } from './layout.ts';
import { encodeLogEntry } from './log-entry.ts';
import { encodeManifest } from './manifest.ts';
import { parseRepoPath } from './repo-path.ts';
import { RepoStore } from './repo-store.ts';
import { newRepoName, oid, smallPack, update, Z } from './testing/repo-store-scenarios.ts';

async function repoWithMain(bucket: MemoryObjectStore) {
  const repo = newRepoName();
  const store = new RepoStore({ store: bucket });
  await store.createRepo(repo);
  await store.publish(repo, update([{ ref: 'refs/heads/main', old: Z, new: oid('base') }]));
  return { repo, path: parseRepoPath(repo), store };
}

describe('publish recovery', () => {
  it('rolls forward a chain of orphans, each built on the one before', async () => {
    const bucket = new MemoryObjectStore();
    const { repo, path, store } = await repoWithMain(bucket);
    const crashAtCas = () => new RepoStore({ store: new FaultObjectStore(bucket).inject({ match: (k) => k === manifestKey(path), fault: 'crash-before' }) });
    await expect(crashAtCas().publish(repo, update([{ ref: 'refs/heads/a', old: Z, new: oid('a') }]))).rejects.toMatchObject({ cause: expect.any(SimulatedCrash) });
    // The second dying writer finds the first orphan, builds on it, and dies too.
    await expect(crashAtCas().publish(repo, update([{ ref: 'refs/heads/main', old: oid('base'), new: oid('b') }]))).rejects.toMatchObject({ cause: expect.any(SimulatedCrash) });
    expect((await store.readHead(repo)).seq).toBe(1);
    // A writer whose old value only the orphans contradict is rejected, and the orphans become visible.
    const stale = await store.publish(repo, update([{ ref: 'refs/heads/main', old: oid('base'), new: oid('c') }]));
    expect(stale).toMatchObject({ outcome: 'rejected', refs: [{ reason: 'stale old value' }] });
    expect(stale.head.seq).toBe(3);
    const next = await store.publish(repo, update([{ ref: 'refs/heads/main', old: oid('b'), new: oid('c') }]));
    expect(next).toMatchObject({ outcome: 'published', seq: 4 });
    expect([...next.head.refs]).toEqual([
      ['refs/heads/a', oid('a')],
      ['refs/heads/main', oid('c')],
    ]);
  });

  it('rollForward commits the orphans past the head without a write of its own', async () => {
    const bucket = new MemoryObjectStore();
    const { repo, path, store } = await repoWithMain(bucket);
    const crashAtCas = () => new RepoStore({ store: new FaultObjectStore(bucket).inject({ match: (k) => k === manifestKey(path), fault: 'crash-before' }) });
    await expect(crashAtCas().publish(repo, update([{ ref: 'refs/heads/a', old: Z, new: oid('a') }], { pack: smallPack() }))).rejects.toMatchObject({ cause: expect.any(SimulatedCrash) });
    await expect(crashAtCas().publish(repo, update([{ ref: 'refs/heads/b', old: Z, new: oid('b') }]))).rejects.toMatchObject({ cause: expect.any(SimulatedCrash) });
    const head = await store.rollForward(repo);
    expect(head).toMatchObject({ seq: 3, packs: [expect.objectContaining({ seq: 2 })] });
    expect([...head.refs.keys()]).toEqual(['refs/heads/a', 'refs/heads/b', 'refs/heads/main']);
    expect(await store.rollForward(repo)).toMatchObject({ seq: 3, etag: head.etag });
  });

  it('a publish only for a repository without refs is rejected by an entry of other refs it meets on the way', async () => {
    const bucket = new MemoryObjectStore();
    const repo = newRepoName();
    const store = new RepoStore({ store: bucket });
    await store.createRepo(repo);
    const crashAtCas = new RepoStore({ store: new FaultObjectStore(bucket).inject({ match: (k) => k === manifestKey(parseRepoPath(repo)), fault: 'crash-before' }) });
    await expect(crashAtCas.publish(repo, update([{ ref: 'refs/heads/a', old: Z, new: oid('a') }]))).rejects.toMatchObject({ cause: expect.any(SimulatedCrash) });
    // The head still has no refs; the entry past it does.
    expect((await store.readHead(repo)).refs.size).toBe(0);
    const pristineOnly = await store.publish(repo, update([{ ref: 'refs/heads/b', old: Z, new: oid('b') }], { onlyIfNoRefs: true }));
    expect(pristineOnly).toMatchObject({ outcome: 'rejected', refs: [{ ref: 'refs/heads/b', status: 'rejected', reason: 'not pristine' }] });
    expect([...pristineOnly.head.refs.keys()]).toEqual(['refs/heads/a']);
  });

  it('a writer paused between its log entry and its CAS is committed by the next writer, and told so', async () => {
    const bucket = new MemoryObjectStore();
    const { repo, path, store } = await repoWithMain(bucket);
    const gate = new GateStore(bucket, (k) => k === manifestKey(path));
    const paused = new RepoStore({ store: gate }).publish(repo, update([{ ref: 'refs/heads/slow', old: Z, new: oid('slow') }], { pack: smallPack() }));
    await gate.reached;
    const other = await store.publish(repo, update([{ ref: 'refs/heads/fast', old: Z, new: oid('fast') }]));
    expect(other).toMatchObject({ outcome: 'published', seq: 3 });
    gate.release();
    const result = await paused;
    expect(result).toMatchObject({ outcome: 'published', seq: 2 });
    expect(result.head.seq).toBe(3);
    const head = await store.readHead(repo);
    expect(head.refs.get('refs/heads/slow')).toBe(oid('slow'));
    expect(head.packs).toHaveLength(1);
  });

  it('a writer paused past log retention learns that its outcome is unknown', async () => {
    const bucket = new MemoryObjectStore();
    const { repo, path, store } = await repoWithMain(bucket);
    const gate = new GateStore(bucket, (k) => k === manifestKey(path));
    const paused = new RepoStore({ store: gate }).publish(repo, update([{ ref: 'refs/heads/slow', old: Z, new: oid('slow') }]));
    await gate.reached;
    await store.publish(repo, update([{ ref: 'refs/heads/fast', old: Z, new: oid('fast') }]));
    // Retention (maintenance, later) folds seqs 1..2 away.
    const head = await store.readHead(repo);
    await bucket.put(manifestKey(path), encodeManifest({ ...head, logStart: 3, checkpoint: { seq: 2 } }), { ifMatch: head.etag });
    gate.release();
    await expect(paused).rejects.toBeInstanceOf(PublishOutcomeUnknownError);
  });

  it('stops loudly at a log entry from a newer build instead of overwriting it', async () => {
    const bucket = new MemoryObjectStore();
    const { repo, path, store } = await repoWithMain(bucket);
    const head = await store.readHead(repo);
    const future = JSON.parse(Buffer.from(encodeLogEntry({ repoId: head.repoId, seq: 2, kind: 'push', at: '', pusher: 'p', requestId: 'r', nonce: 'n', refUpdates: [], pack: null })).toString());
    await bucket.put(logKey(path, 2), JSON.stringify({ ...future, schema: 3 }));
    await expect(store.publish(repo, update([{ ref: 'refs/heads/x', old: Z, new: oid('x') }]))).rejects.toBeInstanceOf(UnsupportedSchemaError);
    expect((await store.readHead(repo)).seq).toBe(1);
  });

  it('refuses malformed requests before uploading anything', async () => {
    const bucket = new MemoryObjectStore();
    const { repo, store } = await repoWithMain(bucket);
    const before = bucket.keys();
    await expect(store.publish(repo, update([]))).rejects.toBeInstanceOf(InvalidPublishError);
    await expect(store.publish(repo, update([{ ref: 'HEAD', old: Z, new: oid('x') }], { pack: smallPack() }))).rejects.toBeInstanceOf(InvalidPublishError);
    await expect(store.publish(repo, update([{ ref: 'refs/heads/x', old: Z, new: 'a'.repeat(64) }]))).rejects.toThrow(/not a sha1 object id/);
    expect(bucket.keys()).toEqual(before);
  });
});
