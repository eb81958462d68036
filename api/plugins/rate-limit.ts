import type { FastifyInstance, FastifyReply, onRequestHookHandler } from 'fastify';
import { RecentMap } from '../../src/collections/recent-map.ts';
import { sendProblem } from './problem-details.ts';
import { appendOnRequest } from './route-hooks.ts';

export interface RateLimitOptions {
  /** Sustained requests per second per caller. */
  perSecond: number;
  /** Requests a caller may send at once after being idle. */
  burst: number;
  /**
   * Callers remembered at most (memory stays bounded), half of them tokens and half addresses. A caller is
   * forgotten, and so starts again with a full burst, only once a quarter this many other callers of its
   * kind have been seen since its last request.
   */
  maxCallers?: number;
}

const EXEMPT = new Set(['/healthz', '/readyz', '/openapi.json']);

function isProbeOrDiscovery(url: string): boolean {
  return (EXEMPT.has(url) || url === '/docs' || url.startsWith('/docs/'));
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A limit of the route's own instead of the app's, with buckets of its own (a public route that costs). */
    rateLimit?: RateLimitOptions;
  }
}

/**
 * A token bucket per caller: per token once authenticated, else per client address. Register it after
 * the auth plugin: its hook is added to each route after the auth plugin's, so it sees the principal.
 * Past the limit: 429 with `Retry-After`. Only health and discovery routes are exempt (probes must never
 * starve); public routes that do work, such as starting a device sign-in, are limited like any other (that
 * one by a stricter limit of its own, `config.rateLimit`), and so are requests no route matches (404, 405),
 * by address.
 */
export function rateLimit(app: FastifyInstance, options: RateLimitOptions, nowMs: () => number = Date.now): void {
  const shared = bucketLimiter(options, nowMs);
  app.addHook('onRoute', (route) => {
    if (isProbeOrDiscovery(route.url)) return;
    // A route with a limit of its own gets buckets of its own: spending them spends none of the caller's others.
    appendOnRequest(route, route.config?.rateLimit ? bucketLimiter(route.config.rateLimit, nowMs).limitRoute : shared.limitRoute);
  });
  app.addHook('onRequest', shared.limitUnmatched);
}

/** One limit's buckets and the hooks spending them. */
function bucketLimiter(options: RateLimitOptions, nowMs: () => number): { limitRoute: onRequestHookHandler; limitUnmatched: onRequestHookHandler } {
  // Tokens and addresses in maps of their own: the token id is the store's own string, whose hash V8 keeps,
  // where a prefixed key would be a new string to hash on every request. Each map holds half the callers.
  const maxCallers = options.maxCallers ?? 100_000;
  const byToken = new RecentMap<Bucket>(maxCallers / 2);
  const byAddress = new RecentMap<Bucket>(maxCallers / 2);
  const limitHeader = String(options.perSecond);
  /** Spends one request of the caller's bucket; `false` when it was empty and the 429 is sent. */
  const spend = (buckets: RecentMap<Bucket>, key: string, reply: FastifyReply): boolean => {
    const now = nowMs();
    let bucket = buckets.get(key);
    if (bucket) {
      bucket.tokens = Math.min(options.burst, bucket.tokens + ((now - bucket.updatedMs) / 1000) * options.perSecond);
      bucket.updatedMs = now;
    } else {
      bucket = { tokens: options.burst, updatedMs: now };
      buckets.set(key, bucket);
    }
    reply.header('x-ratelimit-limit', limitHeader);
    if (bucket.tokens < 1) {
      const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / options.perSecond));
      sendProblem(reply, 429, `Rate limit of ${describeRate(options.perSecond)} exceeded; retry in ${retryAfter} s.`, {
        'retry-after': String(retryAfter),
      });
      return false;
    }
    bucket.tokens -= 1;
    reply.header('x-ratelimit-remaining', String(Math.floor(bucket.tokens)));
    return true;
  };
  // Callback-style hooks: an async hook costs a promise per request on the hottest path. When the 429 is
  // sent, `done` is not called: Fastify stops the chain.
  // After authentication: a caller with a token is limited by its token id (no secret in the map), anyone
  // else by address.
  return {
    limitRoute: (request, reply, done) => {
      const admitted = request.principal ? spend(byToken, request.principal.tokenId, reply) : spend(byAddress, request.ip, reply);
      if (admitted) done();
    },
    limitUnmatched: (request, reply, done) => {
      if (!request.is404 || spend(byAddress, request.ip, reply)) done();
    },
  };
}

/** `50 requests per second`, or `10 requests per minute` for a rate below one a second. */
function describeRate(perSecond: number): string {
  return perSecond >= 1 ? `${perSecond} requests per second` : `${Math.round(perSecond * 60)} requests per minute`;
}
