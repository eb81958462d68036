import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppDatabaseBindings } from '../../src/platform/app-database-bindings.ts';
import { AppParams } from '../schemas/app.ts';
import { Binding, BindingBody, BindingParams } from '../schemas/database-binding.ts';
import { errorResponses } from '../schemas/problem.ts';
import { databaseLinkScope, requireToo } from './body-scopes.ts';

const tags = ['environment'];

/** An app's database bindings: the URL and a token the platform mints and rotates, as two variables of the app. */
export function databaseBindingRoutes(app: FastifyInstance, bindings: AppDatabaseBindings): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/v1/projects/:projectId/apps/:appId/database-bindings', {
    config: { auth: { scope: 'env:read', project: true } },
    schema: {
      tags,
      summary: 'List the app’s database bindings (no token)',
      params: AppParams,
      response: { 200: Type.Object({ bindings: Type.Array(Binding) }), ...errorResponses(404) },
    },
    handler: async (request) => ({ bindings: bindings.list(request.params.projectId, request.params.appId) }),
  });

  r.put('/v1/projects/:projectId/apps/:appId/database-bindings/:name', {
    config: { auth: { scope: 'env:write', project: true } },
    schema: {
      tags,
      summary: 'Bind a project database to the app as `<name>_URL` and `<name>_TOKEN` (creates or replaces the binding)',
      description:
        'The runtime gives the app the URL it reaches the database at and an app token (read-only unless `access` is `full`) that the platform mints and rotates, the replaced one still accepted for an overlap; no response and no object a tenant reads holds the token. The two variables replace any of those names. The app is rolled out again. Needs `databases:read` too (`databases:write` for `full`). A database that is not in the project is a 404, one being deleted a 409; an app has at most 32 database variables (a binding takes two).',
      params: BindingParams,
      body: BindingBody,
      response: { 200: Type.Object({ binding: Binding }), ...errorResponses(400, 404, 409) },
    },
    handler: async (request) => {
      const { projectId, appId, name } = request.params;
      requireToo(request, databaseLinkScope(request.body.access));
      return { binding: await bindings.bind(projectId, appId, name, request.body.database, request.body.access) };
    },
  });

  r.delete('/v1/projects/:projectId/apps/:appId/database-bindings/:name', {
    config: { auth: { scope: 'env:write', project: true } },
    schema: {
      tags,
      summary: 'Unbind a database (removes both variables; 404 when the app has no binding of that name)',
      params: BindingParams,
      response: { 204: Type.Null({ description: 'Removed.' }), ...errorResponses(404, 409) },
    },
    handler: async (request, reply) => {
      await bindings.unbind(request.params.projectId, request.params.appId, request.params.name);
      return reply.code(204).send(null);
    },
  });
}
