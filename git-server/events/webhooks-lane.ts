// The per-repository webhooks' half of the events role: the `RepositoryWebhook` resources of cw-git's namespace
// (repository-webhooks.ts), delivered by a bridge of their own (the same catch-up, queue, backoff and drain as the
// spec's webhook, a concurrency of its own so a slow receiver of theirs never holds that one back), woken by the
// same wake-ups. Loaded only with `kubernetes.webhook_namespace` set: a cw-git without Kubernetes never loads its client.
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import type { RepositoryWebhook } from '../../src/apis/v1alpha1/repository-webhook.ts';
import { UnavailableError } from '../../src/errors.ts';
import { loadKubeConnection, objectClient } from '../../src/kube/index.ts';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { REPOSITORY_WEBHOOKS } from '../../src/platform/resources.ts';
import type { PostedBatch } from './catch-up.ts';
import { DeliveryClient, type DeliveryOutcome } from './delivery-client.ts';
import { appendDelivery, readDeliveryLog, recordOf, type DeliveryLog, type DeliveryRecord } from './delivery-log.ts';
import type { DeliveryTarget } from './delivery-target.ts';
import { rebuildPayload } from './redelivery.ts';
import { deliveryId } from './signing.ts';
import type { TargetPolicy } from '../../src/target-policy.ts';
import { webhookCursorKey, webhookDeliveriesKey } from './webhook-layout.ts';
import { parseRepoPath } from '../../src/repo-store/repo-path.ts';
import { KeyedSlots } from '../../src/collections/keyed-slots.ts';
import type { RepoStore } from '../../src/repo-store/repo-store.ts';
import {
  DeliveryNotFoundError,
  PayloadChangedError,
  PayloadGoneError,
  TooManyRedeliveriesError,
  WebhookNotFoundError,
  WebhookNotReadyError,
  type RepoWebhooksApi,
  type RepoWebhookView,
} from '../repo-api/hooks.ts';
import { EventsBridge } from './bridge.ts';
import { EventsMetrics } from './metrics.ts';
import { RepositoryWebhooks, type WebhookState } from './repository-webhooks.ts';
import { WebhookStatusWriter } from './webhook-status-writer.ts';
import type { ShareOf } from '../owner-share.ts';

export interface WebhooksLaneOptions {
  readonly repos: RepoStore;
  readonly objects: ObjectStore;
  readonly registry: Registry;
  readonly policy: TargetPolicy;
  readonly namespace: string;
  /** KUBECONFIG; absent: in-cluster. */
  readonly kubeconfig?: string | undefined;
  readonly sweepIntervalMs: number;
  /** Tests: a shorter answer time-out. */
  readonly answerTimeoutMs?: number;
  readonly backoff?: { baseMs: number; maxMs: number };
  /** Whose share of the deliveries an owner's repositories spend (the bridge's `shareOf`). */
  readonly shareOf?: ShareOf;
}

/** Redeliveries posted at once by one instance (each holds a connection for up to 10 s). */
export const REDELIVERY_CONCURRENCY = 4;
/** Of those, asked for by one caller (one person's across their projects): one redelivering to a slow receiver leaves the rest to others. */
export const REDELIVERY_PER_CALLER = 2;

export class WebhooksLane implements RepoWebhooksApi {
  readonly webhooks: RepositoryWebhooks;
  readonly bridge: EventsBridge;
  readonly client: DeliveryClient;
  readonly status: WebhookStatusWriter;
  readonly #store: ObjectStore;
  readonly #repos: RepoStore;
  readonly #redelivering = new KeyedSlots({ total: REDELIVERY_CONCURRENCY, perKey: REDELIVERY_PER_CALLER });
  readonly #forgetting = new Set<Promise<void>>();
  #log: FastifyBaseLogger | undefined;

