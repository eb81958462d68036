import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from './problem-details.ts';

interface KnownRoute {
  pattern: RegExp;
  methods: Set<string>;
}

/**
 * `/v1/projects/:projectId` → a regular expression matching concrete paths of that route, exactly as the
 * router does: no trailing slash (the router does not ignore one), no empty parameter.
 */
function compile(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`);
}

/**
 * Unknown paths answer 404; a known path with a method it does not serve answers 405 with `Allow`
 * (Fastify's router answers 404 for both). Must be registered before the routes it should know.
 */
export function notFound(app: FastifyInstance): void {
  const routes = new Map<string, KnownRoute>();
  app.addHook('onRoute', (route) => {
    const known = routes.get(route.url) ?? { pattern: compile(route.url), methods: new Set<string>() };
    for (const method of [route.method].flat()) known.methods.add(method);
    routes.set(route.url, known);
  });
  // Answered before the body is read: Fastify would refuse a body method it knows (QUERY without a
  // Content-Type, say) with a 400 before any not-found handler ran.
  app.addHook('onRequest', async (request, reply) => {
    if (request.is404) return answer(request, reply);
  });
  const answer = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = new Set<string>();
    for (const route of routes.values()) if (route.pattern.test(path)) for (const m of route.methods) allowed.add(m);
    if (allowed.size > 0) {
      const allow = [...allowed].sort().join(', ');
      return sendProblem(reply, 405, `${request.method} is not allowed on ${path}; allowed: ${allow}.`, { allow });
    }
    return sendProblem(reply, 404, `No route ${request.method} ${path}.`);
  };
  app.setNotFoundHandler(answer);
}
