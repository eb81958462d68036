// The push mark's half of the events role (with the Kubernetes repository directory): each wake-up of a repository
// (`POST /_events/notify`, a sweep) reads its head seq and raises the `cloudwright.dev/pushed-seq` annotation of its
// Repository resource to it (pushed-seq.ts), which wakes the operator's AppSource controller within moments of a
// push. A wake-up, not a source of truth: that controller reads the refs themselves, and on its own periodic pass too.
// Bounded by the bridge's queue (wake-queue.ts): one mark per repository at a time, a wake-up arriving while one runs
// makes one more afterwards (a storm is at most one more patch), at most `concurrency` at once and `queueLimit`
// waiting (a notification beyond is dropped: the sweep gets it), failures retried after a backoff.
import type { FastifyBaseLogger } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import { setTimeout as sleep } from 'node:timers/promises';
import { RepoNotFoundError } from '../../src/repo-store/errors.ts';
import { parseRepoPath, type RepoPath } from '../../src/repo-store/repo-path.ts';
import type { RepoStore } from '../../src/repo-store/repo-store.ts';
import type { RepositoryResource } from '../repositories/kube-repository-resources.ts';
import type { BackoffPolicy } from './backoff.ts';
import { DELIVERY_CONCURRENCY, WAKE_QUEUE_LIMIT } from './bridge.ts';
import type { MarkOutcome } from './pushed-seq-marker.ts';
import { SweepTimer } from './sweep-timer.ts';
import { WakeQueue, type Refusal } from './wake-queue.ts';

export type MarkLaneOutcome =
  | MarkOutcome
  /** The head could not be read or the patch failed: retried after a backoff. */
  | 'failed'
  /** The repository is backing off after a failure; its retry is scheduled. */
  | 'deferred'
  /** The queue was full; the next wake-up or sweep gets it. */
  | 'not_queued'
  /** The lane is draining. */
  | 'abandoned'
  /** No such repository in the bucket. */
  | 'gone';

export interface MarkResult {
  readonly repo: string;
  readonly outcome: MarkLaneOutcome;
  /** The head seq the mark was raised to (or found at or above). */
  readonly headSeq?: number;
  /** Why it failed; never holds a secret. */
  readonly reason?: string;
  readonly retryInMs?: number;
}

export interface PushedSeqLaneOptions {
  readonly repos: Pick<RepoStore, 'readHead'>;
  readonly marker: { raise(repo: RepoPath, headSeq: number): Promise<MarkOutcome> };
  /** What a sweep marks: the repositories that have a resource. */
  readonly resources: () => Promise<readonly RepositoryResource[]>;
  readonly registry: Registry;
  readonly sweepIntervalMs: number;
  readonly concurrency?: number;
  readonly queueLimit?: number;
  readonly backoff?: BackoffPolicy;
}

export class PushedSeqLane {
  readonly #options: PushedSeqLaneOptions;
  readonly #queue: WakeQueue<string, MarkResult>;
  readonly #marks: Counter<'outcome'>;
  #sweeping: Promise<void> | undefined;
  readonly #sweeps = new SweepTimer();
  #draining = false;
  #log: FastifyBaseLogger | undefined;

  constructor(options: PushedSeqLaneOptions) {
    this.#options = options;
    this.#queue = new WakeQueue<string, MarkResult>({
      key: (repo) => repo,
      run: (repo) => this.#run(repo),
      refused: refusedMark,
      succeeded: (result) => result.outcome !== 'failed',
      concurrency: options.concurrency ?? DELIVERY_CONCURRENCY,
      queueLimit: options.queueLimit ?? WAKE_QUEUE_LIMIT,
      backoff: options.backoff,
    });
    this.#marks = new Counter({
      name: 'events_pushed_seq_marks_total',
      help: 'Push marks (the pushed-seq annotation of Repository resources) by outcome: raised, current, none (no resource), failed.',
      labelNames: ['outcome'],
      registers: [options.registry],
    });
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** Sweeps now (what was pushed while no lane ran) and then every `sweepIntervalMs` (±10 %; 0: never again), until drained. */
  start(log?: FastifyBaseLogger): void {
    this.#log = log ?? this.#log;
    this.#sweeps.start(() => this.sweep(), this.#options.sweepIntervalMs);
  }

  /** Raises `repo`'s mark to its head (or joins the mark waiting for it). Never throws. */
  wake(repo: string): Promise<MarkResult> {
    return this.#queue.wake(repo, 'notify');
  }

  /** Every repository that has a resource, once; concurrent calls share one sweep. Never throws. */
  sweep(): Promise<void> {
    this.#sweeping ??= this.#sweep()
      .catch((err: unknown) => this.#log?.warn({ err }, 'push mark sweep failed: the Repository resources could not be listed'))
      .finally(() => (this.#sweeping = undefined));
    return this.#sweeping;
  }

  /** No more wake-ups; resolves once the marks under way finished or `boundMs` passed (a patch is short). */
  async drain(boundMs: number): Promise<void> {
    this.#draining = true;
    this.#sweeps.stop();
    this.#queue.stop();
    const bound = new AbortController();
    await Promise.race([Promise.all([...this.#queue.running.values(), this.#sweeping]), sleep(boundMs, undefined, { signal: bound.signal }).catch(() => undefined)]);
    bound.abort();
  }

  async #run(repo: string): Promise<MarkResult> {
    let headSeq: number | undefined;
    try {
      headSeq = (await this.#options.repos.readHead(repo, { fresh: true })).seq;
      const outcome = await this.#options.marker.raise(parseRepoPath(repo), headSeq);
      this.#marks.inc({ outcome });
      this.#queue.clearBackoff(repo);
      return { repo, outcome, headSeq };
    } catch (err) {
      if (err instanceof RepoNotFoundError) {
        this.#queue.clearBackoff(repo);
        return { repo, outcome: 'gone' };
      }
      this.#marks.inc({ outcome: 'failed' });
      const reason = err instanceof Error && err.name === 'StoreUnavailableError' ? 'the object store is unavailable' : 'the Repository resource could not be read or patched';
      const { delayMs, failures } = this.#queue.failed(repo, reason);
      this.#log?.warn({ err, repo, failures, retryInMs: delayMs, reason }, 'push mark failed; the repository is retried after a backoff');
      return { repo, outcome: 'failed', reason, retryInMs: delayMs, ...(headSeq === undefined ? {} : { headSeq }) };
    }
  }

  async #sweep(): Promise<void> {
    const found = await this.#options.resources();
    const runs: Promise<MarkResult>[] = [];
    for (const repo of new Set(found.map((f) => f.repo))) {
      // A sweep of many repositories holds at most the queue's worth.
      await this.#queue.room();
      if (this.#draining) break;
      runs.push(this.#queue.wake(repo, 'sweep'));
    }
    const results = await Promise.all(runs);
    const raised = results.filter((r) => r.outcome === 'raised').length;
    const failed = results.filter((r) => r.outcome === 'failed').length;
    if (raised > 0 || failed > 0) this.#log?.info({ repositories: results.length, raised, failed }, 'push mark sweep');
  }
}

function refusedMark(repo: string, refusal: Refusal): MarkResult {
  if (refusal.outcome === 'deferred') return { repo, ...refusal };
  if (refusal.outcome === 'not_queued') return { repo, outcome: 'not_queued', reason: `the push mark queue is full (${refusal.queueLimit} repositories)` };
  return { repo, outcome: 'abandoned', reason: 'the events role is shutting down' };
}