  constructor(options: WebhooksLaneOptions) {
    this.client = new DeliveryClient({ policy: options.policy, ...(options.answerTimeoutMs ? { answerTimeoutMs: options.answerTimeoutMs } : {}) });
    const kube = loadKubeConnection(options.kubeconfig, 'cw-git');
    this.#store = options.objects;
    this.#repos = options.repos;
    this.webhooks = new RepositoryWebhooks({ kube, namespace: options.namespace, client: this.client });
    const webhooks = this.webhooks;
    this.status = new WebhookStatusWriter({ client: objectClient<RepositoryWebhook>(kube, REPOSITORY_WEBHOOKS), webhooks, store: options.objects });
    this.bridge = new EventsBridge({
      repos: options.repos,
      store: options.objects,
      targets: (repo) => webhooks.targetsOf(repo),
      repositories: () => webhooks.repositories(),
      metricLabels: (repo, target) => ({ repo, webhook: webhookKeyOf(target) }),
      onPosted: (target, batch, body, outcome) => this.#record(target, batch, body, outcome),
      onCaughtUp: (target, result) => this.status.caughtUp(webhookKeyOf(target), result),
      client: this.client,
      metrics: new EventsMetrics(options.registry, 'repository_webhook'),
      sweepIntervalMs: options.sweepIntervalMs,
      ...(options.backoff ? { backoff: options.backoff } : {}),
      ...(options.shareOf ? { shareOf: options.shareOf } : {}),
    });
    // A webhook that became ready (created, its Secret added, re-activated) is caught up at once: its cursor is
    // placed and whatever was published since it was created delivered.
    webhooks.onChange((change) => {
      if (!('state' in change)) {
        this.status.removed(change.removed);
        const forgetting = this.#forget(change.removed).finally(() => this.#forgetting.delete(forgetting));
        return void this.#forgetting.add(forgetting);
      }
      this.status.resolved(change.state);
      if (change.state.resolution.kind === 'ready' && change.state.repo !== undefined) void this.bridge.wakeAll(change.state.repo);
    });
  }

  /** Appends a post to the webhook's delivery log (the status shows it after the catch-up). */
  async #record(target: DeliveryTarget, batch: PostedBatch, body: Uint8Array, outcome: DeliveryOutcome): Promise<void> {
    // A webhook deleted while its post was under way: its log was (or is being) deleted, not recreated.
    if (!target.logKey || !this.webhooks.state(webhookKeyOf(target))) return;
    const record = recordOf(
      {
        deliveryId: deliveryId(body),
        at: new Date(Date.now() - outcome.durationMs),
        repo: batch.repo,
        seqs: batch.events.map((e) => Number(e._service.seq)),
        scheme: target.scheme ?? 'service',
        redelivery: false,
      },
      outcome,
    );
    if (!record) return;
    const key = target.logKey(parseRepoPath(batch.repo));
    const { log } = await appendDelivery(this.#store, key, record);
    this.status.recorded(key, log);
  }

  /** Starts watching the webhooks, then sweeps their repositories (now and every sweep interval). */
  async start(log: FastifyBaseLogger): Promise<void> {
    this.#log = log;
    this.status.log = log;
    await this.webhooks.start(log);
    const ready = [...this.webhooks.repositories()];
    log.info({ namespace: this.webhooks.namespace, repositories: ready.length }, 'events bridge delivering per-repository webhooks');
    this.bridge.start(log);
  }

  async list(repo: string): Promise<RepoWebhookView[]> {
    return Promise.all(
      this.webhooks.list(repo).map(async (state) => {
        const { spec } = state.hook;
        const log = await this.#deliveryLog(state);
        const { resolution } = state;
        return {
          name: state.hook.metadata?.name ?? '',
          url: spec.url,
          signature: spec.signature ?? 'service',
          active: spec.active !== false,
          events: spec.events,
          ready:
            resolution.kind === 'ready' ? { status: true, reason: 'Active', message: `Events of ${repo} are delivered.` } : { status: false, reason: resolution.reason, message: resolution.message },
          consecutiveFailures: log.consecutiveFailures,
          lastDelivery: log.last,
        };
      }),
    );
  }

