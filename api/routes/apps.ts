import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppDirectory } from '../../src/platform/apps.ts';
import { App, AppBody, AppDeletion, AppParams, AppUpdateBody } from '../schemas/app.ts';
import { errorResponses } from '../schemas/problem.ts';
import { ProjectParams } from '../schemas/project.ts';
import { AppTraffic } from '../schemas/app-metrics.ts';
import type { AppMetrics } from '../services/app-metrics.ts';
import { nextField, pageOf, PageQuery } from './pagination.ts';
import { integerQuery } from './integer-query.ts';

const tags = ['apps'];

const AppWithTraffic = Type.Object({ ...App.properties, traffic: Type.Optional(AppTraffic) }, { description: 'A runtime app, with its last hour’s traffic.' });
const NO_TRAFFIC = { requests: 0, error_ratio: null, p95_ms: null };

export function appRoutes(app: FastifyInstance, apps: AppDirectory, metrics: AppMetrics, now: () => Date): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/v1/projects/:projectId/apps', {
    config: { auth: { scope: 'apps:read', project: true } },
    preValidation: integerQuery('limit'),
    schema: {
      tags,
      summary: 'List the project’s apps by app id, a page at a time (an empty list when there are none), each with its last hour’s traffic',
      params: ProjectParams,
      querystring: PageQuery,
      response: { 200: Type.Object({ apps: Type.Array(AppWithTraffic), ...nextField }), ...errorResponses(400) },
    },
    handler: async (request) => {
      const { items, next } = pageOf(apps.list(request.params.projectId), (a) => [a.app_id], request.query);
      // One read of every replica's window for the whole page, bounded in time (absent when none answers).
      const traffic = items.length === 0 ? undefined : await metrics.lastHour(request.params.projectId, now().getTime());
      return { apps: traffic ? items.map((a) => ({ ...a, traffic: traffic.get(a.app_id) ?? NO_TRAFFIC })) : items, next };
    },
  });

  r.post('/v1/projects/:projectId/apps', {
    config: { auth: { scope: 'apps:write', project: true } },
    schema: {
      tags,
      summary: 'Register an app (nothing is deployed); 409 when the project already has an app of that name',
      params: ProjectParams,
      body: AppBody,
      response: { 201: Type.Object({ app: App }), ...errorResponses(400, 409) },
    },
    handler: async (request, reply) => reply.code(201).send({ app: await apps.create(request.params.projectId, request.body.name, request.body.https) }),
  });

  r.get('/v1/projects/:projectId/apps/:appId', {
    config: { auth: { scope: 'apps:read', project: true } },
    schema: { tags, summary: 'Get an app', params: AppParams, response: { 200: Type.Object({ app: App }), ...errorResponses(404) } },
    handler: async (request) => ({ app: apps.get(request.params.projectId, request.params.appId) }),
  });

  r.patch('/v1/projects/:projectId/apps/:appId', {
    config: { auth: { scope: 'apps:write', project: true } },
    schema: {
      tags,
      summary: 'Change an app’s settings (its redirect to HTTPS and HSTS); what the body leaves out stays as it is. The runtime applies them without a redeploy',
      params: AppParams,
      body: AppUpdateBody,
      response: { 200: Type.Object({ app: App }), ...errorResponses(400, 404, 409) },
    },
    handler: async (request) => ({ app: await apps.update(request.params.projectId, request.params.appId, { https: request.body.https }) }),
  });

  r.delete('/v1/projects/:projectId/apps/:appId', {
    config: { auth: { scope: 'apps:write', project: true } },
    schema: {
      tags,
      summary:
        'Delete an app: it stops being served, and its builds, stored artifacts, environment and host names go; answers what was cleaned up. 200 once gone; 202 with status deleting when its stored artifacts were not all deleted within 10 s (the platform carries on; repeat the DELETE to follow it)',
      params: AppParams,
      response: { 200: AppDeletion, 202: AppDeletion, ...errorResponses(404, 409, 503) },
    },
    handler: async (request, reply) => {
      const report = await apps.delete(request.params.projectId, request.params.appId);
      return reply.code(report.status === 'deleted' ? 200 : 202).send(report);
    },
  });
}
