import type { Refusal } from './entry-proxy.ts';
import { normalizeHost } from '../../src/runtime-contract/hosts.ts';
import { shardOf } from './shard-of.ts';

/** Where a host's requests go: the app and the shard that serves its project. */
export interface HostRoute {
  readonly key: string;
  readonly shard: number;
}

/**
 * The entry point's half of routing: `Host` → app → its shard (apps of one project are on one shard, by
 * `shardOf`), read per request from the engine's host assignment. An unknown host is answered here (404), as the
 * dispatcher would, without crossing into workerd.
 */
export class ShardRouter {
  readonly #shards: number;
  readonly #appAt: (host: string) => string | undefined;

  /** `appAt`: the app key (`<project>/<app>`) a normalised host routes to. */
  constructor(shards: number, appAt: (host: string) => string | undefined) {
    this.#shards = shards;
    this.#appAt = appAt;
  }

  /** The route of a request's `Host` header, or the 404 problem its client gets. */
  route(hostHeader: string | undefined): HostRoute | Refusal {
    const host = normalizeHost(hostHeader);
    const key = host === undefined ? undefined : this.#appAt(host);
    if (key !== undefined) return { key, shard: shardOf(key.slice(0, key.indexOf('/')), this.#shards) };
    return { status: 404, title: 'Not Found', detail: host === undefined ? 'The request names no host.' : `No app is served at host ${JSON.stringify(host)}.` };
  }
}
