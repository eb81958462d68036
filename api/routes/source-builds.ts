import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppSources } from '../../src/platform/app-sources/app-sources.ts';
import { AppParams } from '../schemas/app.ts';
import { SOURCE_BUILD_PAGE_DEFAULT, SourceBuildPage, SourceBuildParams, SourceBuildQuery, SourceBuildView } from '../schemas/app-source.ts';
import { errorResponses } from '../schemas/problem.ts';
import { integerQuery } from './integer-query.ts';

const tags = ['apps'];

export function sourceBuildRoutes(app: FastifyInstance, sources: AppSources): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/v1/projects/:projectId/apps/:appId/source-builds', {
    config: { auth: { scope: 'apps:read', project: true } },
    preValidation: integerQuery('limit'),
    schema: {
      tags,
      summary: 'List the builds made from the app’s repository (the app’s and its previews’), newest first',
      description: 'One build per pushed commit of each deployed branch; the platform keeps the 20 newest per app (docs/push-to-deploy.md).',
      params: AppParams,
      querystring: SourceBuildQuery,
      response: { 200: SourceBuildPage, ...errorResponses(404) },
    },
    handler: async (request) => {
      const { branch, cursor, limit = SOURCE_BUILD_PAGE_DEFAULT } = request.query;
      return sources.listBuilds(request.params.projectId, request.params.appId, { branch, cursor, limit });
    },
  });

  r.get('/v1/projects/:projectId/apps/:appId/source-builds/:build', {
    config: { auth: { scope: 'apps:read', project: true } },
    schema: {
      tags,
      summary: 'Get a build made from the app’s repository (one of its previews’ too)',
      params: SourceBuildParams,
      response: { 200: Type.Object({ build: SourceBuildView }), ...errorResponses(404) },
    },
    handler: async (request) => ({ build: sources.getBuild(request.params.projectId, request.params.appId, request.params.build) }),
  });

  r.post('/v1/projects/:projectId/apps/:appId/source-builds/:build/cancel', {
    config: { auth: { scope: 'deploys:write', project: true } },
    schema: {
      tags,
      summary: 'Cancel a queued or running build: a queued one never starts, a running one is stopped and the app keeps what it serves',
      description: 'Answers the build with `cancel_requested: true`; its `state` becomes `cancelled` once the platform has stopped it. Repeatable. 409 when the build has already finished.',
      params: SourceBuildParams,
      response: { 200: Type.Object({ build: SourceBuildView }), ...errorResponses(404, 409) },
    },
    handler: async (request) => ({ build: await sources.cancelBuild(request.params.projectId, request.params.appId, request.params.build) }),
  });
}
