import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppDirectory } from '../../src/platform/apps.ts';
import type { BuildCatalog } from '../../src/platform/builds.ts';
import { AppParams } from '../schemas/app.ts';
import { AppMetrics as AppMetricsSchema, MetricsQuery } from '../schemas/app-metrics.ts';
import { errorResponses } from '../schemas/problem.ts';
import type { AppMetrics } from '../services/app-metrics.ts';
import { metricsSpan } from '../services/metrics-span.ts';

export function appMetricsRoutes(app: FastifyInstance, apps: AppDirectory, builds: Pick<BuildCatalog, 'history'>, metrics: AppMetrics, now: () => Date): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/v1/projects/:projectId/apps/:appId/metrics', {
    config: { auth: { scope: 'apps:read', project: true } },
    schema: {
      tags: ['apps'],
      summary: 'An app’s requests, errors and latency over the last day, per step, merged from every runtime replica',
      description:
        'Each cw-runtime replica keeps a one-minute window of its apps’ answers for 24 hours (docs/runtime.md); this merges the live replicas’ windows. A replica that does not answer within 2 s is listed in `replicas.missing`.',
      params: AppParams,
      querystring: MetricsQuery,
      response: { 200: Type.Object({ metrics: AppMetricsSchema }), ...errorResponses(400, 404) },
    },
    handler: async (request) => {
      const { projectId, appId } = request.params;
      const span = metricsSpan(request.query, now().getTime());
      apps.get(projectId, appId);
      return { metrics: await metrics.series(projectId, appId, span, builds.history(projectId, appId)) };
    },
  });
}
