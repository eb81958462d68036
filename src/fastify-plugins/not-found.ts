import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

interface KnownRoute {
  pattern: RegExp;
  methods: Set<string>;
  /** Its parameters and wildcards: of the routes a path matches, those with the fewest are its resource. */
  parameters: number;
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

/** Sends a 404 or a 405 in the server's own error format (cw-api's problem details, cw-git's error body). */
export type SendRoutingError = (reply: FastifyReply, status: 404 | 405, detail: string, headers: Record<string, string>) => FastifyReply;

/** How a server answers unmatched requests before their body is read. */
export interface NotFoundOptions {
  /**
   * `true` (the default): a `preParsing` hook answers them, so after every `onRequest` hook (authentication
   * and rate limits still see such requests). `false`: no hook; the server calls the returned function from
   * an `onRequest` hook of its own, after whatever must see them (cw-api: its one global hook). A hook at
   * every request's `preParsing` is a step of Fastify's per request, in every route, that only 404s need.
   */
  readonly earlyAnswerHook?: boolean;
}

/** Answers an unmatched request (`request.is404`) with the 404 or 405 it gets. */
export type AnswerUnmatched = (request: FastifyRequest, reply: FastifyReply) => void;

/**
 * Unknown paths answer 404; a known path with a method it does not serve answers 405 with `Allow`
 * (Fastify's router answers 404 for both). Must be registered before the routes it should know. Answers
 * before the body is parsed (see {@link NotFoundOptions}), since Fastify would refuse a body method it knows
 * (QUERY without a Content-Type, say) with a 400 before any not-found handler ran.
 */
export function notFound(app: FastifyInstance, send: SendRoutingError, options: NotFoundOptions = {}): AnswerUnmatched {
  const routes = new Map<string, KnownRoute>();
  app.addHook('onRoute', (route) => {
    const parameters = route.url.split('/').filter((segment) => segment.startsWith(':') || segment === '*').length;
    const known = routes.get(route.url) ?? { pattern: compile(route.url), methods: new Set<string>(), parameters };
    for (const method of [route.method].flat()) known.methods.add(method);
    routes.set(route.url, known);
  });
  const answer = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const path = request.url.split('?')[0] ?? '/';
    // `/api/v1` is a route of its own and also matches `/:owner/:repo`: the methods listed are those of the
    // most specific routes matching, the resource the path names as the document describes it.
    const matching = [...routes.values()].filter((route) => route.pattern.test(path));
    const fewest = Math.min(...matching.map((route) => route.parameters));
    const allowed = new Set<string>();
    for (const route of matching) if (route.parameters === fewest) for (const m of route.methods) allowed.add(m);
    if (allowed.size > 0) {
      const allow = [...allowed].sort().join(', ');
      return send(reply, 405, `${request.method} is not allowed on ${path}; allowed: ${allow}.`, { allow });
    }
    return send(reply, 404, `No route ${request.method} ${path}.`, {});
  };
  app.setNotFoundHandler(answer);
  if (options.earlyAnswerHook !== false) {
    // Callback style: an async hook costs a promise and a microtask hop per request. An answered request
    // stops here (`done` not called), as Fastify's hook runners allow.
    app.addHook('preParsing', (request, reply, payload, done) => {
      if (request.is404) answer(request, reply);
      else done(null, payload);
    });
  }
  // A reply is thenable; the caller only needs it sent.
  return (request, reply) => void answer(request, reply);
}
