// The `maintain` role: every `maintenance.interval` a pass writes this maintainer's heartbeat, lists the
// pending markers, and runs on each marked repository the units that are due (checkpoint, compaction, fsck,
// gc), each as a task of this instance. Owners take turns: one repository of each a round, from where the last pass
// stopped (maintenance-turns.ts); an owner whose units took its budget of the pass waits for the next (checked before
// each unit), and a unit past its deadline is interrupted, its marker kept, the repository's other units still run,
// and it sits out a growing number of passes (CutBackoff). A marker is deleted only when its units all succeeded and
// no writer replaced it meanwhile; while packs no head lists wait out their grace period it is put back with the time
// they are due, so gc comes back for them. Any number of maintainers may run: the repository lease keeps them apart,
// and a repository another maintainer holds is skipped until the next pass.
import type { FastifyBaseLogger } from 'fastify';
import { Gauge, type Registry } from 'prom-client';
import type { GetResult, ObjectStore } from '../src/object-store/object-store.ts';
import { readLease, readStatus, writeHeartbeat, type MaintenanceOp } from '../src/repo-maintenance/index.ts';
import { dropIdleWorkingCopies } from '../src/repo-maintenance/working-copy.ts';
import type { MaintenanceContext } from '../src/repo-maintenance/context.ts';
import { parseRepoPath, RepoNotFoundError, type PendingMarker, type RepoHead } from '../src/repo-store/index.ts';
import { decodeMarker, dueNow, encodeWaitingMarker } from '../src/repo-store/pending.ts';
import type { RepoStore } from '../src/repo-store/repo-store.ts';
import { CutBackoff, ownerOf, PassCursor } from './maintenance-turns.ts';

/** A repository whose last fsck is older than this gets one on its next marked pass. */
const FSCK_EVERY_MS = 24 * 60 * 60 * 1000;
/** Markers due handled per pass (owners in turn); the rest wait for the next pass. Waiting ones do not count. */
const MARKERS_PER_PASS = 1000;
/** Markers read at once to tell the due from the waiting. */
const MARKER_READS_AT_ONCE = 16;
/**
 * A unit running longer is interrupted and its marker kept: one repository's repack or fsck cannot hold the
 * maintainer for everyone else (`maintenance.unit_deadline`).
 */
export const DEFAULT_UNIT_DEADLINE_MS = 30 * 60 * 1000;
/**
 * What one owner's units may take of a pass; once spent, its other marked repositories wait for the next pass, and
 * the owners after it in turn are served (`maintenance.owner_budget`).
 */
export const DEFAULT_OWNER_BUDGET_MS = 10 * 60 * 1000;
/** Working copies unused this long are deleted. */
const WORKING_COPY_IDLE_MS = 24 * 60 * 60 * 1000;

export type TaskOutcome = 'succeeded' | 'failed' | 'interrupted';

export interface MaintainerOptions {
  readonly repos: RepoStore;
  readonly store: ObjectStore;
  readonly context: Pick<MaintenanceContext, 'workDir' | 'now' | 'graceMs'>;
  readonly host: string;
  readonly intervalMs: number;
  readonly registry: Registry;
  readonly log: FastifyBaseLogger;
  /** Runs one unit as a task of this instance, interrupted when `signal` aborts (its deadline); resolves with how it ended. */
  readonly runTask: (repo: string, op: MaintenanceOp, signal: AbortSignal) => Promise<TaskOutcome>;
  /** Default {@link DEFAULT_UNIT_DEADLINE_MS}. */
  readonly unitDeadlineMs?: number;
  /** Default {@link DEFAULT_OWNER_BUDGET_MS}. */
  readonly ownerBudgetMs?: number;
}

export interface PassReport {
  readonly markers: number;
  /**
   * `waiting`: the marker asks to be come back to later (packs whose grace period has not ended); `deferred`: its
   * owner's units took their budget of this pass (before or between its units); `timed-out`: a unit ran past its
   * deadline and was interrupted (the others ran); `backed-off`: a unit cut in earlier passes sat this one out.
   * The marker stays for all of these.
   */
  readonly repos: readonly {
    readonly repo: string;
    readonly ran: readonly MaintenanceOp[];
    readonly outcome: 'done' | 'waiting' | 'skipped' | 'failed' | 'interrupted' | 'timed-out' | 'backed-off' | 'deferred' | 'gone';
  }[];
}

export class Maintainer {
  readonly #options: MaintainerOptions;
  readonly #pending: Gauge;
  readonly #heartbeat: Gauge<'host'>;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<PassReport> | undefined;
  #stopped = false;
  readonly #cursor = new PassCursor();
  readonly #backoff = new CutBackoff();
  /** Passes begun, for {@link CutBackoff}. */
  #passes = 0;

