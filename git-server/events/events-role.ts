// The `events` role in a cw-git instance (spec "Events"): with the role (`server.roles`, empty means all) and a
// webhook (`events.webhook_url`), a bridge delivers every repository's ref events to it, woken by
// `POST /_events/notify` and by a sweep every `events.sweep_interval`. On SIGTERM it drains with maintenance, in
// the first phase: no wake-up is taken any more and the delivery under way finishes or is given up, its cursor
// unmoved.
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { DeliveryClient } from '../../src/repo-events/delivery-client.ts';
import { configuredWebhook } from '../../src/repo-events/delivery-target.ts';
import { TargetPolicy } from '../../src/repo-events/target-policy.ts';
import type { RepoStore } from '../../src/repo-store/repo-store.ts';
import type { GitServiceConfig } from '../config/index.ts';
import { EventsBridge } from './bridge.ts';
import { EventsMetrics } from './metrics.ts';

/** The drain's bound: the maintenance drain's (both run in the first phase), enough for a post's 10 s. */
export const EVENTS_DRAIN_MS = 30_000;

export interface EventsRole {
  /** The bridge, when this instance delivers events. */
  readonly bridge: EventsBridge | undefined;
  /** Starts the sweeps (the first one at once), and says what the bridge delivers to. */
  start(log: FastifyBaseLogger): void;
  /** No more wake-ups; resolves once the delivery under way finished or, past `boundMs`, was given up. */
  drain(boundMs?: number): Promise<void>;
}

export function eventsRole(options: { config: GitServiceConfig; repos: RepoStore; objects: ObjectStore; registry: Registry }): EventsRole {
  const { config, repos, objects, registry } = options;
  const enabled = config.server.roles.includes('events');
  const url = config.events.webhookUrl;
  if (!enabled || url === undefined) {
    return {
      bridge: undefined,
      start(log) {
        if (enabled) log.info('events role without events.webhook_url: no events are delivered');
      },
      async drain() {},
    };
  }
  const client = new DeliveryClient({ policy: new TargetPolicy({ allowPrivate: config.events.allowPrivateTargets, denied: config.events.deniedTargetRanges }) });
  const target = configuredWebhook(url, config.events.webhookSecret);
  const bridge = new EventsBridge({ repos, store: objects, target, client, metrics: new EventsMetrics(registry), sweepIntervalMs: config.events.sweepIntervalMs });
  return {
    bridge,
    start(log) {
      // The origin only: some receivers (chat webhooks) carry a secret in the path.
      log.info({ webhook: new URL(url).origin, signed: config.events.webhookSecret !== undefined, sweepIntervalMs: config.events.sweepIntervalMs }, 'events bridge delivering');
      void client.refusal(target).then((why) => {
        if (why) log.error(`events.webhook_url is refused, no event is delivered until this changes: ${why}`);
      });
      bridge.start(log);
    },
    drain: (boundMs = EVENTS_DRAIN_MS) => bridge.drain(boundMs),
  };
}
