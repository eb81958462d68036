import { isDeepStrictEqual } from 'node:util';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import type { AppSources, SourceSettings } from '../../src/platform/app-sources/app-sources.ts';
import { DEFAULT_PRODUCTION_BRANCH, type SourceView } from '../../src/platform/app-sources/source-view.ts';
import { AppParams } from '../schemas/app.ts';
import { AppSourceView, SourceBody } from '../schemas/app-source.ts';
import { errorResponses } from '../schemas/problem.ts';
import { holds, requireToo } from './body-scopes.ts';

const tags = ['apps'];

/** The body in the AppSource spec's words. */
export function sourceSettings(body: Static<typeof SourceBody>): SourceSettings {
  const [owner = '', name = ''] = body.repository.split('/');
  const build = { ...(body.build_command ? { command: body.build_command } : {}), ...(body.output_directory ? { outputDirectory: body.output_directory } : {}) };
  const { production, preview } = body.environment ?? {};
  const environment = { ...(production && Object.keys(production).length > 0 ? { production } : {}), ...(preview && Object.keys(preview).length > 0 ? { preview } : {}) };
  return {
    repository: { owner, name },
    // Spelled out (the apiserver would default it): a PUT of the same settings then compares equal and writes nothing.
    productionBranch: body.production_branch ?? DEFAULT_PRODUCTION_BRANCH,
    ...(body.preview_branches ? { previewBranches: body.preview_branches } : {}),
    ...(body.root_directory ? { rootDirectory: body.root_directory } : {}),
    ...(Object.keys(build).length > 0 ? { build } : {}),
    ...(Object.keys(environment).length > 0 ? { environment } : {}),
    previewDatabases: body.preview_databases === 'fork' ? 'Fork' : 'None',
  };
}

/** Both contexts' variables, none given being none. */
function contexts(environment: SourceSettings['environment']): { production: object; preview: object } {
  return { production: environment?.production ?? {}, preview: environment?.preview ?? {} };
}

/** The view, without the builds' variables for a token that may not read an app's environment. */
function shown(request: FastifyRequest, view: SourceView): SourceView | Omit<SourceView, 'environment'> {
  if (holds(request, 'env:read')) return view;
  const { environment: _hidden, ...rest } = view;
  return rest;
}

export function appSourceRoutes(app: FastifyInstance, sources: AppSources): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.put('/v1/projects/:projectId/apps/:appId/source', {
    // Connecting names a repository: the caller must be able to read it (its code is what the app will run). It
    // deploys every push to production, and every build's command runs with the app's variables and prints to a
    // log `apps:read` reads: it takes what deploying and reading the variables take (review-162 F3).
    config: { auth: { scope: 'apps:write', project: true, also: ['repositories:read', 'deploys:write', 'env:read'] } },
    schema: {
      tags,
      summary: 'Connect the app to one of the project’s repositories (push to deploy), or replace the connection’s settings',
      description:
        'Every push to the production branch is built and deployed to the app; each other branch matching `preview_branches` gets a preview app ' +
        '`<branch-slug>--<app>` of its own (docs/push-to-deploy.md). Needs `apps:write`, `repositories:read`, `deploys:write` (every push to production is deployed) and `env:read` (every build runs with the app’s variables), and `env:write` to set or change `environment` (its values may hold credentials), `databases:write` to turn `preview_databases` to `fork`. 201 when connected, 200 when the ' +
        'settings were replaced (PUT: what the body leaves out is reset to its default). 404: no such app, or the project has no such repository (a ' +
        'project’s repositories are `<project id>/<name>`: another project’s is not found, whatever names it). 409: the app is a preview app, or its connection is being removed.',
      params: AppParams,
      body: SourceBody,
      response: { 200: Type.Object({ source: AppSourceView }), 201: Type.Object({ source: AppSourceView }), ...errorResponses(404, 409) },
    },
    handler: async (request, reply) => {
      const settings = sourceSettings(request.body);
      const current = sources.settingsOf(request.params.projectId, request.params.appId);
      // The builds' variables may hold credentials, and forked databases copies of the data: setting or changing
      // either takes the scope that changing them directly takes (setting them at all, or an answer telling
      // whether they are what was sent would reveal them to a token that may not read them).
      const environmentChanges = !isDeepStrictEqual(contexts(settings.environment), contexts(current?.environment));
      if (settings.environment !== undefined || environmentChanges) requireToo(request, 'env:write');
      if (settings.previewDatabases === 'Fork' && current?.previewDatabases !== 'Fork') requireToo(request, 'databases:write');
      const { view, created } = await sources.put(request.params.projectId, request.params.appId, settings);
      return reply.code(created ? 201 : 200).send({ source: shown(request, view) });
    },
  });

  r.get('/v1/projects/:projectId/apps/:appId/source', {
    config: { auth: { scope: 'apps:read', project: true } },
    schema: {
      tags,
      summary: 'The app’s repository connection: its settings, what production and each preview serve, and its state (404 when not connected)',
      params: AppParams,
      response: { 200: Type.Object({ source: AppSourceView }), ...errorResponses(404) },
    },
    handler: async (request) => ({ source: shown(request, sources.get(request.params.projectId, request.params.appId)) }),
  });

  r.delete('/v1/projects/:projectId/apps/:appId/source', {
    config: { auth: { scope: 'apps:write', project: true } },
    schema: {
      tags,
      summary: 'Disconnect the app from its repository: pushes no longer deploy, the preview apps go; the app keeps serving its build (404 when not connected)',
      params: AppParams,
      response: { 204: Type.Null({ description: 'Disconnected.' }), ...errorResponses(404, 409) },
    },
    handler: async (request, reply) => {
      await sources.delete(request.params.projectId, request.params.appId);
      return reply.code(204).send(null);
    },
  });
}
