import type { FastifyInstance } from 'fastify';
import { sendProblem } from './problem-details.ts';

export interface RateLimitOptions {
  /** Sustained requests per second per caller. */
  perSecond: number;
  /** Requests a caller may send at once after being idle. */
  burst: number;
  /** Callers remembered at most; the least recently seen are forgotten first (memory stays bounded). */
  maxCallers?: number;
}

const EXEMPT = new Set(['/healthz', '/readyz', '/openapi.json']);

function isProbeOrDiscovery(url: string | undefined): boolean {
  return url !== undefined && (EXEMPT.has(url) || url === '/docs' || url.startsWith('/docs/'));
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/**
 * A token bucket per caller: per token once authenticated, else per client address. Register it after
 * the auth plugin. Past the limit: 429 with `Retry-After`. Only health and discovery
 * routes are exempt (probes must never starve); public routes that do work, such as starting a device
 * sign-in, are limited like any other.
 */
export function rateLimit(app: FastifyInstance, options: RateLimitOptions, nowMs: () => number = Date.now): void {
  const buckets = new Map<string, Bucket>();
  const maxCallers = options.maxCallers ?? 100_000;
  // Callback style: an async hook costs a promise per request on the hottest path.
  app.addHook('onRequest', (request, reply, done) => {
    if (isProbeOrDiscovery(request.routeOptions.url)) return done();
    // Runs after authentication: a caller with a token is limited by its token id (no secret in the map),
    // anyone else by address.
    const key = request.principal ? `t:${request.principal.tokenId}` : `a:${request.ip}`;
    const now = nowMs();
    const bucket = buckets.get(key) ?? { tokens: options.burst, updatedMs: now };
    bucket.tokens = Math.min(options.burst, bucket.tokens + ((now - bucket.updatedMs) / 1000) * options.perSecond);
    bucket.updatedMs = now;
    buckets.delete(key); // re-insert: Map order is recency order
    buckets.set(key, bucket);
    if (buckets.size > maxCallers) buckets.delete(buckets.keys().next().value as string);
    reply.header('x-ratelimit-limit', String(options.perSecond));
    if (bucket.tokens < 1) {
      const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / options.perSecond));
      sendProblem(reply, 429, `Rate limit of ${options.perSecond} requests per second exceeded; retry in ${retryAfter} s.`, {
        'retry-after': String(retryAfter),
      });
      return; // the reply is sent: Fastify stops the chain without `done`
    }
    bucket.tokens -= 1;
    reply.header('x-ratelimit-remaining', String(Math.floor(bucket.tokens)));
    done();
  });
}
