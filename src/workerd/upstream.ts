import type { ConcurrencyLimiter } from './concurrency-limiter.ts';
import { UpstreamClient } from './upstream-client.ts';

/**
 * The connections to one workerd process and the requests in flight on them. A blue/green switch
 * leaves the old pool serving what it already accepted; the engine waits for `idle()` before stopping
 * that workerd, so no request is dropped.
 */
export class UpstreamPool {
  readonly #clients = new Map<string, UpstreamClient>();
  /** The router logged that this workerd cannot be reached. */
  reportedUnreachable = false;
  #inFlight = 0;
  #idleWaiters: Array<() => void> = [];

  get inFlight(): number {
    return this.#inFlight;
  }

  /** The keep-alive client of one of this workerd's sockets. */
  client(socketPath: string): UpstreamClient {
    let client = this.#clients.get(socketPath);
    if (!client) this.#clients.set(socketPath, (client = new UpstreamClient(socketPath)));
    return client;
  }

  enter(): void {
    this.#inFlight += 1;
  }

  leave(): void {
    this.#inFlight -= 1;
    if (this.#inFlight === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }

  /** Resolves once nothing is in flight. */
  idle(): Promise<void> {
    return this.#inFlight === 0 ? Promise.resolve() : new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Closes the idle connections (in-flight ones finish first). */
  destroy(): void {
    for (const client of this.#clients.values()) client.destroy();
  }
}

/** Where requests for one app go: a workerd socket of one generation. */
export interface Upstream {
  readonly client: UpstreamClient;
  readonly pool: UpstreamPool;
}

/** A routed app: its upstream now and its concurrency limiter, which outlives generations. */
export interface Route {
  /** `<project>/<appId>`. */
  readonly key: string;
  readonly upstream: Upstream;
  readonly limiter: ConcurrencyLimiter;
}
