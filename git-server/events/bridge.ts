// The events bridge of one instance: wake-ups (notifications, sweeps, retries) become catch-ups of one
// repository for one target each, at most `concurrency` at a time, one at a time per repository and target, and
// at most `perOwner` of one owner's repositories at a time (of one person's projects on the platform: `shareOf`),
// so an owner whose receivers answer slowly (or never, until the time-out) holds its share and the other owners'
// catch-ups take the rest.
// A bounded queue (64 catch-ups) takes notifications; a storm of them for one repository is one catch-up per
// target. A target whose delivery failed in a repository is retried after a backoff, and wake-ups meanwhile do
// not hammer it (the queue is wake-queue.ts, which the push mark shares). One bridge delivers the spec's webhook
// (one target); another, the per-repository webhooks (the targets of each repository), so a slow receiver of
// theirs never holds the spec's webhook back.
import type { FastifyBaseLogger } from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import type { BackoffPolicy } from './backoff.ts';
import { catchUp, type CatchUpReport, type PostedBatch } from './catch-up.ts';
import { describeOutcome, type DeliveryClient, type DeliveryOutcome } from './delivery-client.ts';
import type { DeliveryTarget } from './delivery-target.ts';
import { listRepositories } from './repositories.ts';
import { RepoNotFoundError } from '../../src/repo-store/errors.ts';
import type { RepoStore } from '../../src/repo-store/repo-store.ts';
import type { EventsMetrics } from './metrics.ts';
import { SweepTimer } from './sweep-timer.ts';
import { ownShare, type ShareOf } from '../owner-share.ts';
import { WakeQueue, type Refusal, type Trigger } from './wake-queue.ts';

/** Catch-ups waiting at most (a repository and a target each); a notification beyond answers `not_queued`. */
export const WAKE_QUEUE_LIMIT = 64;
/** Catch-ups running at once, across repositories and targets. */
export const DELIVERY_CONCURRENCY = 4;
/**
 * Catch-ups of one owner's repositories running at once: half the pool, so an owner's slow receivers leave the
 * other half to everyone else, while an owner with many repositories still delivers two at a time.
 */
export const DELIVERY_PER_OWNER = 2;
/**
 * A catch-up starts no further post after this long (the answer time-out): the rest of a long backlog is queued
 * again, behind what waits, so a catch-up frees its slot within about twice the time-out however slow its receiver.
 */
export const CATCH_UP_TURN_MS = 10_000;

export type WakeOutcome =
  /** Caught up to the head (possibly with nothing to deliver), or as far as its turn went (`report.yielded`). */
  | 'delivered'
  /** A post was not acknowledged, or the store failed: the repository is retried after a backoff. */
  | 'failed'
  /** The repository is backing off after a failure; its retry is scheduled. */
  | 'deferred'
  /** The queue was full; the next wake-up or sweep gets it. */
  | 'not_queued'
  /** The bridge is draining: nothing started, or the post under way was given up. */
  | 'abandoned'
  /** No such repository (deleted). */
  | 'gone';

export interface WakeResult {
  readonly repo: string;
  /** The target's id (`webhook` for the spec's); set by the bridge. */
  readonly target?: string;
  readonly outcome: WakeOutcome;
  /** What the catch-up did, when one ran. */
  readonly report?: CatchUpReport;
  /** Why it did not deliver; never holds a secret. */
  readonly reason?: string;
  /** When the repository is tried again (`failed`, `deferred`). */
  readonly retryInMs?: number;
}

/** One catch-up: a repository and a target, keyed by {@link unitKey}. */
interface Unit {
  readonly repo: string;
  readonly target: DeliveryTarget;
}

const unitKey = (unit: Unit) => `${unit.target.id}\u0000${unit.repo}`;
const ownerOf = (unit: Unit) => unit.repo.split('/')[0] ?? '';

