import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { clientAddressKey } from '../../src/client-address.ts';
import { sendProblem } from './problem-details.ts';
import { appendOnRequest } from './route-hooks.ts';
import { countedWhileRunning, InFlightLimit } from './in-flight.ts';
import { describeRate, TokenBuckets, type RateLimitOptions } from './token-buckets.ts';

export type { RateLimitOptions } from './token-buckets.ts';

/**
 * What one caller may spend of the process: requests per second (`RateLimitOptions`), and, for a caller who
 * authenticated or a credential a route recognises, writes per second besides (`writes`) and requests in flight
 * at once (`inFlight`).
 */
export interface CallerLimits extends RateLimitOptions {
  /**
   * A second bucket per user that only writes spend (every method but GET, HEAD and OPTIONS on a route auth
   * guards): each is an apiserver write, and the work of the controllers after it, which every tenant shares.
   */
  readonly writes?: Pick<RateLimitOptions, 'perSecond' | 'burst'>;
  /** Requests one user, or one credential a route recognises, has open at once. */
  readonly inFlight?: number;
}

/** The defaults: 50 requests a second with bursts of 200, of them 10 writes a second with bursts of 100; 32 at once. */
export const DEFAULT_CALLER_LIMITS = { perSecond: 50, burst: 200, writes: { perSecond: 10, burst: 100 }, inFlight: 32 } as const satisfies CallerLimits;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

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
    /**
     * `false`: the route's requests do not count toward its caller's requests in flight. For answers held open for
     * minutes (a followed log), which bounds of their own count instead.
     */
    countsInFlight?: boolean;
    /**
     * With `rateLimitBy`: whom the recognised credential's requests in flight count against instead of the credential
     * itself, where one holder may have many credentials (a database's query tokens count as their project's).
     */
    inFlightBy?: (request: FastifyRequest) => string | undefined;
  }
}

/** The app's per-caller limit: the hooks that spend it, and the charge for requests auth refuses. */
export interface CallerRateLimiter {
  /** The hook spending a route's requests: whether they are writes, and whether they count in flight. */
  readonly limitRoute: (route: RouteKind) => onRequestHookHandler;
  /** `limitRoute` for a route that can tell an unauthenticated caller by a credential of its own (`rateLimitBy`). */
  readonly limitRouteBy: (by: (request: FastifyRequest) => string | undefined, route: RouteKind) => onRequestHookHandler;
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

/** What the limit of a route's requests depends on. */
export interface RouteKind {
  readonly write: boolean;
  readonly countsInFlight: boolean;
  /** Whom a recognised credential's requests in flight count against (`inFlightBy`); default the credential. */
  readonly inFlightBy?: ((request: FastifyRequest) => string | undefined) | undefined;
}

/** The app's per-caller limit (`rateLimit` registers it; auth charges it for the requests it refuses). */
export function callerRateLimiter(options: CallerLimits, nowMs: () => number = Date.now): CallerRateLimiter {
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
    // A route with a limit of its own gets buckets of its own: spending them spends none of the caller's others. Such
    // routes are public (signing in, starting a device sign-in): no user to count writes or requests in flight for.
    const limiter = route.config?.rateLimit ? bucketLimiter(route.config.rateLimit, shared.nowMs) : shared;
    const by = route.config?.rateLimitBy;
    const kind = { write: [route.method].flat().some((method) => !SAFE_METHODS.has(method)), countsInFlight: route.config?.countsInFlight !== false, inFlightBy: route.config?.inFlightBy };
    appendOnRequest(route, by ? limiter.limitRouteBy(by, kind) : limiter.limitRoute(kind));
    // A caller who hangs up keeps the request's slot until its handler returns (a controller wait, say).
    if (kind.countsInFlight) route.handler = countedWhileRunning(route.handler);
  });
}

