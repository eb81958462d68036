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
 * `shardOf`). Rebuilt whole when the served apps change; read per request. An unknown host is answered here
 * (404), as the dispatcher would, without crossing into workerd.
 */
export class ShardRouter {
  readonly #shards: number;
  #routes = new Map<string, HostRoute>();

  constructor(shards: number) {
    this.#shards = shards;
  }

  /** Routes each host of `assignment` (normalised host → app key `<project>/<app>`) to its app's shard. */
  update(assignment: ReadonlyMap<string, string>): void {
    const routes = new Map<string, HostRoute>();
    for (const [host, key] of assignment) routes.set(host, { key, shard: shardOf(key.slice(0, key.indexOf('/')), this.#shards) });
    this.#routes = routes;
  }

  /** The route of a request's `Host` header, or the 404 problem its client gets. */
  route(hostHeader: string | undefined): HostRoute | Refusal {
    const host = normalizeHost(hostHeader);
    const route = host === undefined ? undefined : this.#routes.get(host);
    if (route) return route;
    return { status: 404, title: 'Not Found', detail: host === undefined ? 'The request names no host.' : `No app is served at host ${JSON.stringify(host)}.` };
  }
}