  constructor(options: MaintainerOptions) {
    this.#options = options;
    this.#pending = new Gauge({ name: 'service_pending_markers', help: 'Maintenance markers the last pass found.', registers: [options.registry] });
    this.#heartbeat = new Gauge({
      name: 'service_maintainer_heartbeat_timestamp',
      help: "Unix time (seconds) of this maintainer's last heartbeat.",
      labelNames: ['host'],
      registers: [options.registry],
    });
  }

  /** Runs a pass now and then every interval, until `stop`. */
  start(): void {
    const tick = () => {
      if (this.#stopped) return;
      this.pass()
        .catch((err: unknown) => this.#options.log.warn({ err }, 'maintenance pass failed'))
        .finally(() => {
          // ±20 % jitter: maintainers started together (a rollout) drift apart instead of racing for every lease.
          if (!this.#stopped) this.#timer = setTimeout(tick, this.#options.intervalMs * (0.8 + 0.4 * Math.random())).unref();
        });
    };
    tick();
  }

  /** No new pass or unit starts; a running pass ends after its current unit (which the drain interrupts). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  /** Resolves when the pass under way (if any) has ended. */
  async idle(): Promise<void> {
    await this.#running?.catch(() => {});
  }

  /** One pass; concurrent calls share it. */
  pass(): Promise<PassReport> {
    this.#running ??= this.#pass().finally(() => (this.#running = undefined));
    return this.#running;
  }

  async #pass(): Promise<PassReport> {
    const { repos, store, host, intervalMs, context } = this.#options;
    const now = context.now();
    await writeHeartbeat(store, { host, at: now.toISOString(), intervalMs });
    this.#heartbeat.set({ host }, Math.floor(now.getTime() / 1000));
    const markers = this.#cursor.order(await repos.listPending());
    this.#pending.set(markers.length);
    this.#passes++;
    this.#backoff.keep(new Set(markers.map((m) => m.repo)));
    const report: PassReport['repos'][number][] = [];
    const budget = this.#options.ownerBudgetMs ?? DEFAULT_OWNER_BUDGET_MS;
    /** What each owner's units took of this pass (ms). */
    const spent = new Map<string, number>();
    let handled = 0;
    for (let i = 0; i < markers.length && handled < MARKERS_PER_PASS && !this.#stopped; i += MARKER_READS_AT_ONCE) {
      const read = await Promise.all(markers.slice(i, i + MARKER_READS_AT_ONCE).map(async (marker) => ({ marker, seen: await store.get(marker.key) })));
      for (const { marker, seen } of read) {
        if (this.#stopped || handled >= MARKERS_PER_PASS) break;
        const owner = ownerOf(marker.repo);
        if ((spent.get(owner) ?? 0) >= budget) {
          report.push({ repo: marker.repo, ran: [], outcome: 'deferred' });
          continue;
        }
        // The clock of the units' run time, not the context's (which tests move to pass grace periods).
        const started = performance.now();
        const outcome = await this.#maintain(marker, seen, started + budget - (spent.get(owner) ?? 0));
        spent.set(owner, (spent.get(owner) ?? 0) + (performance.now() - started));
        report.push(outcome);
        if (!(outcome.outcome === 'waiting' && outcome.ran.length === 0)) {
          handled++;
          this.#cursor.served(marker.repo);
        }
      }
    }
    await dropIdleWorkingCopies(context, WORKING_COPY_IDLE_MS);
    return { markers: markers.length, repos: report };
  }

  /** `budgetEnd`: when (`performance.now()`) the owner's budget of this pass is spent; no unit of it starts after. */
  async #maintain(marker: PendingMarker, seen: GetResult | undefined, budgetEnd: number): Promise<PassReport['repos'][number]> {
    const { repos, store, context, runTask, log } = this.#options;
    const repo = marker.repo;
    if (seen?.kind !== 'object') return { repo, ran: [], outcome: 'done' };
    const asked = decodeMarker(seen.body);
    if (asked.dueAt && asked.dueAt > context.now()) return { repo, ran: [], outcome: 'waiting' };
    let head: RepoHead;
    try {
      head = await repos.readHead(repo, { fresh: true });
    } catch (err) {
      if (!(err instanceof RepoNotFoundError)) throw err;
      await store.delete(marker.key);
      return { repo, ran: [], outcome: 'gone' };
    }
    const path = parseRepoPath(repo);
    if (await readLease(store, path, context.now())) return { repo, ran: [], outcome: 'skipped' };
    const status = await readStatus(store, path, head.repoId);
    const ops = dueUnits(head, status, context.now(), { graceMs: context.graceMs, orphanedPack: asked.reasons.includes('orphaned-pack') });
    const ran: MaintenanceOp[] = [];
    const deadlineMs = this.#options.unitDeadlineMs ?? DEFAULT_UNIT_DEADLINE_MS;
    /** A unit was cut at its deadline, or sat this pass out: the marker stays. */
    let cut = false;
    let backedOff = false;
    for (const op of ops) {
      if (this.#stopped) return { repo, ran, outcome: 'interrupted' };
      // The owner's budget bounds its repositories' units, not only where its next repository starts (review-181 M2).
      if (performance.now() >= budgetEnd) return { repo, ran, outcome: 'deferred' };
      if (this.#backoff.skips(repo, op, this.#passes)) {
        backedOff = true;
        continue;
      }
      ran.push(op);
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(new Error(`the unit ran past its deadline of ${Math.round(deadlineMs / 1000)} s`)), deadlineMs);
      const outcome = await runTask(repo, op, deadline.signal).finally(() => clearTimeout(timer));
      if (outcome === 'succeeded') {
        this.#backoff.ended(repo, op);
        continue;
      }
      if (deadline.signal.aborted) {
        // A unit that always needs more than the deadline would take a deadline of every pass and land nothing, and
        // the repository's other units (fsck, gc) would never run: they run now, and this one sits passes out.
        const { cuts, skipPasses } = this.#backoff.cut(repo, op, this.#passes);
        log.warn({ repo, op, outcome, deadlineMs, cuts, skipPasses }, 'maintenance unit ran past its deadline and was interrupted; it sits passes out, the marker stays');
        cut = true;
        continue;
      }
      log.warn({ repo, op, outcome }, 'maintenance unit did not succeed; the marker stays for the next pass');
      return { repo, ran, outcome: outcome === 'interrupted' ? 'interrupted' : 'failed' };
    }
    if (cut) return { repo, ran, outcome: 'timed-out' };
    if (backedOff) return { repo, ran, outcome: 'backed-off' };
    // Packs no head lists (retired, or uploaded by a publish that lost) wait out their grace period: come back then.
    const after = ran.length > 0 ? await readStatus(store, path, head.repoId) : status;
    const waiting = after.retiredPacks.map((r) => Date.parse(r.at) + context.graceMs);
    if (waiting.length > 0) {
      // Never due before the next pass: a record gc could not clear yet must not make every pass run it.
      const dueAt = Math.max(Math.min(...waiting), context.now().getTime() + this.#options.intervalMs);
      // Only over the marker read: a writer that marked the repository meanwhile keeps its marker (due now).
      await store.put(marker.key, encodeWaitingMarker(path, new Date(dueAt), context.now()), { ifMatch: seen.etag, contentType: 'application/json' });
      return { repo, ran, outcome: 'waiting' };
    }
    // A writer that crossed a threshold while we worked replaced the marker: keep the new one.
    const now = await store.head(marker.key);
    if (now?.etag === seen.etag) await store.delete(marker.key);
    return { repo, ran, outcome: 'done' };
  }
}

/**
 * The units a marked repository needs, in the order they run: gc among them when a compaction leaves packs behind,
 * a retired pack's grace period has ended, a publish left a pack in no entry, or folded log entries may remain.
 */
export function dueUnits(
  head: RepoHead,
  status: { fsck: { at: string } | null; retiredPacks: readonly { at: string }[] },
  now: Date,
  marked: { graceMs: number; orphanedPack: boolean },
): MaintenanceOp[] {
  const ops: MaintenanceOp[] = [];
  const due = dueNow(head);
  if (due.checkpoint) ops.push('checkpoint');
  const compact = due.compaction;
  if (compact) ops.push('compact');
  if (compact || !status.fsck || now.getTime() - Date.parse(status.fsck.at) >= FSCK_EVERY_MS) ops.push('fsck');
  const retiredDue = status.retiredPacks.some((r) => now.getTime() - Date.parse(r.at) >= marked.graceMs);
  if (compact || retiredDue || marked.orphanedPack || head.logStart > 1) ops.push('gc');
  return ops;
}

/** `service_repo_missing_objects{repo}`: set by every fsck this instance runs (scheduled or on demand). */
export function missingObjectsGauge(registry: Registry): Gauge<'repo'> {
  return new Gauge({ name: 'service_repo_missing_objects', help: 'Objects the last fsck found missing, by repository.', labelNames: ['repo'], registers: [registry] });
}
