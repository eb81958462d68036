import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { SCOPES } from '../../src/auth/index.ts';
import { Problem } from '../schemas/problem.ts';

/**
 * The OpenAPI 3.1 description generated from the route schemas, served at `/openapi.json`, and the
 * interactive reference at `/docs` (its assets are served from the package, so it works offline).
 * Must be registered before any route so every route is collected.
 */
export async function openapi(app: FastifyInstance, version: string): Promise<void> {
  app.addSchema(Problem);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Cloudwright platform API',
        version,
        description:
          'Projects, runtime apps, databases and domains. Every project route needs `Authorization: Bearer cwt_…`; ' + 'each route lists the scope it needs. Errors are RFC 9457 problem details.',
      },
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: `A cwt_ token. Scopes: ${Object.entries(SCOPES)
              .map(([name, text]) => `\`${name}\` (${text})`)
              .join('; ')}.`,
          },
          queryToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'A database query token (cwdb_…), from POST /v1/projects/{projectId}/databases/{database}/query-tokens: the query route takes it instead of a cwt_ token.',
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { config: { auth: false }, schema: { hide: true } }, async () => app.swagger());
}
