import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { SECRET_VALUES_DISABLED, type AppEnvironment } from '../../src/platform/app-environment.ts';
import { BadRequestError } from '../../src/errors.ts';
import { AppParams, Environment, Variable, VariableBody, VARIABLE_SHAPE_RULE, VariableParams } from '../schemas/app.ts';
import { explainOneOf } from '../schemas/one-of.ts';
import { databaseLinkScope, requireToo } from './body-scopes.ts';
import { errorResponses } from '../schemas/problem.ts';

const tags = ['environment'];

export function environmentRoutes(app: FastifyInstance, environment: AppEnvironment): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/v1/projects/:projectId/apps/:appId/environment', {
    config: { auth: { scope: 'env:read', project: true } },
    schema: {
      tags,
      summary: 'Get the app’s environment: `{environment: {KEY: {value, secret: false} | {database, access, secret: true}}}`; a linked variable’s token is never shown',
      params: AppParams,
      response: { 200: Type.Object({ environment: Environment }), ...errorResponses(404) },
    },
    handler: async (request) => ({ environment: environment.get(request.params.projectId, request.params.appId) }),
  });

  r.put('/v1/projects/:projectId/apps/:appId/environment/:key', {
    config: { auth: { scope: 'env:write', project: true } },
    schema: {
      tags,
      summary: 'Set a variable (creates or replaces it): a plain `value`, or a link to a project database’s token (`database`, `access`)',
      description:
        'The app is rolled out again with the new environment. A plain value is stored in the app and shown by GET; `secret: true` is a 400. A linked variable gets the database’s app token (read-only unless `access` is `full`), which the runtime reads from the Database’s Secret: no response shows it. A link needs `databases:read` too (`databases:write` for `full`): the app gets what its token allows. A database that is not in the project is a 404, one being deleted a 409. An app has at most 128 plain variables and 32 links (409 past that).',
      params: VariableParams,
      body: VariableBody,
      response: { 200: Type.Object({ variable: Variable }), ...errorResponses(400, 404, 409) },
    },
    // `secret: true` is refused in the spec's words, before the schema (which allows only `false`) would.
    preValidation: async (request) => {
      if ((request.body as { secret?: unknown } | undefined)?.secret === true) throw new BadRequestError(SECRET_VALUES_DISABLED);
    },
    schemaErrorFormatter: explainOneOf(VARIABLE_SHAPE_RULE),
    handler: async (request) => {
      const { projectId, appId, key } = request.params;
      // The schema allows exactly one of the two shapes.
      const { value, secret, database, access } = request.body;
      if (database !== undefined) {
        requireToo(request, databaseLinkScope(access));
        return { variable: await environment.link(projectId, appId, key, database, access) };
      }
      return { variable: await environment.set(projectId, appId, key, value ?? '', secret ?? false) };
    },
  });

  r.delete('/v1/projects/:projectId/apps/:appId/environment/:key', {
    config: { auth: { scope: 'env:write', project: true } },
    schema: {
      tags,
      summary: 'Remove a variable (404 when the app has none of that name)',
      params: VariableParams,
      response: { 204: Type.Null({ description: 'Removed.' }), ...errorResponses(404, 409) },
    },
    handler: async (request, reply) => {
      await environment.delete(request.params.projectId, request.params.appId, request.params.key);
      return reply.code(204).send(null);
    },
  });
}