export interface EventsBridgeOptions {
  readonly repos: Pick<RepoStore, 'readHead' | 'listLog'>;
  readonly store: ObjectStore;
  /** Where every repository's events go (the spec's webhook); or, per repository, `targets`. */
  readonly target?: DeliveryTarget;
  /** The targets of a repository, read at each wake-up (per-repository webhooks); `target` when absent. */
  readonly targets?: (repo: string) => readonly DeliveryTarget[];
  /** What a sweep wakes. Default: every repository of the bucket. */
  readonly repositories?: () => AsyncIterable<string> | Iterable<string>;
  /** Told of every post once it ended (a delivery log); its failure is logged, never fails the catch-up. */
  readonly onPosted?: (target: DeliveryTarget, batch: PostedBatch, body: Uint8Array, outcome: DeliveryOutcome) => Promise<void>;
  /** Told of every catch-up's result (a status writer). */
  readonly onCaughtUp?: (target: DeliveryTarget, result: WakeResult) => void;
  /** Labels of the per-repository metrics of a target in a repository. Default `{repo}`. */
  readonly metricLabels?: (repo: string, target: DeliveryTarget) => Record<string, string>;
  readonly client: Pick<DeliveryClient, 'post' | 'answerTimeoutMs' | 'close'>;
  readonly metrics: EventsMetrics;
  readonly sweepIntervalMs: number;
  readonly concurrency?: number;
  /** Default {@link DELIVERY_PER_OWNER}. */
  readonly perOwner?: number;
  /** Whose share a repository's owner spends (default: its own); the queue's places and `perOwner` are per share. */
  readonly shareOf?: ShareOf;
  /** Default {@link CATCH_UP_TURN_MS}. */
  readonly turnMs?: number;
  readonly queueLimit?: number;
  readonly backoff?: BackoffPolicy;
  /** Events per post (default 500). */
  readonly batchEvents?: number;
  readonly log?: FastifyBaseLogger;
}

export class EventsBridge {
  readonly #options: EventsBridgeOptions;
  readonly #queue: WakeQueue<Unit, WakeResult>;
  #sweeping: SweepRun | undefined;
  /** Repositories an earlier sweep woke whose catch-ups have not answered yet: a later sweep passes over them. */
  readonly #swept = new Set<string>();
  readonly #sweeps = new SweepTimer();
  #draining = false;
  /** No further batch starts (drain). */
  readonly #stopping = new AbortController();
  /** The posts under way are given up (drain bound reached). */
  readonly #abort = new AbortController();
  #log: FastifyBaseLogger | undefined;