  async deliveries(repo: string, name: string): Promise<readonly DeliveryRecord[] | undefined> {
    const state = this.webhooks.get(repo, name);
    return state ? (await this.#deliveryLog(state)).records : undefined;
  }

  async redeliver(repo: string, name: string, id: number, by?: string): Promise<DeliveryRecord> {
    if (this.bridge.draining) throw new UnavailableError('This instance is shutting down; retry.');
    const state = this.webhooks.get(repo, name);
    if (!state) throw new WebhookNotFoundError(name, repo);
    const past = (await this.#deliveryLog(state)).records.find((r) => r.id === id);
    if (!past) throw new DeliveryNotFoundError(String(id), name);
    const { resolution } = state;
    if (resolution.kind !== 'ready') throw new WebhookNotReadyError(name, resolution.reason, resolution.message);
    const caller = by ?? parseRepoPath(repo).owner;
    const slot = this.#redelivering.take(caller);
    if (!('release' in slot)) throw new TooManyRedeliveriesError(slot.refused === 'key' ? { caller, limit: REDELIVERY_PER_CALLER } : { limit: REDELIVERY_CONCURRENCY });
    try {
      const { target } = resolution;
      const payload = await rebuildPayload(this.#repos, repo, target, { fromSeq: past.from_seq, toSeq: past.to_seq, deliveryId: past.delivery_id });
      if (payload.kind === 'gone') throw new PayloadGoneError(id, past.from_seq, payload.logStart);
      if (payload.kind === 'changed') throw new PayloadChangedError(id);
      const at = new Date();
      const outcome = await this.client.post(target, payload.body);
      const seqs = payload.events.map((e) => Number(e._service.seq));
      const record = recordOf({ deliveryId: past.delivery_id, at, repo, seqs, scheme: target.scheme ?? 'service', redelivery: true }, outcome);
      if (!record || !target.logKey) throw new Error('a redelivery without a record');
      const key = target.logKey(parseRepoPath(repo));
      const appended = await appendDelivery(this.#store, key, record);
      this.status.recorded(key, appended.log);
      this.#log?.info({ repo, webhook: state.key, id: appended.record.id, deliveryId: past.delivery_id, outcome: outcome.kind }, 'delivery posted again on request');
      return appended.record;
    } finally {
      slot.release();
    }
  }

  /**
   * A deleted webhook's cursor and delivery log are deleted (by every instance that sees it go: deleting what is
   * gone succeeds). Its folder is named after its uid, so nothing of a webhook created again under the name is.
   */
  async #forget(state: WebhookState): Promise<void> {
    const uid = state.hook.metadata?.uid;
    if (state.repo === undefined || !uid) return;
    const path = parseRepoPath(state.repo);
    await Promise.all([this.#store.delete(webhookCursorKey(path, uid)), this.#store.delete(webhookDeliveriesKey(path, uid))]).catch((err: unknown) =>
      this.#log?.warn({ err, webhook: state.key }, 'deleting a removed webhook’s cursor and delivery log failed; they stay until the repository is deleted'),
    );
  }

  /** The webhook's delivery log as the bucket has it now. */
  async #deliveryLog(state: WebhookState): Promise<DeliveryLog> {
    const uid = state.hook.metadata?.uid ?? '';
    return (await readDeliveryLog(this.#store, webhookDeliveriesKey(parseRepoPath(state.repo ?? ''), uid))).log;
  }

  /** Resolves once the resolutions, status writes and clean-ups started so far are done. */
  async settled(): Promise<void> {
    await this.webhooks.settled();
    await Promise.all(this.#forgetting);
    await this.status.settled();
  }

  /** Starts catching `repo` up for its webhooks, in the background. */
  wake(repo: string): void {
    if (this.webhooks.targetsOf(repo).length > 0) void this.bridge.wakeAll(repo);
  }

  async drain(boundMs: number): Promise<void> {
    this.webhooks.stop();
    await this.bridge.drain(boundMs);
    await this.status.settled();
    this.#log?.debug('per-repository webhooks drained');
  }
}

/** The `namespace/name` of a webhook's target (its id is `hook:<namespace>/<name>`). */
export function webhookKeyOf(target: Pick<DeliveryTarget, 'id'>): string {
  return target.id.replace(/^hook:/, '');
}
