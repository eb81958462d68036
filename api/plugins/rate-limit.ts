import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { clientAddressKey } from '../../src/client-address.ts';
import { sendProblem } from './problem-details.ts';
import { appendOnRequest } from './route-hooks.ts';
import { describeRate, TokenBuckets, type RateLimitOptions } from './token-buckets.ts';

export type { RateLimitOptions } from './token-buckets.ts';

const EXEMPT = new Set(['/healthz', '/readyz', '/openapi.json']);

function isProbeOrDiscovery(url: string): boolean {
  return EXEMPT.has(url) || url === '/docs' || url.startsWith('/docs/');
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A limit of the route's own instead of the app's, with buckets of its own (a public route that costs). */
    rateLimit?: RateLimitOptions;
    /**
     * Who calls a route auth does not guard, when the route can tell: a key for a bucket of that credential's own
     * (a query token the database holds, by its hash), so callers sharing an address (a NAT, a CI provider, an
     * ingress without `trustProxy`) do not share one bucket. Undefined: by address, as any unauthenticated request.
     */
    rateLimitBy?: (request: FastifyRequest) => string | undefined;
  }
}

/** The app's per-caller limit: the hooks that spend it, and the charge for requests auth refuses. */
export interface CallerRateLimiter {
  readonly limitRoute: onRequestHookHandler;
  /** `limitRoute` for a route that can tell an unauthenticated caller by a credential of its own (`rateLimitBy`). */
  readonly limitRouteBy: (by: (request: FastifyRequest) => string | undefined) => onRequestHookHandler;
  /**
   * Spends one request of the client address's bucket for a request no route matches (404, 405), from the
   * app's global `onRequest` hook (plugins/request-entry.ts): `false` when it was empty and the 429 is sent.
   */
  readonly spendUnmatched: (request: FastifyRequest, reply: FastifyReply) => boolean;
  /**
   * Spends one request of an authenticated caller's bucket for a request auth refused (403), which never
   * reaches `limitRoute`: `false` when the bucket was empty and the 429 is sent instead.
   */
  readonly chargeRefusal: (request: FastifyRequest, reply: FastifyReply) => boolean;
  readonly nowMs: () => number;
}

/** The app's per-caller limit (`rateLimit` registers it; auth charges it for the requests it refuses). */
export function callerRateLimiter(options: RateLimitOptions, nowMs: () => number = Date.now): CallerRateLimiter {
  return { ...bucketLimiter(options, nowMs), nowMs };
}

/**
 * A token bucket per caller: per user once authenticated (all their tokens and sessions share it), else per client address. Register it after
 * the auth plugin: its hook is added to each route after the auth plugin's, so it sees the principal (a
 * request auth refuses with 403 is charged by auth itself, through `chargeRefusal`).
 * Past the limit: 429 with `Retry-After`. Only health and discovery routes are exempt (probes must never
 * starve); public routes that do work, such as starting a device sign-in, are limited like any other (that
 * one by a stricter limit of its own, `config.rateLimit`), and so are requests no route matches (404, 405),
 * by address: the app's global hook calls `spendUnmatched` for those (one global hook for every request).
 */
export function rateLimit(app: FastifyInstance, shared: CallerRateLimiter): void {
  app.addHook('onRoute', (route) => {
    if (isProbeOrDiscovery(route.url)) return;
    // A route with a limit of its own gets buckets of its own: spending them spends none of the caller's others.
    const limiter = route.config?.rateLimit ? bucketLimiter(route.config.rateLimit, shared.nowMs) : shared;
    const by = route.config?.rateLimitBy;
    appendOnRequest(route, by ? limiter.limitRouteBy(by) : limiter.limitRoute);
  });
}

/** One limit's buckets and the hooks spending them. */
function bucketLimiter(options: RateLimitOptions, nowMs: () => number): Omit<CallerRateLimiter, 'nowMs'> {
  // Users and addresses in maps of their own: the user id is the principal's own string, whose hash V8 keeps,
  // where a prefixed key would be a new string to hash on every request. Each map holds half the callers. By user,
  // not by token: a user may hold 100 tokens, and 40 of them made 40 times the rate (a hostile run).
  const maxCallers = options.maxCallers ?? 100_000;
  const byUser = new TokenBuckets(options, maxCallers / 2, nowMs);
  const byAddress = new TokenBuckets(options, maxCallers / 2, nowMs);
  // Credentials a route recognises (`rateLimitBy`), made only for routes that ask.
  let byCredential: TokenBuckets | undefined;
  const limitHeader = String(options.perSecond);
  /** Spends one request of the caller's bucket; `false` when it was empty and the 429 is sent. */
  const spend = (buckets: TokenBuckets, key: string, reply: FastifyReply): boolean => {
    reply.header('x-ratelimit-limit', limitHeader);
    const left = buckets.take(key);
    if (left === undefined) {
      const retryAfter = buckets.retryAfterSeconds(key);
      sendProblem(reply, 429, `Rate limit of ${describeRate(options.perSecond)} exceeded; retry in ${retryAfter} s.`, {
        'retry-after': String(retryAfter),
        'x-ratelimit-remaining': '0',
      });
      return false;
    }
    reply.header('x-ratelimit-remaining', String(left));
    return true;
  };
  // Callback-style hooks: an async hook costs a promise per request on the hottest path. When the 429 is
  // sent, `done` is not called: Fastify stops the chain.
  // After authentication: a caller with a token is limited by its user, anyone else by address.
  const spendCaller = (request: FastifyRequest, reply: FastifyReply): boolean =>
    request.principal ? spend(byUser, request.principal.userId, reply) : spend(byAddress, clientAddressKey(request.ip), reply);
  return {
    limitRoute: (request, reply, done) => {
      if (spendCaller(request, reply)) done();
    },
    limitRouteBy: (by) => {
      const buckets = (byCredential ??= new TokenBuckets(options, maxCallers / 2, nowMs));
      return (request, reply, done) => {
        const credential = request.principal ? undefined : by(request);
        if (credential !== undefined ? spend(buckets, credential, reply) : spendCaller(request, reply)) done();
      };
    },
    spendUnmatched: (request, reply) => spend(byAddress, clientAddressKey(request.ip), reply),
    chargeRefusal: spendCaller,
  };
}
