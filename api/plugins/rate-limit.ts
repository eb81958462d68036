import type { FastifyInstance } from 'fastify';
import { sendProblem } from './problem-details.ts';

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

function isProbeOrDiscovery(url: string | undefined): boolean {
  return url !== undefined && (EXEMPT.has(url) || url === '/docs' || url.startsWith('/docs/'));
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/**
 * The buckets of recently seen callers in two generations: new callers go into `recent`; when it is full,
 * it becomes `older` and the previous `older` is dropped. A caller seen again is moved to `recent`, so an
 * active caller is never forgotten. Unlike a strict LRU map (delete and re-insert on every hit), a repeat
 * caller costs one lookup: this runs on every request (measured: bench/README.md).
 */
class CallerBuckets {
  readonly #generationSize: number;
  #recent = new Map<string, Bucket>();
  #older = new Map<string, Bucket>();

  constructor(maxCallers: number) {
    this.#generationSize = Math.max(1, Math.floor(maxCallers / 2));
  }

  get(key: string): Bucket | undefined {
    const recent = this.#recent.get(key);
    if (recent) return recent;
    const older = this.#older.get(key);
    if (older) this.set(key, older);
    return older;
  }

  set(key: string, bucket: Bucket): void {
    if (this.#recent.size >= this.#generationSize) {
      this.#older = this.#recent;
      this.#recent = new Map();
    }
    this.#recent.set(key, bucket);
  }
}

/**
 * A token bucket per caller: per token once authenticated, else per client address. Register it after
 * the auth plugin. Past the limit: 429 with `Retry-After`. Only health and discovery
 * routes are exempt (probes must never starve); public routes that do work, such as starting a device
 * sign-in, are limited like any other.
 */
export function rateLimit(app: FastifyInstance, options: RateLimitOptions, nowMs: () => number = Date.now): void {
  // Tokens and addresses in maps of their own: the token id is the store's own string, whose hash V8 keeps,
  // where a prefixed key would be a new string to hash on every request. Each map holds half the callers.
  const maxCallers = options.maxCallers ?? 100_000;
  const byToken = new CallerBuckets(maxCallers / 2);
  const byAddress = new CallerBuckets(maxCallers / 2);
  const limitHeader = String(options.perSecond);
  // Callback style: an async hook costs a promise per request on the hottest path.
  app.addHook('onRequest', (request, reply, done) => {
    if (isProbeOrDiscovery(request.routeOptions.url)) return done();
    // Runs after authentication: a caller with a token is limited by its token id (no secret in the map),
    // anyone else by address.
    const buckets = request.principal ? byToken : byAddress;
    const key = request.principal ? request.principal.tokenId : request.ip;
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
