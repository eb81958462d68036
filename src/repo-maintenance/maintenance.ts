// Runs one maintenance unit on one repository: take the repository's lease (so no two maintainers change it
// at once), read its head and status, run the unit, record the outcome in the status, give the lease back.
// The units are in `*-unit.ts`; the maintainer's schedule is in git-server/maintainer.ts.
import { PublicError } from '../errors.ts';
import type { RepoHead } from '../repo-store/head-cache.ts';
import { parseRepoPath } from '../repo-store/repo-path.ts';
import { runCheckpoint } from './checkpoint-unit.ts';
import { runCompaction, unfinishedCompaction } from './compact-unit.ts';
import { maintenanceContext, type MaintenanceContext, type MaintenanceOptions } from './context.ts';
import { runFsck } from './fsck-unit.ts';
import { runGc } from './gc-unit.ts';
import { Lease, type LeaseRecord } from './lease.ts';
import { UnitInterruptedError, type MaintenanceRunner, type OperationId, type UnitContext, type UnitResult } from './operation.ts';
import { readStatus, writeStatus, type FsckRecord, type MaintenanceStatus } from './status.ts';

export type MaintenanceOp = Exclude<OperationId, 'sync'>;

/** Another maintainer holds the repository's lease: the operation was not started. */
export class LeaseHeldError extends PublicError {
  override readonly name = 'LeaseHeldError';
  readonly holder: LeaseRecord;
  constructor(repo: string, holder: LeaseRecord) {
    super(409, `${repo} is being maintained by ${holder.host} (${holder.operation}) until ${holder.expiresAt}; retry then`);
    this.holder = holder;
  }
}

type Unit = (ctx: MaintenanceContext, repo: string, head: RepoHead, unit: UnitContext, status: MaintenanceStatus) => Promise<{ result: UnitResult; status: MaintenanceStatus; record?: FsckRecord }>;

const UNITS: Record<MaintenanceOp, Unit> = { checkpoint: runCheckpoint, compact: runCompaction, gc: runGc, fsck: runFsck };

export class RepoMaintenance implements MaintenanceRunner {
  readonly #ctx: MaintenanceContext;
  readonly #onFsck: (repo: string, record: FsckRecord) => void;

  constructor(options: MaintenanceOptions & { onFsck?: (repo: string, record: FsckRecord) => void }) {
    this.#ctx = maintenanceContext(options);
    this.#onFsck = options.onFsck ?? (() => {});
  }

  get host(): string {
    return this.#ctx.host;
  }

  async run(repo: string, op: MaintenanceOp, unit: UnitContext): Promise<UnitResult> {
    const ctx = this.#ctx;
    const path = parseRepoPath(repo);
    const head = await ctx.repos.readHead(repo, { fresh: true });
    // The unit stops when the instance drains, and also when its lease is lost: it must not publish then.
    const stop = new AbortController();
    const forward = () => stop.abort();
    unit.signal.addEventListener('abort', forward, { once: true });
    const lease = await Lease.acquire({ store: ctx.store, repo: path, host: ctx.host, operation: op, ttlMs: ctx.leaseTtlMs, now: ctx.now, onLost: forward });
    if (!(lease instanceof Lease)) {
      unit.signal.removeEventListener('abort', forward);
      throw new LeaseHeldError(repo, lease);
    }
    if (unit.signal.aborted) stop.abort();
    const inner: UnitContext = { ...unit, signal: stop.signal };
    unit.log(`${op} of ${repo} at seq ${head.seq} by ${ctx.host}`);
    try {
      // The head again, now that no other maintainer can change the pack set or checkpoints under us.
      const current = await ctx.repos.readHead(repo, { fresh: true });
      const status = await readStatus(ctx.store, path, current.repoId);
      try {
        const done = await UNITS[op](ctx, repo, current, inner, status);
        if (lease.lost) throw new Error('the maintenance lease was lost while the unit ran; its result is not recorded');
        await writeStatus(ctx.store, path, done.status);
        if (done.record) this.#onFsck(repo, done.record);
        return done.result;
      } catch (err) {
        if (!lease.lost) await writeStatus(ctx.store, path, unfinished(op, status, current, ctx.now(), err, unit.signal.reason)).catch(() => {});
        throw err;
      }
    } finally {
      unit.signal.removeEventListener('abort', forward);
      await lease.release().catch(() => {});
    }
  }
}

/**
 * The status after `op` failed or was interrupted: its record says so, nothing else changes. An interrupted unit's
 * message is why it was stopped (`reason`, what its task was interrupted with: the drain, or the maintainer's unit
 * deadline), not always a shutdown (review-181 M2).
 */
export function unfinished(op: MaintenanceOp, status: MaintenanceStatus, head: RepoHead, now: Date, err: unknown, reason?: unknown): MaintenanceStatus {
  const interrupted = err instanceof UnitInterruptedError;
  const at = now.toISOString();
  const outcome = interrupted ? 'interrupted' : 'failed';
  const message = interrupted ? (reason instanceof Error ? reason.message : 'the instance was shutting down') : err instanceof PublicError ? err.message : 'see the task log';
  switch (op) {
    case 'compact':
      return { ...status, compaction: unfinishedCompaction(head, at, outcome, message) };
    case 'fsck':
      return { ...status, fsck: { at, seq: head.seq, outcome, missingObjects: status.fsck?.missingObjects ?? 0, problems: [message] } };
    case 'gc':
      return { ...status, gc: { at, outcome, deletedObjects: 0, deletedBytes: 0 } };
    case 'checkpoint':
      return status;
  }
}
