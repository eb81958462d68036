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
// took up meanwhile is kept. One it takes up after that is never an object gc listed: a publish names only pack
// objects it created (pack-upload.ts), so gc decides by object name (`<sha256>` or `<sha256>.<copy>`), not by
// content, and an old orphan is deleted while a copy of the same bytes is kept.
import { listAll } from '../object-store/list-all.ts';
import type { RepoHead } from '../repo-store/head-cache.ts';
import { logKey, repoPrefix } from '../repo-store/layout.ts';
import { packObjectName, packOfFile, type PackObject } from '../repo-store/pack-object.ts';
import { parseRepoPath, type RepoPath } from '../repo-store/repo-path.ts';
import { parseSeqKey } from '../repo-store/seq.ts';
import { listCheckpoints } from './checkpoint-unit.ts';
import type { MaintenanceContext } from './context.ts';
import { UnitInterruptedError, type UnitContext, type UnitResult } from './operation.ts';
import type { MaintenanceStatus, RetiredPack } from './status.ts';

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
  const referenced = new Set(head.packs.map(packObjectName));
  const doomed: { key: string; size: number }[] = [];
  for (const cp of checkpoints) if (cp.seq < keptFrom && cp.seq !== head.checkpoint?.seq) doomed.push({ key: cp.key, size: 0 });
  stop();

  unit.progress(1, 3, 'listing packs and log entries');
  const youngRetired = status.retiredPacks.filter((r) => young(r.at));
  const retiredRecently = new Set(youngRetired.map(packObjectName));
  // A pack and its index go together, young while either is (their writer puts them one beside the other).
  const unlisted = new Map<string, { pack: PackObject; items: { key: string; size: number }[]; newest: Date }>();
  for await (const item of listAll(ctx.store, `${repoPrefix(repo)}packs/`)) {
    const pack = packOfFile(item.key.slice(`${repoPrefix(repo)}packs/`.length));
    if (!pack) continue;
    const name = packObjectName(pack);
    if (referenced.has(name) || retiredRecently.has(name)) continue;
    const known = unlisted.get(name);
    if (!known) unlisted.set(name, { pack, items: [{ key: item.key, size: item.size }], newest: item.lastModified });
    else {
      known.items.push({ key: item.key, size: item.size });
      if (item.lastModified > known.newest) known.newest = item.lastModified;
    }
  }
  const candidatePacks: { key: string; name: string; size: number }[] = [];
  const youngUnlisted: RetiredPack[] = [];
  for (const [name, { pack, items, newest }] of unlisted) {
    if (young(newest)) youngUnlisted.push({ ...pack, at: newest.toISOString() });
    else for (const item of items) candidatePacks.push({ ...item, name });
  }
  for (const seq of await foldedLogSeqs(ctx, repo, head)) doomed.push({ key: logKey(repo, seq), size: 0 });
  stop();

  unit.progress(2, 3, 'deleting');
  // A publish may have taken one of the candidates up since the head was read, or written its entry and
  // not swapped the manifest yet: check against a fresh head with such entries committed.
  const fresh = await ctx.repos.rollForward(repoName);
  const live = new Set(fresh.packs.map(packObjectName));
  for (const pack of candidatePacks) if (!live.has(pack.name)) doomed.push(pack);
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
  const latest = new Map<string, RetiredPack>();
  for (const r of [...youngRetired, ...youngUnlisted.filter((r) => !live.has(packObjectName(r)))]) {
    const known = latest.get(packObjectName(r));
    if (known === undefined || Date.parse(r.at) > Date.parse(known.at)) latest.set(packObjectName(r), r);
  }
  const retiredPacks = [...latest.values()];
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
