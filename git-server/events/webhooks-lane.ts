// The per-repository webhooks' half of the events role: the `RepositoryWebhook` resources of cw-git's namespace
// (repository-webhooks.ts), delivered by a bridge of their own (the same catch-up, queue, backoff and drain as the
// spec's webhook, a concurrency of its own so a slow receiver of theirs never holds that one back), woken by the
// same wake-ups. Loaded only with `kubernetes.namespace` set: a cw-git without Kubernetes never loads its client.
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import { loadKubeConnection } from '../../src/kube/index.ts';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { DeliveryClient } from '../../src/repo-events/delivery-client.ts';
import type { TargetPolicy } from '../../src/repo-events/target-policy.ts';
import type { RepoStore } from '../../src/repo-store/repo-store.ts';
import { EventsBridge } from './bridge.ts';
import { EventsMetrics } from './metrics.ts';
import { RepositoryWebhooks } from './repository-webhooks.ts';

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
}

export class WebhooksLane {
  readonly webhooks: RepositoryWebhooks;
  readonly bridge: EventsBridge;
  readonly client: DeliveryClient;
  #log: FastifyBaseLogger | undefined;

  constructor(options: WebhooksLaneOptions) {
    this.client = new DeliveryClient({ policy: options.policy, ...(options.answerTimeoutMs ? { answerTimeoutMs: options.answerTimeoutMs } : {}) });
    this.webhooks = new RepositoryWebhooks({ kube: loadKubeConnection(options.kubeconfig), namespace: options.namespace, client: this.client });
    const webhooks = this.webhooks;
    this.bridge = new EventsBridge({
      repos: options.repos,
      store: options.objects,
      targets: (repo) => webhooks.targetsOf(repo),
      repositories: () => webhooks.repositories(),
      metricLabels: (repo, target) => ({ repo, webhook: target.id.replace(/^hook:/, '') }),
      client: this.client,
      metrics: new EventsMetrics(options.registry, 'repository_webhook'),
      sweepIntervalMs: options.sweepIntervalMs,
      ...(options.backoff ? { backoff: options.backoff } : {}),
    });
    // A webhook that became ready (created, its Secret added, re-activated) is caught up at once: its cursor is
    // placed and whatever was published since it was created delivered.
    webhooks.onChange((change) => {
      if ('state' in change && change.state.resolution.kind === 'ready' && change.state.repo !== undefined) void this.bridge.wakeAll(change.state.repo);
    });
  }

  /** Starts watching the webhooks, then sweeps their repositories (now and every sweep interval). */
  async start(log: FastifyBaseLogger): Promise<void> {
    this.#log = log;
    await this.webhooks.start(log);
    const ready = [...this.webhooks.repositories()];
    log.info({ namespace: this.webhooks.namespace, repositories: ready.length }, 'events bridge delivering per-repository webhooks');
    this.bridge.start(log);
  }

  /** Starts catching `repo` up for its webhooks, in the background. */
  wake(repo: string): void {
    if (this.webhooks.targetsOf(repo).length > 0) void this.bridge.wakeAll(repo);
  }

  async drain(boundMs: number): Promise<void> {
    this.webhooks.stop();
    await this.bridge.drain(boundMs);
    this.#log?.debug('per-repository webhooks drained');
  }
}
