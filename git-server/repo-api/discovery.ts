// `GET /api/v1`: what a client needs to find its way: where the repository API lives, how to authenticate, and
// the operations of the `/api` lane, collected from the routes as they are registered (so never out of date).
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { GIT_SCOPES } from '../auth/index.ts';
import { openApiPath } from '../openapi.ts';
import { LANES } from './index.ts';

const DIRECT_PREFIX = `/:owner/:repo/${LANES[0].path}`;

export const Discovery = Type.Object({
  name: Type.Literal('cw-git'),
  version: Type.Literal(1),
  base: Type.String({ description: 'The repository API of `{owner}/{repo}`, for servers and tools.' }),
  browser_base: Type.String({ description: 'The same operations with CORS for the configured browser origins.' }),
  openapi: Type.String(),
  docs: Type.String(),
  auth: Type.Object({ scheme: Type.Literal('bearer'), scopes: Type.Array(Type.String()) }),
  endpoints: Type.Array(
    Type.Object({
      method: Type.String(),
      path: Type.String({ description: 'Relative to `base` (and `browser_base`); `{name}` is a parameter.' }),
      scope: Type.String({ description: 'The token scope the operation needs.' }),
      summary: Type.String(),
    }),
  ),
});
export type Discovery = Static<typeof Discovery>;

/** Collects the `/api` lane's routes from now on and serves `GET /api/v1`; call before the API's routes. */
export function discoveryRoutes(app: FastifyInstance): void {
  const endpoints: Discovery['endpoints'] = [];
  app.addHook('onRoute', (route) => {
    if (route.url !== DIRECT_PREFIX && !route.url.startsWith(`${DIRECT_PREFIX}/`)) return;
    const schema = (route.schema ?? {}) as { hide?: boolean; summary?: string };
    if (schema.hide === true) return;
    const path = openApiPath(route.url.slice(DIRECT_PREFIX.length) || '/', route.config?.wildcard);
    // Fastify's own HEAD twin of a GET route: the reference lists HEAD only where a route declares it.
    if (route.method === 'HEAD' && endpoints.some((e) => e.method === 'GET' && e.path === path)) return;
    for (const method of [route.method].flat()) {
      if (method === 'OPTIONS' || endpoints.some((e) => e.method === method && e.path === path)) continue;
      endpoints.push({ method, path, scope: route.config?.scope ?? 'read', summary: schema.summary ?? '' });
    }
  });
  app.get('/api/v1', {
    config: { scope: 'read' },
    schema: { summary: 'Discovery: where the repository API lives, how to authenticate, and its operations', response: { 200: Discovery } },
    handler: async (): Promise<Discovery> => ({
      name: 'cw-git',
      version: 1,
      base: `/{owner}/{repo}/${LANES[0].path}`,
      browser_base: `/{owner}/{repo}/${LANES[1].path}`,
      openapi: '/openapi.json',
      docs: '/docs',
      auth: { scheme: 'bearer', scopes: [...GIT_SCOPES] },
      endpoints,
    }),
  });
}
