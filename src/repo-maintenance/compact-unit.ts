// Compaction: merge many small packs into few with git's own repack, publish the new pack set by
// compare-and-swap on the manifest, and retire the packs it replaced. Repositories whose packs total at most
// FULL_REPACK_BYTES are rolled into one pack; bigger ones repack geometrically (`--geometric=2`), so the
// cost of a pass stays proportional to what was pushed since the last. Both modes keep every object of the
// packs they replace, reachable or not: log entries and checkpoints may name states whose objects only
// those packs had. Retired packs stay in the bucket for the grace period, so a reader that started from the
// old manifest keeps finding them; gc deletes them afterwards.
import { readdir, stat } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { fileSha256, placedPacks, recordRepack } from '../git/bare-repo.ts';
import { runGit } from '../git/run-git.ts';
import type { RepoHead } from '../repo-store/head-cache.ts';
import { packObjectJson } from '../repo-store/pack-object.ts';
import { uploadPackObjects } from '../repo-store/pack-upload.ts';
import { parseRepoPath } from '../repo-store/repo-path.ts';
import { packBytes, type LivePack } from '../repo-store/state.ts';
import type { MaintenanceContext } from './context.ts';
import { UnitInterruptedError, type UnitContext, type UnitResult } from './operation.ts';
import type { CompactionRecord, MaintenanceStatus } from './status.ts';
import { dropWorkingCopy, syncWorkingCopy } from './working-copy.ts';

/** The record of a compaction of `head` that did not finish: nothing changed. */
export function unfinishedCompaction(head: RepoHead, at: string, outcome: 'failed' | 'interrupted', message: string): CompactionRecord {
  const bytes = packBytes(head.packs);
  return { at, outcome, packsBefore: head.packs.length, packsAfter: head.packs.length, bytesBefore: bytes, bytesAfter: bytes, message };
}

/** Up to this many bytes of packs, compaction rolls everything into one pack. */
export const FULL_REPACK_BYTES = 64 * 1024 * 1024;
// Bitmaps and reverse indexes are for serving big packs; the bucket keeps .pack and .idx only.
const REPACK_CONFIG = ['-c', 'repack.writeBitmaps=false', '-c', 'pack.writeReverseIndex=false', '-c', 'gc.auto=0'];

export async function runCompaction(
  ctx: MaintenanceContext,
  repoName: string,
  head: RepoHead,
  unit: UnitContext,
  status: MaintenanceStatus,
): Promise<{ result: UnitResult; status: MaintenanceStatus }> {
  const repo = parseRepoPath(repoName);
  const at = ctx.now().toISOString();
  const bytesBefore = packBytes(head.packs);
  if (head.packs.length < 2) {
    const summary = `nothing to compact: ${head.packs.length} pack${head.packs.length === 1 ? '' : 's'}`;
    return { result: { summary }, status };
  }
  const stop = () => {
    if (unit.signal.aborted) throw new UnitInterruptedError();
  };
  let rewritten = false;
  try {
    unit.progress(0, head.packs.length, 'fetching packs');
    const dir = await syncWorkingCopy(ctx, repoName, head);
    stop();
    const before = await placedPacks(dir);
    const full = bytesBefore <= FULL_REPACK_BYTES;
    unit.progress(0, 1, full ? 'repacking into one pack' : 'repacking geometrically');
    unit.log(`${head.packs.length} packs, ${bytesBefore} bytes: ${full ? 'git repack -a -d --keep-unreachable' : 'git repack --geometric=2 -d'}`);
    rewritten = true;
    await runGit([...REPACK_CONFIG, '-C', dir, 'repack', '-q', '-d', ...(full ? ['-a', '--keep-unreachable'] : ['--geometric=2'])], { signal: unit.signal }).catch((err: unknown) => {
      stop();
      throw err;
    });
    stop();
    const { removed, added } = await repackResult(dir, before);
    if (removed.length === 0) {
      rewritten = false;
      const summary = `nothing to compact: the ${head.packs.length} packs already form a geometric progression`;
      unit.log(summary);
      return { result: { summary }, status };
    }
    const supersededPacks = head.packs.filter((p) => removed.includes(p.sha256));
    const seq = Math.max(...supersededPacks.map((p) => p.seq));
    unit.progress(0, added.length, 'uploading');
    const uploaded: LivePack[] = [];
    for (const pack of added) {
      stop();
      const base = join(dir, 'objects', 'pack', pack.name);
      const idxSize = (await stat(`${base}.idx`)).size;
      const where = await uploadPackObjects(
        ctx.store,
        repo,
        pack.sha256,
        { length: pack.size, open: () => createReadStream(`${base}.pack`) },
        { length: idxSize, open: () => createReadStream(`${base}.idx`) },
      );
      uploaded.push({ ...where, size: pack.size, idxSize, seq });
      unit.progress(uploaded.length, added.length, 'uploading');
    }
    stop();
    unit.progress(0, 1, 'publishing the pack set');
    const after = await ctx.repos.amendHead(repoName, head.repoId, (current) => {
      const live = new Set(current.packs.map((p) => p.sha256));
      // Only compaction removes packs, under the lease: a pack gone from under us means the lease was lost.
      if (!removed.every((sha256) => live.has(sha256))) throw new Error('the live pack set changed under the compaction (lease lost?)');
      const kept = current.packs.filter((p) => !removed.includes(p.sha256) && !uploaded.some((u) => u.sha256 === p.sha256));
      return { packs: [...uploaded, ...kept].sort((a, b) => a.seq - b.seq) };
    });
    await recordRepack(dir, removed, new Map(added.map((p) => [p.sha256, p.name])));
    rewritten = false;
    const bytesAfter = packBytes(after.packs);
    const summary = `compacted ${removed.length} packs into ${uploaded.length}: ${head.packs.length} → ${after.packs.length} live packs, ${bytesBefore} → ${bytesAfter} bytes`;
    unit.log(summary);
    const retired = supersededPacks.map((p) => ({ ...packObjectJson(p), at }));
    return {
      result: { summary },
      status: {
        ...status,
        compaction: { at, outcome: 'succeeded', packsBefore: head.packs.length, packsAfter: after.packs.length, bytesBefore, bytesAfter },
        retiredPacks: [...status.retiredPacks, ...retired],
      },
    };
  } catch (err) {
    // git may have rewritten the copy's packs half-way: start the next pass from a clean copy.
    if (rewritten) await dropWorkingCopy(ctx, repoName);
    throw err;
  }
}

/** Which placed packs git removed (bucket sha256s) and which packs it wrote (git name, sha256, size). */
async function repackResult(dir: string, before: ReadonlyMap<string, string>): Promise<{ removed: string[]; added: { name: string; sha256: string; size: number }[] }> {
  const packDir = join(dir, 'objects', 'pack');
  const files = new Set(await readdir(packDir));
  const removed = [...before].filter(([, name]) => !files.has(`${name}.pack`)).map(([sha256]) => sha256);
  const known = new Set(before.values());
  const added: { name: string; sha256: string; size: number }[] = [];
  for (const file of files) {
    if (!file.endsWith('.pack')) continue;
    const name = file.slice(0, -'.pack'.length);
    if (known.has(name) || !files.has(`${name}.idx`)) continue;
    const path = join(packDir, file);
    added.push({ name, sha256: await fileSha256(path), size: (await stat(path)).size });
  }
  return { removed, added };
}
