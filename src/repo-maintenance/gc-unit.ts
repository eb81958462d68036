// Garbage collection: delete what nothing references any more. Kept: every pack the manifest lists (they
// hold every object of every retained state: compaction keeps all of them); every pack written or retired
// less than the grace period ago (a publish between its pack upload and its log entry, a reader still on an
// old manifest); log entries from `logStart` on; checkpoints from the one `logStart` relies on. LFS objects are
// left alone (blobs reference them by content, which only a walk of every blob could tell). A pack kept only for
// its youth is recorded with the retired ones, so that the maintainer comes back for it when its period ends.
//
// The head gc decides on is rolled forward first: a log entry past the head is decided history whose pack no
// manifest lists yet (its writer died before its manifest swap), and the next publish would commit it onto a
// deleted pack. Deletes run after a second roll-forward, pack by pack against its head, so a pack a publish
// took up meanwhile is kept.
import { listAll } from '../object-store/list-all.ts';
import type { RepoHead } from '../repo-store/head-cache.ts';
import { logKey, repoPrefix } from '../repo-store/layout.ts';
import { parseRepoPath, type RepoPath } from '../repo-store/repo-path.ts';
import { parseSeqKey } from '../repo-store/seq.ts';
import { listCheckpoints } from './checkpoint-unit.ts';
import type { MaintenanceContext } from './context.ts';
import { UnitInterruptedError, type UnitContext, type UnitResult } from './operation.ts';
import type { MaintenanceStatus } from './status.ts';

const PACK_OBJECT = /^([0-9a-f]{64})\.(pack|idx)$/;
const DELETES_AT_ONCE = 16;

export async function runGc(ctx: MaintenanceContext, repoName: string, _head: RepoHead, unit: UnitContext, status: MaintenanceStatus): Promise<{ result: UnitResult; status: MaintenanceStatus }> {
  const repo = parseRepoPath(repoName);
  const head = await ctx.repos.rollForward(repoName);
  const now = ctx.now();
  const at = now.toISOString();
  const young = (time: Date | string) => now.getTime() - new Date(time).getTime() < ctx.graceMs;
  const stop = () => {
    if (unit.signal.aborted) throw new UnitInterruptedError();
  };

  unit.progress(0, 3, 'reading checkpoints');
  const checkpoints = await listCheckpoints(ctx, repo);
  // The checkpoint logStart relies on, and every newer one, stay. The packs a checkpoint lists keep nothing
  // alive: every state is read with the head's packs, which hold every object (compaction keeps them all).
  const keptFrom = Math.max(0, head.logStart - 1);
  const referenced = new Set(head.packs.map((p) => p.sha256));
  const doomed: { key: string; size: number }[] = [];
  for (const cp of checkpoints) if (cp.seq < keptFrom && cp.seq !== head.checkpoint?.seq) doomed.push({ key: cp.key, size: 0 });
  stop();

  unit.progress(1, 3, 'listing packs and log entries');
  const youngRetired = status.retiredPacks.filter((r) => young(r.at));
  const retiredRecently = new Set(youngRetired.map((r) => r.sha256));
  // A pack and its index go together, young while either is: a publish that sends a pack again rewrites the pack
  // (publish.ts) and keeps the index there.
  const unlisted = new Map<string, { items: { key: string; size: number }[]; newest: Date }>();
  for await (const item of listAll(ctx.store, `${repoPrefix(repo)}packs/`)) {
    const match = PACK_OBJECT.exec(item.key.slice(`${repoPrefix(repo)}packs/`.length));
    if (!match) continue;
    const sha256 = match[1] as string;
    if (referenced.has(sha256) || retiredRecently.has(sha256)) continue;
    const known = unlisted.get(sha256);
    if (!known) unlisted.set(sha256, { items: [{ key: item.key, size: item.size }], newest: item.lastModified });
    else {
      known.items.push({ key: item.key, size: item.size });
      if (item.lastModified > known.newest) known.newest = item.lastModified;
    }
  }
  const candidatePacks: { key: string; sha256: string; size: number }[] = [];
  const youngUnlisted = new Map<string, string>();
  for (const [sha256, { items, newest }] of unlisted) {
    if (young(newest)) youngUnlisted.set(sha256, newest.toISOString());
    else for (const item of items) candidatePacks.push({ ...item, sha256 });
  }
  for (const seq of await foldedLogSeqs(ctx, repo, head)) doomed.push({ key: logKey(repo, seq), size: 0 });
  stop();

  unit.progress(2, 3, 'deleting');
  // A publish may have taken one of the candidates up since the head was read, or written its entry and
  // not swapped the manifest yet: check against a fresh head with such entries committed.
  const fresh = await ctx.repos.rollForward(repoName);
  const live = new Set(fresh.packs.map((p) => p.sha256));
  for (const pack of candidatePacks) if (!live.has(pack.sha256)) doomed.push(pack);
  let deletedBytes = 0;
  for (let i = 0; i < doomed.length; i += DELETES_AT_ONCE) {
    stop();
    const batch = doomed.slice(i, i + DELETES_AT_ONCE);
    await Promise.all(batch.map((item) => ctx.store.delete(item.key)));
    deletedBytes += batch.reduce((sum, item) => sum + item.size, 0);
    unit.progress(Math.min(i + DELETES_AT_ONCE, doomed.length), doomed.length, 'deleting');
  }
  // Still young: retired by a compaction, or written by a publish that may yet name it (or never will). One record
  // a pack, its latest: an older one of the same pack would be due while the pack is still kept.
  const latest = new Map<string, string>();
  const kept = [...youngRetired, ...[...youngUnlisted].filter(([sha256]) => !live.has(sha256)).map(([sha256, at]) => ({ sha256, at }))];
  for (const r of kept) {
    const known = latest.get(r.sha256);
    if (known === undefined || Date.parse(r.at) > Date.parse(known)) latest.set(r.sha256, r.at);
  }
  const retiredPacks = [...latest].map(([sha256, at]) => ({ sha256, at }));
  const summary = `deleted ${doomed.length} objects (${deletedBytes} bytes of packs)`;
  unit.log(summary);
  return { result: { summary }, status: { ...status, retiredPacks, gc: { at, outcome: 'succeeded', deletedObjects: doomed.length, deletedBytes } } };
}

/** Seqs of log entries below `logStart` still in the bucket (retired by a checkpoint, not yet deleted). */
async function foldedLogSeqs(ctx: MaintenanceContext, repo: RepoPath, head: RepoHead): Promise<number[]> {
  if (head.logStart <= 1) return [];
  const prefix = `${repoPrefix(repo)}log/`;
  const seqs: number[] = [];
  for await (const item of listAll(ctx.store, prefix)) {
    const seq = parseSeqKey(item.key.slice(prefix.length).replace(/\.json$/, ''));
    // Key order is seq order: the first kept entry ends the folded run.
    if (seq === undefined) continue;
    if (seq >= head.logStart) break;
    seqs.push(seq);
  }
  return seqs;
}
