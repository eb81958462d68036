import { Pool } from 'undici';

/** Kept-alive connections to one workerd socket: undici's pool, which frames HTTP/1.1 for the entry point. */
export interface UpstreamSocket {
  readonly socketPath: string;
  readonly dispatcher: Pool;
}

/**
 * The connections to one workerd process and the requests in flight on them. A blue/green switch
 * leaves the old pool serving what it already accepted; the engine waits for `idle()` before stopping
 * that workerd, so no request is dropped.
 */
export class UpstreamPool {
  readonly #sockets = new Map<string, UpstreamSocket>();
  /** The entry point logged that this workerd cannot be reached. */
  reportedUnreachable = false;
  #inFlight = 0;
  #idleWaiters: Array<() => void> = [];

  get inFlight(): number {
    return this.#inFlight;
  }

  /** The kept-alive connections to one of this workerd's sockets. */
  socket(socketPath: string): UpstreamSocket {
    let socket = this.#sockets.get(socketPath);
    if (!socket) {
      // The origin only names the scheme: every request carries the client's own Host.
      socket = { socketPath, dispatcher: new Pool('http://workerd', { socketPath, connections: null }) };
      this.#sockets.set(socketPath, socket);
    }
    return socket;
  }

  /** Counts a request in flight; the answer ends it, once however often it is called. */
  enter(): () => void {
    this.#inFlight += 1;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.#inFlight -= 1;
      if (this.#inFlight === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
    };
  }

  /** Resolves once nothing is in flight. */
  idle(): Promise<void> {
    return this.#inFlight === 0 ? Promise.resolve() : new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Closes the connections once the requests on them have finished. */
  destroy(): void {
    for (const socket of this.#sockets.values()) void socket.dispatcher.close().catch(() => {});
  }
}

/** Where the entry point sends requests: the dispatcher's socket of one workerd generation. */
export interface Upstream {
  readonly socket: UpstreamSocket;
  readonly pool: UpstreamPool;
}
