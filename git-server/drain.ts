// Serving drain (spec "States and transitions"): after SIGTERM `/readyz` answers 503 so the load balancer
// stops sending, new fetch, push and LFS work is refused with 503 and `Retry-After: 15`, and in-flight
// requests get `server.drain_timeout` to finish.
import type { FastifyInstance } from 'fastify';
import { sendError } from './errors.ts';

export const DRAIN_RETRY_AFTER_SECONDS = 15;

export class DrainState {
  #draining = false;
  #active = 0;
  #idle: (() => void)[] = [];

  get draining(): boolean {
    return this.#draining;
  }

  /** Git and LFS requests being served. */
  get active(): number {
    return this.#active;
  }

  start(): void {
    this.#draining = true;
  }

  /** Resolves once no git or LFS request is in flight. */
  idle(): Promise<void> {
    if (this.#active === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  begin(): () => void {
    this.#active++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.#active === 0) for (const resolve of this.#idle.splice(0)) resolve();
    };
  }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Refused with 503 while the instance drains (git and LFS object work). */
    drains?: boolean;
  }
}

export function drainGate(app: FastifyInstance, drain: DrainState, onRefused: (url: string) => void): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.routeOptions.config.drains) return done();
    if (drain.draining) {
      onRefused(request.url);
      sendError(reply, 503, 'draining', 'This instance is shutting down; retry.', { 'retry-after': String(DRAIN_RETRY_AFTER_SECONDS) });
      return;
    }
    reply.raw.once('close', drain.begin());
    done();
  });
}
