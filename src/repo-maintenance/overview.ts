// A repository's operational state in one object: what `GET /api/overview` answers and what the Repository
// controller copies into the resource's status. Health says what needs attention and what to do about it.
import { packBytes } from '../repo-store/state.ts';
import type { ObjectStore } from '../object-store/object-store.ts';
import { pendingKey } from '../repo-store/layout.ts';
import type { RepoHead } from '../repo-store/head-cache.ts';
import type { RepoPath } from '../repo-store/repo-path.ts';
import { CHECKPOINT_EVERY, COMPACT_EVERY, dueNow, entriesSinceCheckpoint } from '../repo-store/pending.ts';
import { liveMaintainers, type Heartbeat } from './heartbeat.ts';
import { readLease, type LeaseRecord } from './lease.ts';
import { readStatus, type CheckpointRecord, type CompactionRecord, type FsckRecord, type GcRecord } from './status.ts';

export type HealthStatus = 'ok' | 'degraded' | 'error';

export interface HealthProblem {
  readonly problem: string;
  readonly suggestion: string;
}

export interface RepoOverview {
  readonly repo: string;
  readonly headSeq: number;
  readonly logStart: number;
  readonly packs: { readonly count: number; readonly bytes: number };
  readonly checkpoint: CheckpointRecord | null;
  readonly entriesSinceCheckpoint: number;
  readonly lastCompaction: CompactionRecord | null;
  readonly lastFsck: FsckRecord | null;
  readonly lastGc: GcRecord | null;
  readonly pending: { readonly marker: boolean; readonly checkpointDue: boolean; readonly compactionDue: boolean };
  readonly lease: LeaseRecord | null;
  readonly maintainers: readonly Heartbeat[];
  readonly health: { readonly status: HealthStatus; readonly problems: readonly HealthProblem[] };
}

/** Work is overdue when it has piled up to twice what makes it due. */
const OVERDUE = 2;

/**
 * `maintainers` answers the live maintainers; a caller that builds many overviews passes a cached one
 * (`cachedMaintainers`), since reading them costs a LIST and a GET per maintainer.
 */
export async function repoOverview(
  store: ObjectStore,
  repo: RepoPath,
  head: RepoHead,
  now: Date = new Date(),
  maintainers: (now: Date) => Promise<readonly Heartbeat[]> = (at) => liveMaintainers(store, at),
): Promise<RepoOverview> {
  const [status, lease, marker, live] = await Promise.all([readStatus(store, repo, head.repoId), readLease(store, repo, now), store.head(pendingKey(repo)), maintainers(now)]);
  const since = entriesSinceCheckpoint(head);
  const { checkpoint: checkpointDue, compaction: compactionDue } = dueNow(head);
  const problems: HealthProblem[] = [];
  let level: HealthStatus = 'ok';
  const report = (severity: Exclude<HealthStatus, 'ok'>, problem: string, suggestion: string) => {
    problems.push({ problem, suggestion });
    if (severity === 'error' || level === 'ok') level = severity;
  };
  if (status.fsck && status.fsck.missingObjects > 0) {
    report(
      'error',
      `git fsck of seq ${status.fsck.seq} found ${status.fsck.missingObjects} missing objects`,
      'Restore the missing packs from a backup of the bucket, or materialize an older seq (`cw-git wal materialize`) and push it back; then run POST /api/ops/fsck.',
    );
  } else if (status.fsck && status.fsck.problems.length > 0 && status.fsck.outcome === 'succeeded') {
    report(
      'degraded',
      `git fsck of seq ${status.fsck.seq} reported: ${status.fsck.problems[0]}`,
      'Read the fsck task log (POST /api/ops/fsck) and repair from a materialized older seq if objects are corrupt.',
    );
  } else if (status.fsck?.outcome === 'failed') {
    report('degraded', `the last fsck (seq ${status.fsck.seq}) failed: ${status.fsck.problems[0] ?? 'no detail'}`, 'Run POST /api/ops/fsck and read its log.');
  }
  if (status.compaction?.outcome === 'failed') {
    report(
      'degraded',
      `the last compaction failed${status.compaction.message ? `: ${status.compaction.message}` : ''}`,
      'Run POST /api/ops/compact and read its log; the maintainer retries on its next pass.',
    );
  }
  if (head.packs.length >= OVERDUE * COMPACT_EVERY) {
    report('degraded', `${head.packs.length} live packs: fetches read every one`, 'Check that an instance with the maintain role is running (maintainers below), or run POST /api/ops/compact.');
  }
  if (since >= OVERDUE * CHECKPOINT_EVERY) {
    report('degraded', `${since} log entries since the last checkpoint`, 'Check that an instance with the maintain role is running, or run POST /api/ops/checkpoint.');
  }
  if ((checkpointDue || compactionDue) && live.length === 0) {
    report('degraded', 'maintenance is due and no maintainer has reported recently', 'Run an instance whose server.roles includes maintain (or leaves roles empty).');
  }
  return {
    repo: repo.full,
    headSeq: head.seq,
    logStart: head.logStart,
    packs: { count: head.packs.length, bytes: packBytes(head.packs) },
    checkpoint: status.checkpoint,
    entriesSinceCheckpoint: since,
    lastCompaction: status.compaction,
    lastFsck: status.fsck,
    lastGc: status.gc,
    pending: { marker: marker !== undefined, checkpointDue, compactionDue },
    lease: lease ?? null,
    maintainers: live,
    health: { status: level, problems },
  };
}

/** `liveMaintainers` read at most once per `ttlMs`, for callers that build an overview of every repository. */
export function cachedMaintainers(store: ObjectStore, ttlMs: number): (now: Date) => Promise<readonly Heartbeat[]> {
  let cached: { at: number; value: Promise<readonly Heartbeat[]> } | undefined;
  return (now) => {
    if (!cached || now.getTime() - cached.at >= ttlMs) {
      const value = liveMaintainers(store, now);
      cached = { at: now.getTime(), value };
      value.catch(() => (cached = undefined));
    }
    return cached.value;
  };
}
