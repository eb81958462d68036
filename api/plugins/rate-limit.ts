import type { FastifyInstance, FastifyReply, onRequestHookHandler } from 'fastify';
import { sendProblem } from './problem-details.ts';
import { appendOnRequest } from './route-hooks.ts';
import { describeRate, TokenBuckets, type RateLimitOptions } from './token-buckets.ts';

export type { RateLimitOptions } from './token-buckets.ts';

const EXEMPT = new Set(['/healthz', '/readyz', '/openapi.json']);

function isProbeOrDiscovery(url: string): boolean {
  return (EXEMPT.has(url) || url === '/docs' || url.startsWith('/docs/'));
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A limit of the route's own instead of the app's, with buckets of its own (a public route that costs). */
    rateLimit?: RateLimitOptions;
  }
}

/**
 * A token bucket per caller: per token once authenticated, else per client address. Register it after
 * `authentication` and before `authorization` (plugins/auth.ts): its hook is added to each route between
 * theirs, so it sees the principal, and a request refused 403 still counts.
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
  const byToken = new TokenBuckets(options, maxCallers / 2, nowMs);
  const byAddress = new TokenBuckets(options, maxCallers / 2, nowMs);
  const limitHeader = String(options.perSecond);
  /** Spends one request of the caller's bucket; `false` when it was empty and the 429 is sent. */
  const spend = (buckets: TokenBuckets, key: string, reply: FastifyReply): boolean => {
    reply.header('x-ratelimit-limit', limitHeader);
    const left = buckets.take(key);
    if (left === undefined) {
      const retryAfter = buckets.retryAfterSeconds(key);
      sendProblem(reply, 429, `Rate limit of ${describeRate(options.perSecond)} exceeded; retry in ${retryAfter} s.`, {
        'retry-after': String(retryAfter),
      });
      return false;
    }
    reply.header('x-ratelimit-remaining', String(left));
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
