// The `events` role in a cw-git instance (spec "Events"): with the role (`server.roles`, empty means all) and a
// webhook (`events.webhook_url`), a bridge delivers every repository's ref events to it, woken by
// `POST /_events/notify` and by a sweep every `events.sweep_interval`. With `kubernetes.webhook_namespace` set (it
// defaults to `kubernetes.namespace`), a second bridge delivers the per-repository webhooks declared there as
// `RepositoryWebhook` resources, woken by the same wake-ups. With the Kubernetes repository directory
// (`kubernetes.namespace`), a third lane raises each woken repository's push mark (the `cloudwright.dev/pushed-seq`
// annotation of its Repository resource, which wakes push-to-deploy), woken by the same wake-ups and sweeps. On
// SIGTERM all drain with maintenance, in the first phase: no wake-up is taken any more and the delivery under way
// finishes or is given up, its cursor unmoved.
import type { FastifyBaseLogger } from 'fastify';
import { PUSHED_SEQ_ANNOTATION } from '../../src/apis/v1alpha1/repository.ts';
import type { Registry } from 'prom-client';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { DeliveryClient } from './delivery-client.ts';
import { configuredWebhook } from './delivery-target.ts';
import { TargetPolicy } from '../../src/target-policy.ts';
import type { RepoStore } from '../../src/repo-store/repo-store.ts';
import type { GitServiceConfig } from '../config/index.ts';
import { EventsBridge } from './bridge.ts';
import { EventsMetrics } from './metrics.ts';
import type { EventsWaker } from './notify-route.ts';
import type { WebhooksLane } from './webhooks-lane.ts';
import type { RepositoryResources } from '../repositories/kube-repository-resources.ts';
import { PushedSeqLane } from './pushed-seq-lane.ts';
import { PushedSeqMarker } from './pushed-seq-marker.ts';
import type { ShareOf } from '../owner-share.ts';

/** The drain's bound: the maintenance drain's (both run in the first phase), enough for a post's 10 s. */
export const EVENTS_DRAIN_MS = 30_000;

export interface EventsRole {
  /** The bridge of `events.webhook_url`, when this instance delivers to it. */
  readonly bridge: EventsBridge | undefined;
  /** The per-repository webhooks, when this instance delivers them (`kubernetes.webhook_namespace`). */
  readonly webhooks: WebhooksLane | undefined;
  /** The push mark, when this instance has the Kubernetes repository directory. */
  readonly marks: PushedSeqLane | undefined;
  /** What `POST /_events/notify` wakes; absent when this instance delivers nothing. */
  readonly waker: EventsWaker | undefined;
  /** Starts the sweeps (the first one at once), and says what the bridges deliver to. */
  start(log: FastifyBaseLogger): void;
  /** No more wake-ups; resolves once the deliveries under way finished or, past `boundMs`, were given up. */
  drain(boundMs?: number): Promise<void>;
}

export interface EventsRoleOptions {
  readonly config: GitServiceConfig;
  readonly repos: RepoStore;
  readonly objects: ObjectStore;
  readonly registry: Registry;
  /** The Kubernetes repository directory's resources: each woken repository's push mark is raised there. */
  readonly resources?: RepositoryResources;
  /** Whose share of the deliveries an owner's repositories spend (one person's projects together on the platform). */
  readonly shareOf?: ShareOf;
}

export async function eventsRole(options: EventsRoleOptions): Promise<EventsRole> {
  const { config, repos, objects, registry, resources, shareOf } = options;
  const enabled = config.server.roles.includes('events');
  const url = config.events.webhookUrl;
  const namespace = config.kubernetes.webhookNamespace;
  const policy = new TargetPolicy({ allowPrivate: config.events.allowPrivateTargets, denied: config.events.deniedTargetRanges });
  const client = enabled && url !== undefined ? new DeliveryClient({ policy }) : undefined;
  const target = url !== undefined ? configuredWebhook(url, config.events.webhookSecret) : undefined;
  const bridge =
    client && target
      ? new EventsBridge({ repos, store: objects, target, client, metrics: new EventsMetrics(registry), sweepIntervalMs: config.events.sweepIntervalMs, ...(shareOf ? { shareOf } : {}) })
      : undefined;
  let webhooks: WebhooksLane | undefined;
  if (enabled && namespace !== undefined) {
    // Loaded only when configured: a cw-git without Kubernetes never loads the Kubernetes client.
    const { WebhooksLane } = await import('./webhooks-lane.ts');
    webhooks = new WebhooksLane({
      repos,
      objects,
      registry,
      policy,
      namespace,
      kubeconfig: config.environment.kubeconfig,
      sweepIntervalMs: config.events.sweepIntervalMs,
      ...(shareOf ? { shareOf } : {}),
    });
  }
  const marks =
    enabled && resources ? new PushedSeqLane({ repos, marker: new PushedSeqMarker(resources), resources: () => resources.all(), registry, sweepIntervalMs: config.events.sweepIntervalMs }) : undefined;
  const waker: EventsWaker | undefined =
    bridge || webhooks || marks
      ? {
          get draining() {
            return (bridge ?? webhooks?.bridge ?? marks)?.draining ?? false;
          },
          ...(bridge ? { wake: (repo: string) => bridge.wake(repo) } : {}),
          ...(webhooks ? { wakeWebhooks: (repo: string) => webhooks?.wake(repo) } : {}),
          ...(marks ? { wakeMarks: (repo: string) => void marks.wake(repo) } : {}),
        }
      : undefined;
  return {
    bridge,
    webhooks,
    marks,
    waker,
    start(log) {
      if (enabled && !bridge && !webhooks && !marks) log.info('events role without events.webhook_url or kubernetes.webhook_namespace: no events are delivered');
      if (marks) {
        log.info(
          { annotation: PUSHED_SEQ_ANNOTATION, sweepIntervalMs: config.events.sweepIntervalMs },
          `events role marking pushes: each woken repository's head seq is raised on its Repository resource (${PUSHED_SEQ_ANNOTATION}), which wakes push-to-deploy`,
        );
        marks.start(log);
      }
      if (bridge && client && target && url !== undefined) {
        // The origin only: some receivers (chat webhooks) carry a secret in the path.
        log.info({ webhook: new URL(url).origin, signed: config.events.webhookSecret !== undefined, sweepIntervalMs: config.events.sweepIntervalMs }, 'events bridge delivering');
        void client.refusal(target).then((why) => {
          if (why) log.error(`events.webhook_url is refused, no event is delivered until this changes: ${why}`);
        });
        bridge.start(log);
      }
      webhooks?.start(log).catch((err: unknown) => log.error({ err }, 'per-repository webhooks could not start'));
    },
    drain: async (boundMs = EVENTS_DRAIN_MS) => {
      await Promise.all([bridge?.drain(boundMs), webhooks?.drain(boundMs), marks?.drain(boundMs)]);
    },
  };
}
