// The events bridge of one instance: wake-ups (notifications, sweeps, retries) become catch-ups of one
// repository each, at most `concurrency` at a time across repositories and one at a time per repository. A
// bounded queue (64 repositories) takes notifications; a storm of them for one repository is one catch-up. A
// repository whose delivery failed is retried after a backoff, and wake-ups meanwhile do not hammer the webhook.
import type { FastifyBaseLogger } from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffPolicy } from '../../src/repo-events/backoff.ts';
import { catchUp, type CatchUpReport } from '../../src/repo-events/catch-up.ts';
import { describeOutcome, type DeliveryClient } from '../../src/repo-events/delivery-client.ts';
import type { DeliveryTarget } from '../../src/repo-events/delivery-target.ts';
import { listRepositories } from '../../src/repo-events/repositories.ts';
import { RepoNotFoundError } from '../../src/repo-store/errors.ts';
import type { RepoStore } from '../../src/repo-store/repo-store.ts';
import type { EventsMetrics } from './metrics.ts';

/** Repositories waiting for a catch-up at most; a notification beyond answers `not_queued`. */
export const WAKE_QUEUE_LIMIT = 64;
/** Catch-ups running at once, across repositories. */
export const DELIVERY_CONCURRENCY = 4;

export type WakeOutcome =
  /** Caught up to the head (possibly with nothing to deliver). */
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
  readonly outcome: WakeOutcome;
  /** What the catch-up did, when one ran. */
  readonly report?: CatchUpReport;
  /** Why it did not deliver; never holds a secret. */
  readonly reason?: string;
  /** When the repository is tried again (`failed`, `deferred`). */
  readonly retryInMs?: number;
}

type Trigger = 'notify' | 'sweep' | 'retry';

interface Queued {
  readonly triggers: Set<Trigger>;
  readonly done: Promise<WakeResult>;
  resolve(result: WakeResult): void;
}

interface Backoff {
  readonly failures: number;
  readonly retryAt: number;
  readonly reason: string;
  readonly timer: NodeJS.Timeout;
}

export interface EventsBridgeOptions {
  readonly repos: Pick<RepoStore, 'readHead' | 'listLog'>;
  readonly store: ObjectStore;
  readonly target: DeliveryTarget;
  readonly client: Pick<DeliveryClient, 'post' | 'answerTimeoutMs' | 'close'>;
  readonly metrics: EventsMetrics;
  readonly sweepIntervalMs: number;
  readonly concurrency?: number;
  readonly queueLimit?: number;
  readonly backoff?: BackoffPolicy;
  /** Events per post (default 500). */
  readonly batchEvents?: number;
  readonly log?: FastifyBaseLogger;
}

export class EventsBridge {
  readonly #options: EventsBridgeOptions;
  readonly #concurrency: number;
  readonly #queueLimit: number;
  readonly #queued = new Map<string, Queued>();
  readonly #running = new Map<string, Promise<void>>();
  readonly #backoff = new Map<string, Backoff>();
  /** Repositories woken while their retry ran: caught up again if it succeeds (if it fails, the next retry does). */
  readonly #behind = new Set<string>();
  #roomWaiters: (() => void)[] = [];
  #sweeping: Promise<SweepReport> | undefined;
  #sweepTimer: NodeJS.Timeout | undefined;
  #draining = false;
  /** No further batch starts (drain). */
  readonly #stopping = new AbortController();
  /** The posts under way are given up (drain bound reached). */
  readonly #abort = new AbortController();
  #log: FastifyBaseLogger | undefined;

