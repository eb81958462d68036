import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppEnvironment } from '../../src/platform/app-environment.ts';
import { AppParams, Environment, Variable, VariableBody, VariableParams } from '../schemas/app.ts';
import { errorResponses } from '../schemas/problem.ts';

const tags = ['environment'];

export function environmentRoutes(app: FastifyInstance, environment: AppEnvironment): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/v1/projects/:projectId/apps/:appId/environment', {
    config: { auth: { scope: 'env:read', project: true } },
    schema: {
      tags,
      summary: 'Get the app’s environment: `{environment: {KEY: {value, secret: false}}}`',
      params: AppParams,
      response: { 200: Type.Object({ environment: Environment }), ...errorResponses(404) },
    },
    handler: async (request) => ({ environment: environment.get(request.params.projectId, request.params.appId) }),
  });

  r.put('/v1/projects/:projectId/apps/:appId/environment/:key', {
    config: { auth: { scope: 'env:write', project: true } },
    schema: {
      tags,
      summary: 'Set a variable (creates or replaces it); only plain values: `secret: true` is a 400',
      description: 'The app is rolled out again with the new environment. An app has at most 128 variables (409 past that).',
      params: VariableParams,
      body: VariableBody,
      response: { 200: Type.Object({ variable: Variable }), ...errorResponses(404, 409) },
    },
    handler: async (request) => {
      const { projectId, appId, key } = request.params;
      return { variable: await environment.set(projectId, appId, key, request.body.value, request.body.secret ?? false) };
    },
  });

  r.delete('/v1/projects/:projectId/apps/:appId/environment/:key', {
    config: { auth: { scope: 'env:write', project: true } },
    schema: {
      tags,
      summary: 'Remove a variable (404 when the app has none of that name)',
      params: VariableParams,
      response: { 204: Type.Null({ description: 'Removed.' }), ...errorResponses(404) },
    },
    handler: async (request, reply) => {
      await environment.delete(request.params.projectId, request.params.appId, request.params.key);
      return reply.code(204).send(null);
    },
  });
}
