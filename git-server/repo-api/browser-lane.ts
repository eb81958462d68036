// The browser lane (`/{owner}/{repo}/api-browser`): the API's handlers with CORS for the origins in
// `server.cors_origins`, credentials included. A request without `Origin` is served as on `/api`; one from another
// origin gets no CORS headers (so the browser hides the answer) and anything but a read is refused outright.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { sendError } from '../errors.ts';

/** What a request may do, by its Origin and method. */
export type CorsDecision =
  /** No Origin: not a cross-origin browser request; served as on `/api`. */
  | { readonly kind: 'none' }
  /** A listed origin: answered with CORS headers naming it. */
  | { readonly kind: 'allowed'; readonly origin: string }
  /** Another origin reading: served without CORS headers, so its page cannot read the answer. */
  | { readonly kind: 'unlisted' }
  /** Another origin doing anything else (preflight included): refused with 403 before any work. */
  | { readonly kind: 'refused' };

export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'] as const;
export const CORS_REQUEST_HEADERS = ['Authorization', 'If-None-Match', 'If-Range', 'Range', 'Content-Type'] as const;
export const CORS_EXPOSED_HEADERS = ['ETag', 'Content-Range', 'Content-Length', 'Content-Disposition', 'Retry-After'] as const;
/** How long a browser may reuse a preflight's answer, in seconds. */
export const CORS_MAX_AGE = 600;

/** The decision for one request; `allowed` holds origins as the configuration normalises them (scheme://host[:port]). */
export function corsDecision(allowed: ReadonlySet<string>, origin: string | undefined, method: string): CorsDecision {
  if (origin === undefined) return { kind: 'none' };
  if (allowed.has(origin)) return { kind: 'allowed', origin };
  return method === 'GET' || method === 'HEAD' ? { kind: 'unlisted' } : { kind: 'refused' };
}

/** The headers of every answer to a listed origin. */
export function corsHeaders(origin: string): Record<string, string> {
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-credentials': 'true',
    'access-control-expose-headers': CORS_EXPOSED_HEADERS.join(', '),
  };
}

/** The headers of a preflight's answer to a listed origin. */
export function preflightHeaders(origin: string): Record<string, string> {
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-credentials': 'true',
    'access-control-allow-methods': CORS_METHODS.join(', '),
    'access-control-allow-headers': CORS_REQUEST_HEADERS.join(', '),
    'access-control-max-age': String(CORS_MAX_AGE),
  };
}

/**
 * `deps.browserLane` for `origins`: adds to the browser lane's scope the origin check (after authentication, which
 * runs first on every route), CORS headers on every answer to a listed origin (errors included), the preflight
 * route (`OPTIONS`, public: browsers send no credentials with it), and a catch-all refusing writes from other
 * origins on paths with no route.
 */
export function browserLane(origins: readonly string[]): (scope: FastifyInstance) => void {
  const allowed = new Set(origins);
  const originOf = (headers: { origin?: string | string[] }) => (typeof headers.origin === 'string' ? headers.origin : undefined);
  const refuse = (reply: FastifyReply) => sendError(reply, 403, 'origin_not_allowed', 'This origin is not allowed on the browser lane (server.cors_origins).');
  return (scope) => {
    scope.addHook('onRequest', async (request, reply) => {
      if (corsDecision(allowed, originOf(request.headers), request.method).kind === 'refused') return refuse(reply);
    });
    scope.addHook('onSend', async (request, reply, payload) => {
      // The answer depends on Origin, whatever it was: shared caches must keep them apart.
      reply.header('vary', appendVary(reply.getHeader('vary'), 'Origin'));
      const decision = corsDecision(allowed, originOf(request.headers), request.method);
      if (decision.kind === 'allowed' && request.method !== 'OPTIONS') reply.headers(corsHeaders(decision.origin));
      return payload;
    });
    const preflight = {
      config: { public: true },
      schema: { hide: true },
      handler: async (request: { headers: { origin?: string | string[] } }, reply: FastifyReply) => {
        const decision = corsDecision(allowed, originOf(request.headers), 'OPTIONS');
        if (decision.kind === 'allowed') return reply.code(204).headers(preflightHeaders(decision.origin)).send();
        return reply.code(204).header('allow', 'GET, HEAD, OPTIONS').send();
      },
    };
    scope.options('/', preflight);
    scope.options('/*', preflight);
    // Writes to a path with no route: the origin check above answers another origin 403; others get the 404 /api gives.
    scope.route({
      method: ['POST', 'PUT', 'PATCH', 'DELETE'],
      url: '/*',
      schema: { hide: true },
      handler: async (request, reply) => sendError(reply, 404, 'not_found', `no route for ${request.method} ${request.url.split('?')[0]}`),
    });
  };
}

function appendVary(current: unknown, name: string): string {
  const existing = typeof current === 'string' ? current : Array.isArray(current) ? current.join(', ') : '';
  if (existing.split(',').some((v) => v.trim().toLowerCase() === name.toLowerCase() || v.trim() === '*')) return existing;
  return existing ? `${existing}, ${name}` : name;
}