  constructor(options: EventsBridgeOptions) {
    this.#options = options;
    this.#concurrency = options.concurrency ?? DELIVERY_CONCURRENCY;
    this.#queueLimit = options.queueLimit ?? WAKE_QUEUE_LIMIT;
    this.#log = options.log;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** Sweeps now (what happened while no bridge ran) and then every `sweepIntervalMs` (±10 %; 0: never again), until drained. */
  start(log?: FastifyBaseLogger): void {
    this.#log = log ?? this.#log;
    const tick = () => {
      if (this.#draining) return;
      this.sweep()
        .catch((err: unknown) => this.#log?.warn({ err }, 'events sweep failed'))
        .finally(() => {
          const every = this.#options.sweepIntervalMs;
          if (!this.#draining && every > 0) this.#sweepTimer = setTimeout(tick, every * (0.9 + 0.2 * Math.random())).unref();
        });
    };
    tick();
  }

  /** A notification names `repo`: catch it up (or join the catch-up already waiting). Never throws. */
  wake(repo: string): Promise<WakeResult> {
    return this.#wake(repo, 'notify');
  }

  /** Every repository of the bucket once; concurrent calls share one sweep. */
  sweep(): Promise<SweepReport> {
    this.#sweeping ??= this.#sweep().finally(() => (this.#sweeping = undefined));
    return this.#sweeping;
  }

  /**
   * Stops taking wake-ups and sweeping; what waits in the queue is abandoned; the catch-ups running finish their
   * current post (no further batch starts). Past `boundMs` their posts are given up, cursors not moved.
   */
  async drain(boundMs: number): Promise<void> {
    this.#draining = true;
    clearTimeout(this.#sweepTimer);
    for (const b of this.#backoff.values()) clearTimeout(b.timer);
    this.#stopping.abort();
    for (const [repo, queued] of this.#queued) queued.resolve({ repo, outcome: 'abandoned', reason: 'the events bridge is shutting down' });
    this.#queued.clear();
    this.#wakeRoomWaiters();
    const running = () => Promise.all([...this.#running.values(), this.#sweeping?.catch(() => undefined)]);
    const bound = new AbortController();
    const finished = await Promise.race([running().then(() => true), sleep(boundMs, false, { signal: bound.signal }).catch(() => false)]);
    bound.abort();
    if (!finished) {
      this.#log?.warn({ running: [...this.#running.keys()] }, 'events drain: giving up the deliveries under way; their cursors stay');
      this.#abort.abort();
      await running();
    }
    this.#options.client.close();
  }

  async #wake(repo: string, trigger: Trigger): Promise<WakeResult> {
    if (this.#draining) return { repo, outcome: 'abandoned', reason: 'the events bridge is shutting down' };
    const backoff = this.#backoff.get(repo);
    if (backoff && trigger !== 'retry') {
      // The retry under way may have read the head before what this wake-up reports: if it succeeds, go again.
      if (this.#running.has(repo)) this.#behind.add(repo);
      return { repo, outcome: 'deferred', reason: backoff.reason, retryInMs: Math.max(0, backoff.retryAt - Date.now()) };
    }
    for (;;) {
      const queued = this.#queued.get(repo);
      if (queued) {
        queued.triggers.add(trigger);
        return queued.done;
      }
      if (this.#queued.size < this.#queueLimit) break;
      // Notifications never wait: the queue bounds what a storm can pile up. Sweeps and retries wait for room.
      if (trigger === 'notify') return { repo, outcome: 'not_queued', reason: `the wake-up queue is full (${this.#queueLimit} repositories)` };
      await new Promise<void>((resolve) => this.#roomWaiters.push(resolve));
      if (this.#draining) return { repo, outcome: 'abandoned', reason: 'the events bridge is shutting down' };
    }
    let resolve: (result: WakeResult) => void = () => {};
    const done = new Promise<WakeResult>((r) => (resolve = r));
    this.#queued.set(repo, { triggers: new Set([trigger]), done, resolve });
    this.#pump();
    return done;
  }

  /** Starts queued catch-ups while there is capacity, oldest first, never two of one repository. */
  #pump(): void {
    while (!this.#draining && this.#running.size < this.#concurrency) {
      const next = [...this.#queued.keys()].find((repo) => !this.#running.has(repo));
      if (next === undefined) return;
      const queued = this.#queued.get(next) as Queued;
      this.#queued.delete(next);
      this.#wakeRoomWaiters();
      const run = this.#run(next, queued.triggers)
        .then((result) => {
          queued.resolve(result);
          if (this.#behind.delete(next) && result.outcome === 'delivered') void this.#wake(next, 'retry');
        })
        .finally(() => {
          this.#running.delete(next);
          this.#pump();
        });
      this.#running.set(next, run);
    }
  }

  #wakeRoomWaiters(): void {
    for (const resolve of this.#roomWaiters.splice(0)) resolve();
  }

  async #run(repo: string, triggers: ReadonlySet<Trigger>): Promise<WakeResult> {
    const { repos, store, target, client, metrics, batchEvents } = this.#options;
    let report: CatchUpReport;
    try {
      report = await catchUp({ repos, store, post: (t, body, signal) => client.post(t, body, signal), ...(batchEvents ? { batchEvents } : {}) }, target, repo, {
        abort: this.#abort.signal,
        stopping: this.#stopping.signal,
      });
    } catch (err) {
      if (err instanceof RepoNotFoundError) {
        metrics.lag.remove({ repo });
        this.#clearBackoff(repo);
        return { repo, outcome: 'gone' };
      }
      this.#log?.warn({ err, repo }, 'events catch-up failed');
      const reason = err instanceof Error && err.name === 'StoreUnavailableError' ? 'the object store is unavailable' : 'internal error, see the service log';
      return { repo, outcome: 'failed', reason, retryInMs: this.#failed(repo, reason) };
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
    metrics.lag.set({ repo }, Math.max(0, report.headSeq - report.cursorSeq));
    if (report.failure?.kind === 'aborted') return { repo, outcome: 'abandoned', report, reason: describeOutcome(report.failure) };
    if (report.failure) {
      const reason = describeOutcome(report.failure, client.answerTimeoutMs);
      return { repo, outcome: 'failed', report, reason, retryInMs: this.#failed(repo, reason) };
    }
    this.#clearBackoff(repo);
    if (report.emitted > 0 && triggers.size === 1 && triggers.has('sweep')) metrics.sweepFound.inc();
    return { repo, outcome: report.superseded ? 'gone' : 'delivered', report };
  }

  /** Records a failure and schedules the retry; answers its delay. */
  #failed(repo: string, reason: string): number {
    const previous = this.#backoff.get(repo);
    clearTimeout(previous?.timer);
    const failures = (previous?.failures ?? 0) + 1;
    const delay = backoffDelay(failures, this.#options.backoff ?? DEFAULT_BACKOFF);
    const timer = setTimeout(() => void this.#wake(repo, 'retry'), delay).unref();
    this.#backoff.set(repo, { failures, retryAt: Date.now() + delay, reason, timer });
    this.#log?.warn({ repo, failures, retryInMs: delay, reason }, 'events delivery failed; the repository is retried after a backoff');
    return delay;
  }

  #clearBackoff(repo: string): void {
    clearTimeout(this.#backoff.get(repo)?.timer);
    this.#backoff.delete(repo);
  }

  async #sweep(): Promise<SweepReport> {
    const runs: Promise<WakeResult>[] = [];
    for await (const repo of listRepositories(this.#options.store)) {
      // Listing waits while the queue is full, so a sweep of many repositories holds at most the queue's worth.
      while (!this.#draining && this.#queued.size >= this.#queueLimit) await new Promise<void>((resolve) => this.#roomWaiters.push(resolve));
      if (this.#draining) break;
      runs.push(this.#wake(repo, 'sweep'));
    }
    const results = await Promise.all(runs);
    const report = {
      repos: results.length,
      delivered: results.filter((r) => (r.report?.emitted ?? 0) > 0).length,
      failed: results.filter((r) => r.outcome === 'failed').length,
    };
    if (report.delivered > 0 || report.failed > 0) this.#log?.info(report, 'events sweep');
    return report;
  }
}

export interface SweepReport {
  /** Repositories looked at. */
  readonly repos: number;
  /** Of them, those it delivered events for. */
  readonly delivered: number;
  readonly failed: number;
}