  constructor(options: EventsBridgeOptions) {
    this.#options = options;
    this.#queue = new WakeQueue<Unit, WakeResult>({
      key: unitKey,
      run: (unit, _key, triggers) => this.#run(unit, triggers),
      refused: (unit, refusal) => this.#refused(unit, refusal),
      succeeded: (result) => result.outcome === 'delivered',
      onDone: (unit, result) => this.#options.onCaughtUp?.(unit.target, result),
      retryUnit: (unit) => this.#current(unit),
      concurrency: options.concurrency ?? DELIVERY_CONCURRENCY,
      group: (unit) => (options.shareOf ?? ownShare)(ownerOf(unit)),
      perGroup: options.perOwner ?? DELIVERY_PER_OWNER,
      queueLimit: options.queueLimit ?? WAKE_QUEUE_LIMIT,
      // Half the places at most for one owner's waiting catch-ups: the other owners' notifications find room.
      queueLimitPerGroup: Math.ceil((options.queueLimit ?? WAKE_QUEUE_LIMIT) / 2),
      backoff: options.backoff,
    });
    this.#log = options.log;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** Sweeps now (what happened while no bridge ran) and then every `sweepIntervalMs` (±10 %; 0: never again), until drained. */
  start(log?: FastifyBaseLogger): void {
    this.#log = log ?? this.#log;
    // The next sweep is timed from when this one has listed, not from when its catch-ups end: one owner's slow
    // receivers (each catch-up up to about twice the answer time-out) must not stretch everyone's backstop.
    this.#sweeps.start(() => {
      const run = this.#sweepRun();
      run.report.catch((err: unknown) => this.#log?.warn({ err }, 'events sweep failed'));
      return run.listed;
    }, this.#options.sweepIntervalMs);
  }

  /** A notification names `repo`: catch it up for the one target of this bridge (see {@link wakeAll}). Never throws. */
  async wake(repo: string): Promise<WakeResult> {
    const [first] = await this.wakeAll(repo);
    return first ?? { repo, target: '', outcome: 'delivered' };
  }

  /** A notification names `repo`: catch it up for each of its targets (or join the catch-ups waiting). Never throws. */
  wakeAll(repo: string): Promise<WakeResult[]> {
    return this.#wakeTargets(repo, 'notify');
  }

  /** Every repository of the bucket once; answers once their catch-ups ended. Calls while one is listing share it. */
  sweep(): Promise<SweepReport> {
    return this.#sweepRun().report;
  }

  #sweepRun(): SweepRun {
    if (this.#sweeping) return this.#sweeping;
    const listed = Promise.withResolvers<void>();
    const run: SweepRun = { listed: listed.promise, report: this.#sweep(listed.resolve) };
    this.#sweeping = run;
    // Once listed, a new sweep lists again: what this one woke waits in the queue, and is joined, not repeated.
    void listed.promise.then(() => {
      if (this.#sweeping === run) this.#sweeping = undefined;
    });
    return run;
  }

  /**
   * Stops taking wake-ups and sweeping; what waits in the queue is abandoned; the catch-ups running finish their
   * current post (no further batch starts). Past `boundMs` their posts are given up, cursors not moved.
   */
  async drain(boundMs: number): Promise<void> {
    this.#draining = true;
    this.#sweeps.stop();
    this.#stopping.abort();
    this.#queue.stop();
    const running = () => Promise.all([...this.#queue.running.values(), this.#sweeping?.report.catch(() => undefined)]);
    const bound = new AbortController();
    const finished = await Promise.race([running().then(() => true), sleep(boundMs, false, { signal: bound.signal }).catch(() => false)]);
    bound.abort();
    if (!finished) {
      this.#log?.warn({ running: [...this.#queue.running.keys()] }, 'events drain: giving up the deliveries under way; their cursors stay');
      this.#abort.abort();
      await running();
    }
    this.#options.client.close();
  }

  /** The unit as its target is now (a changed webhook's new settings), or `undefined` once it is gone. */
  #current(unit: Unit): Unit | undefined {
    const target = this.#targetsOf(unit.repo).find((t) => t.id === unit.target.id);
    return target ? { repo: unit.repo, target } : undefined;
  }

  #targetsOf(repo: string): readonly DeliveryTarget[] {
    if (this.#options.targets) return this.#options.targets(repo);
    return this.#options.target ? [this.#options.target] : [];
  }

  #wakeTargets(repo: string, trigger: Trigger): Promise<WakeResult[]> {
    return Promise.all(this.#targetsOf(repo).map((target) => this.#queue.wake({ repo, target }, trigger)));
  }

  #refused(unit: Unit, refusal: Refusal): WakeResult {
    const base = { repo: unit.repo, target: unit.target.id };
    if (refusal.outcome === 'deferred') return { ...base, ...refusal };
    if (refusal.outcome === 'not_queued')
      return { ...base, outcome: 'not_queued', reason: `the wake-up queue is full (${refusal.queueLimit} catch-ups, half of them at most of one owner's repositories)` };
    return { ...base, outcome: 'abandoned', reason: 'the events bridge is shutting down' };
  }

  /** Posts one batch and tells `onPosted` how it went (never failing the catch-up for it). */
  async #post(target: DeliveryTarget, body: Uint8Array, signal: AbortSignal | undefined, batch: PostedBatch | undefined): Promise<DeliveryOutcome> {
    const outcome = await this.#options.client.post(target, body, signal);
    if (batch && this.#options.onPosted) {
      await this.#options.onPosted(target, batch, body, outcome).catch((err: unknown) => this.#log?.warn({ err, repo: batch.repo, target: target.id }, 'recording a delivery failed'));
    }
    return outcome;
  }

  async #run(unit: Unit, triggers: ReadonlySet<Trigger>): Promise<WakeResult> {
    const { repo, target } = unit;
    const { repos, store, client, metrics, batchEvents } = this.#options;
    const labels = this.#options.metricLabels?.(repo, target) ?? { repo };
    const result = (fields: Omit<WakeResult, 'repo' | 'target'>): WakeResult => ({ repo, target: target.id, ...fields });
    let report: CatchUpReport;
    try {
      report = await catchUp({ repos, store, post: (t, body, signal, batch) => this.#post(t, body, signal, batch), ...(batchEvents ? { batchEvents } : {}) }, target, repo, {
        abort: this.#abort.signal,
        stopping: this.#stopping.signal,
        yieldAt: Date.now() + (this.#options.turnMs ?? CATCH_UP_TURN_MS),
      });
    } catch (err) {
      if (err instanceof RepoNotFoundError) {
        metrics.lag.remove(labels);
        this.#queue.clearBackoff(unit);
        return result({ outcome: 'gone' });
      }
      this.#log?.warn({ err, repo, target: target.id }, 'events catch-up failed');
      const reason = err instanceof Error && err.name === 'StoreUnavailableError' ? 'the object store is unavailable' : 'internal error, see the service log';
      return result({ outcome: 'failed', reason, retryInMs: this.#failed(unit, reason) });
    }
    if (report.posts > 0) metrics.deliveries.inc({ outcome: 'delivered' }, report.posts);
    if (report.failure) metrics.deliveries.inc({ outcome: report.failure.kind });
    if (report.gap) {
      const missed = report.gap.toSeq - report.gap.fromSeq + 1;
      metrics.gap.inc(missed);
      this.#log?.warn(
        { repo, missedFrom: report.gap.fromSeq, missedTo: report.gap.toSeq, missed },
        `events gap: log retention retired seq ${report.gap.fromSeq}..${report.gap.toSeq} of ${repo} before delivery; they are skipped (consumers backfill with \`cw-git wal ls ${repo} --from <seq>\`)`,
      );
    }
    metrics.lag.set(labels, Math.max(0, report.headSeq - report.cursorSeq));
    if (report.failure?.kind === 'aborted') return result({ outcome: 'abandoned', report, reason: describeOutcome(report.failure) });
    if (report.failure) {
      const reason = describeOutcome(report.failure, client.answerTimeoutMs);
      return result({ outcome: 'failed', report, reason, retryInMs: this.#failed(unit, reason) });
    }
    this.#queue.clearBackoff(unit);
    // Its turn ended short of the head: the rest is the bridge's own follow-up (as a retry is), behind what waits.
    const rest = report.yielded ? this.#current(unit) : undefined;
    if (rest) void this.#queue.wake(rest, 'retry');
    if (report.emitted > 0 && triggers.size === 1 && triggers.has('sweep')) metrics.sweepFound.inc();
    return result({ outcome: report.superseded ? 'gone' : 'delivered', report });
  }

  /** Records a failure and schedules the retry; answers its delay. */
  #failed(unit: Unit, reason: string): number {
    const { delayMs, failures } = this.#queue.failed(unit, reason);
    this.#log?.warn({ repo: unit.repo, target: unit.target.id, failures, retryInMs: delayMs, reason }, 'events delivery failed; the repository is retried after a backoff');
    return delayMs;
  }

  /** Wakes every repository, calling `listed` once all are woken (or the listing failed), then awaits their catch-ups. */
  async #sweep(listed: () => void): Promise<SweepReport> {
    const runs: Promise<WakeResult[]>[] = [];
    try {
      for await (const repo of this.#options.repositories?.() ?? listRepositories(this.#options.store)) {
        // Still waiting from an earlier sweep (an owner whose slow receivers fill its share): woken once, not again
        // each sweep, so waiters do not pile up.
        if (this.#swept.has(repo)) continue;
        // Listing waits while the queue is full, so a sweep of many repositories holds at most the queue's worth.
        await this.#queue.room();
        if (this.#draining) break;
        this.#swept.add(repo);
        runs.push(this.#wakeTargets(repo, 'sweep').finally(() => this.#swept.delete(repo)));
      }
    } finally {
      listed();
    }
    const results = (await Promise.all(runs)).flat();
    const report = {
      repos: results.length,
      delivered: results.filter((r) => (r.report?.emitted ?? 0) > 0).length,
      failed: results.filter((r) => r.outcome === 'failed').length,
    };
    if (report.delivered > 0 || report.failed > 0) this.#log?.info(report, 'events sweep');
    return report;
  }
}

/** A sweep under way: `listed` once every repository is woken, `report` once their catch-ups ended. */
interface SweepRun {
  readonly listed: Promise<void>;
  readonly report: Promise<SweepReport>;
}

export interface SweepReport {
  /** Repositories looked at. */
  readonly repos: number;
  /** Of them, those it delivered events for. */
  readonly delivered: number;
  readonly failed: number;
}
