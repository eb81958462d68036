import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppRollouts, RolloutRequest } from '../services/app-rollouts.ts';
import { policyFromBody } from '../services/rollout-policy.ts';
import { AppParams } from '../schemas/app.ts';
import { RolloutBody, RolloutView } from '../schemas/app-rollout.ts';
import { errorResponses } from '../schemas/problem.ts';

const tags = ['apps'];
const one = Type.Object({ rollout: RolloutView });

const REQUEST_SUMMARIES: Record<RolloutRequest, string> = {
  promote: 'Promote the rollout under way: end its current pause (or failed analysis) and move to the next step. 409 when no rollout is Progressing or Paused',
  abort: 'Abort the rollout under way: all traffic goes back to the stable build. 409 when no rollout is Progressing or Paused',
  retry: 'Retry an aborted rollout from its first step, with the same new build. 409 when the latest rollout is not Aborted',
};

export function appRolloutRoutes(app: FastifyInstance, rollouts: AppRollouts): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.put('/v1/projects/:projectId/apps/:appId/rollout', {
    config: { auth: { scope: 'deploys:write', project: true } },
    schema: {
      tags,
      summary: 'Set the app’s rollout policy: a change of its build or environment then goes out in steps of weight and pause instead of at once',
      description:
        'Each step gives the new build a share of traffic (`weight`, increasing), held for `pause` (a duration, or `manual`: until a promote); an affinity cookie or ' +
        'header keeps a user on one build; `analysis` judges the new build every interval and fails it past a threshold (`on_failure`: abort or pause). The policy ' +
        'applies to the next change; docs/rollouts.md. 201 when the app had no policy, 200 when it was replaced (PUT: what the body leaves out gets its default). ' +
        '400 names the field: weights 0–100 and increasing, durations such as 30s or 1h30m, at most 10 steps, analysis needs min_requests and a threshold, affinity is a cookie or a header.',
      params: AppParams,
      body: RolloutBody,
      response: { 200: one, 201: one, ...errorResponses(404, 409) },
    },
    handler: async (request, reply) => {
      const { view, created } = await rollouts.put(request.params.projectId, request.params.appId, policyFromBody(request.body));
      return reply.code(created ? 201 : 200).send({ rollout: view });
    },
  });

  r.get('/v1/projects/:projectId/apps/:appId/rollout', {
    config: { auth: { scope: 'apps:read', project: true } },
    schema: {
      tags,
      summary: 'The app’s rollout policy and its latest rollout: phase, step, weight, stable and new builds, the last analysis interval’s counts (404 when the app has no policy)',
      params: AppParams,
      response: { 200: one, ...errorResponses(404) },
    },
    handler: async (request) => ({ rollout: rollouts.get(request.params.projectId, request.params.appId) }),
  });

  r.delete('/v1/projects/:projectId/apps/:appId/rollout', {
    config: { auth: { scope: 'deploys:write', project: true } },
    schema: {
      tags,
      summary: 'Remove the app’s rollout policy: later changes switch all traffic at once, and so does a rollout under way (404 when it has none)',
      params: AppParams,
      response: { 204: Type.Null({ description: 'Removed.' }), ...errorResponses(404, 409) },
    },
    handler: async (request, reply) => {
      await rollouts.delete(request.params.projectId, request.params.appId);
      return reply.code(204).send(null);
    },
  });

  for (const action of ['promote', 'abort', 'retry'] as const) {
    r.post(`/v1/projects/:projectId/apps/:appId/rollout/${action}`, {
      config: { auth: { scope: 'deploys:write', project: true } },
      schema: {
        tags,
        summary: `${REQUEST_SUMMARIES[action]}. 200 with the rollout once the operator has handled the request; 202 with the rollout as it stands when it has not within 10 s (the request stands)`,
        params: AppParams,
        response: { 200: one, 202: one, ...errorResponses(404, 409) },
      },
      handler: async (request, reply) => {
        const { answered, view } = await rollouts.request(request.params.projectId, request.params.appId, action);
        return reply.code(answered ? 200 : 202).send({ rollout: view });
      },
    });
  }
}