/** One limit's buckets and the hooks spending them. */
function bucketLimiter(options: CallerLimits, nowMs: () => number): Omit<CallerRateLimiter, 'nowMs'> {
  // Users and addresses in maps of their own: the user id is the principal's own string, whose hash V8 keeps,
  // where a prefixed key would be a new string to hash on every request. Each map holds half the callers. By user,
  // not by token: a user may hold 100 tokens, and 40 of them made 40 times the rate (a hostile run).
  const maxCallers = options.maxCallers ?? 100_000;
  const byUser = new TokenBuckets(options, maxCallers / 2, nowMs);
  const byAddress = new TokenBuckets(options, maxCallers / 2, nowMs);
  const writesByUser = options.writes && new TokenBuckets(options.writes, maxCallers / 2, nowMs);
  const writeRate = options.writes && describeRate(options.writes.perSecond, 'writes');
  const inFlightByUser = options.inFlight === undefined ? undefined : new InFlightLimit(options.inFlight);
  // Credentials a route recognises (`rateLimitBy`), made only for routes that ask.
  let byCredential: TokenBuckets | undefined;
  let inFlightByCredential: InFlightLimit | undefined;
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
  /**
   * A user's or a credential's request: refused while it has its bound in flight, or, for a write, while its
   * writes are spent (nothing spent either way), else spent and counted in flight; `false` when the 429 is sent.
   */
  const spendBounded = (buckets: TokenBuckets, inFlight: InFlightLimit | undefined, writes: TokenBuckets | undefined, key: string, reply: FastifyReply, inFlightKey = key): boolean => {
    if (inFlight && !inFlight.hasRoom(inFlightKey)) {
      sendProblem(reply, 429, `${inFlight.max} requests of yours are in flight already; retry once one has been answered.`, { 'retry-after': '1' });
      return false;
    }
    if (writes && !writes.hasRoom(key)) {
      const retryAfter = writes.retryAfterSeconds(key);
      sendProblem(reply, 429, `Write limit of ${writeRate} exceeded; retry in ${retryAfter} s.`, { 'retry-after': String(retryAfter) });
      return false;
    }
    if (!spend(buckets, key, reply)) return false;
    writes?.take(key);
    inFlight?.enter(inFlightKey, reply);
    return true;
  };
  // Callback-style hooks: an async hook costs a promise per request on the hottest path. When the 429 is
  // sent, `done` is not called: Fastify stops the chain.
  // After authentication: a caller with a token is limited by its user, anyone else by address.
  const spendCaller = (request: FastifyRequest, reply: FastifyReply): boolean =>
    request.principal ? spend(byUser, request.principal.userId, reply) : spend(byAddress, clientAddressKey(request.ip), reply);
  const spendRoute = (route: RouteKind): ((request: FastifyRequest, reply: FastifyReply) => boolean) => {
    const inFlight = route.countsInFlight ? inFlightByUser : undefined;
    const writes = route.write ? writesByUser : undefined;
    if (!inFlight && !writes) return spendCaller;
    return (request, reply) => (request.principal ? spendBounded(byUser, inFlight, writes, request.principal.userId, reply) : spend(byAddress, clientAddressKey(request.ip), reply));
  };
  return {
    limitRoute: (route) => {
      const spendOne = spendRoute(route);
      return (request, reply, done) => {
        if (spendOne(request, reply)) done();
      };
    },
    limitRouteBy: (by, route) => {
      const buckets = (byCredential ??= new TokenBuckets(options, maxCallers / 2, nowMs));
      const inFlight = route.countsInFlight && options.inFlight !== undefined ? (inFlightByCredential ??= new InFlightLimit(options.inFlight)) : undefined;
      const spendOne = spendRoute(route);
      return (request, reply, done) => {
        const credential = request.principal ? undefined : by(request);
        if (credential === undefined) {
          if (spendOne(request, reply)) done();
        } else if (spendBounded(buckets, inFlight, undefined, credential, reply, route.inFlightBy?.(request) ?? credential)) done();
      };
    },
    spendUnmatched: (request, reply) => spend(byAddress, clientAddressKey(request.ip), reply),
    chargeRefusal: spendCaller,
  };
}
