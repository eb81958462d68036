// Checkpoint: fold the log at the head into `checkpoints/<seq>.json`, point the manifest at it, and move
// `logStart` past entries that retention lets go. The retention rule (docs/repository-maintenance.md): the log
// is kept back to the newest checkpoint that is older than the log retention and that the events bridge has
// passed; entries below it are retired (deleted later by gc). That bounds the events gap: a bridge that
// lags by less than the retention never misses an entry.
import { listAll } from '../object-store/list-all.ts';
import { encodeCheckpoint } from '../repo-store/checkpoint.ts';
import { checkpointKey, repoPrefix } from '../repo-store/layout.ts';
import type { RepoHead } from '../repo-store/head-cache.ts';
import { parseRepoPath, type RepoPath } from '../repo-store/repo-path.ts';
import { parseSeqKey } from '../repo-store/seq.ts';
import type { MaintenanceContext } from './context.ts';
import { deliveredSeq } from './events-cursor.ts';
import { UnitInterruptedError, type UnitContext, type UnitResult } from './operation.ts';
import type { MaintenanceStatus } from './status.ts';

export interface StoredCheckpoint {
  readonly seq: number;
  readonly key: string;
  readonly writtenAt: Date;
}

/** Every checkpoint object of the repository, oldest seq first. */
export async function listCheckpoints(ctx: MaintenanceContext, repo: RepoPath): Promise<StoredCheckpoint[]> {
  const prefix = `${repoPrefix(repo)}checkpoints/`;
  const found: StoredCheckpoint[] = [];
  for await (const item of listAll(ctx.store, prefix)) {
    const seq = parseSeqKey(item.key.slice(prefix.length).replace(/\.json$/, ''));
    if (seq !== undefined) found.push({ seq, key: item.key, writtenAt: item.lastModified });
  }
  return found.sort((a, b) => a.seq - b.seq);
}

export async function runCheckpoint(
  ctx: MaintenanceContext,
  repoName: string,
  head: RepoHead,
  unit: UnitContext,
  status: MaintenanceStatus,
): Promise<{ result: UnitResult; status: MaintenanceStatus }> {
  const repo = parseRepoPath(repoName);
  const now = ctx.now();
  unit.progress(0, 3, 'writing the checkpoint');
  if (head.checkpoint?.seq !== head.seq && head.seq > 0) {
    // Immutable: an object already at this key holds this very state (same incarnation, same seq).
    await ctx.store.put(checkpointKey(repo, head.seq), encodeCheckpoint(head.repoId, head), { ifNoneMatch: '*', contentType: 'application/json' });
    unit.log(`wrote checkpoint at seq ${head.seq} (${head.refs.size} refs, ${head.packs.length} packs)`);
  }
  if (unit.signal.aborted) throw new UnitInterruptedError();
  unit.progress(1, 3, 'choosing the log retention point');
  // The time again, after the write: with a retention of zero the checkpoint just written already counts.
  const logStart = await retentionStart(ctx, repo, ctx.now());
  unit.progress(2, 3, 'publishing');
  const after = await ctx.repos.amendHead(repoName, head.repoId, (current) => {
    const checkpoint = head.seq > 0 && (current.checkpoint?.seq ?? 0) < head.seq ? { seq: head.seq } : undefined;
    const start = logStart !== undefined && logStart > current.logStart ? logStart : undefined;
    if (!checkpoint && start === undefined) return undefined;
    return { ...(checkpoint ? { checkpoint } : {}), ...(start !== undefined ? { logStart: start } : {}) };
  });
  unit.progress(3, 3, 'done');
  const retired = after.logStart - head.logStart;
  const summary = `checkpoint at seq ${after.checkpoint?.seq ?? 0}; log kept from seq ${after.logStart}${retired > 0 ? ` (${retired} entries retired)` : ''}`;
  unit.log(summary);
  const checkpoint = after.checkpoint ? { seq: after.checkpoint.seq, at: now.toISOString() } : status.checkpoint;
  return { result: { summary }, status: { ...status, checkpoint: status.checkpoint?.seq === checkpoint?.seq ? status.checkpoint : checkpoint } };
}

/**
 * The first seq the log must keep: just past the newest checkpoint written longer than the retention ago and
 * not past what the events bridge delivered (when a bridge keeps a cursor). `undefined`: keep everything.
 */
async function retentionStart(ctx: MaintenanceContext, repo: RepoPath, now: Date): Promise<number | undefined> {
  const [checkpoints, delivered] = await Promise.all([listCheckpoints(ctx, repo), deliveredSeq(ctx.store, repo)]);
  const old = checkpoints.filter((cp) => now.getTime() - cp.writtenAt.getTime() >= ctx.logRetentionMs && (delivered === undefined || cp.seq <= delivered));
  const newest = old.at(-1);
  return newest && newest.seq + 1;
}
