import type { RoutedApp } from './dispatcher/routing-table.ts';
import { defaultHost } from '../../src/runtime-contract/hosts.ts';
import { defaultURL } from '../../src/runtime-contract/implied-report.ts';
import type { HostAssignment } from '../../src/runtime-contract/host-assignment.ts';
import type { AppDeployment, ServedApp } from './ports.ts';
import type { LiveApp } from './worker-code.ts';

/** An app as the routing table has it: what it serves and under which loader id. */
export interface Served {
  readonly live: LiveApp;
  readonly id: string;
  /** Reports to the tail worker (part of `id`). */
  readonly tailed: boolean;
  /** During a rollout, the new release served beside `live` (`live.app.canary` says its share). */
  readonly canary?: ServedCanary;
  /** During a rollout whose new release stopped the app's shard: that release, no longer served here (`fingerprint`: its code's, `worker-code.ts`). */
  readonly suspended?: { readonly buildId: string; readonly tag: string; readonly fingerprint: string };
}

/** A rollout's new release: the deployment with the canary's build and environment, and its loader id. */
export interface ServedCanary {
  readonly live: LiveApp;
  readonly id: string;
  /** Which stable and new releases these are (fingerprints of both): the dispatcher counts per tag. */
  readonly tag: string;
}

/** How served apps are presented: their public URL and their concurrency bounds. */
export interface ServingOptions {
  readonly baseDomain: string;
  readonly publicScheme?: string;
  readonly publicPort?: number;
  readonly defaultMaxConcurrentRequests?: number;
  /** The queue's depth as a multiple of the concurrency limit. */
  readonly queueDepthFactor?: number;
}

/** An app's concurrency limit: its own, else the engine's default (100). */
export function concurrencyLimit(s: Served, o: ServingOptions): number {
  return s.live.app.maxConcurrentRequests ?? o.defaultMaxConcurrentRequests ?? 100;
}

/**
 * The most requests of one app waiting for a slot, whatever its limit: each waiter wakes on the shard's one thread
 * until it gets in, and 2,000 of them (an app whose handlers only wait, at a limit of 2,000) saturated the thread
 * for every tenant of the shard (found in review).
 */
export const MAX_QUEUE_DEPTH = 256;

/** What the dispatcher's routing table says of a served app: its loader id, build, limit and queue, and its split during a rollout. */
export function routedApp(s: Served, o: ServingOptions): RoutedApp {
  const limit = concurrencyLimit(s, o);
  const canary = s.canary;
  const split = s.live.app.canary;
  return {
    id: s.id,
    build: s.live.build.buildId,
    limit,
    depth: Math.min(MAX_QUEUE_DEPTH, Math.ceil(limit * (o.queueDepthFactor ?? 1))),
    ...(s.tailed ? { tailed: true } : {}),
    ...(canary && split
      ? { split: { id: canary.id, build: canary.live.build.buildId, weight: Math.round(split.weight * 100), affinity: split.affinity, tag: canary.tag, ...(s.tailed ? { tailed: true } : {}) } }
      : {}),
  };
}

/** What the engine tells its callers it serves for `key`: build, hosts (those the assignment gives it), URL, limit. */
export function servedApp(key: string, s: Served, hosts: Pick<HostAssignment, 'hostsOf'>, o: ServingOptions): ServedApp {
  return {
    ...presented(key, s.live.app, hosts, o),
    buildId: s.live.build.buildId,
    maxConcurrentRequests: concurrencyLimit(s, o),
    ...(s.canary && s.live.app.canary ? { canary: { buildId: s.canary.live.build.buildId, weight: s.live.app.canary.weight } } : {}),
    ...(s.suspended ? { canary: { buildId: s.suspended.buildId, weight: 0, suspended: true } } : {}),
  };
}

/**
 * What the engine tells its callers of an app it serves on demand and has not prepared: what it will serve on
 * the app's first request (`onDemand: true`).
 */
export function onDemandApp(key: string, app: AppDeployment, hosts: Pick<HostAssignment, 'hostsOf'>, o: ServingOptions): ServedApp {
  return {
    ...presented(key, app, hosts, o),
    buildId: app.buildId,
    maxConcurrentRequests: app.maxConcurrentRequests ?? o.defaultMaxConcurrentRequests ?? 100,
    ...(app.canary ? { canary: { buildId: app.canary.buildId, weight: app.canary.weight } } : {}),
    onDemand: true,
  };
}

function presented(key: string, app: AppDeployment, hosts: Pick<HostAssignment, 'hostsOf'>, o: ServingOptions): Pick<ServedApp, 'project' | 'appId' | 'hosts' | 'url'> {
  const { project, appId } = app;
  const host = defaultHost(project, appId, o.baseDomain);
  // The one formatter of a default URL: a report the operator rebuilds (`impliedReport`) must say the same.
  return { project, appId, hosts: hosts.hostsOf(key, host), url: defaultURL(host, { scheme: o.publicScheme ?? 'https', ...(o.publicPort !== undefined ? { port: o.publicPort } : {}) }) };
}
