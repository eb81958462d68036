import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { DomainServices } from '../services/domain-services.ts';
import { AppParams } from '../schemas/app.ts';
import { Hostname, HostnameBody, HostnameParams } from '../schemas/domain.ts';
import { errorResponses } from '../schemas/problem.ts';
import { requireToo } from './body-scopes.ts';

const tags = ['apps'];

export function appDomainRoutes(app: FastifyInstance, dns: DomainServices): void {
  // Handlers read `dns` when called, never here: building the OpenAPI document registers these routes
  // against stand-ins that throw when touched (scripts/update-openapi.ts).
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/v1/projects/:projectId/apps/:appId/domains', {
    config: { auth: { scope: 'apps:read', project: true } },
    schema: { tags, summary: 'List the hostnames attached to the app, with their state', params: AppParams, response: { 200: Type.Object({ domains: Type.Array(Hostname) }), ...errorResponses(404) } },
    handler: async (request) => ({ domains: dns.hostnames.list(request.params.projectId, request.params.appId) }),
  });

  r.post('/v1/projects/:projectId/apps/:appId/domains', {
    config: { auth: { scope: 'apps:write', project: true } },
    schema: {
      tags,
      summary:
        'Attach a hostname (the runtime first, then DNS). external_records answers the records to publish; managed_project_domain writes them into the managed project domain holding the hostname (which needs `domain:write` too): 200 with managed_dns.status=applied, or 202 with failed when writing them failed (repeat the identical request). 202 with the hostname as it stands (status pending, managed_dns.status pending) when the platform has not answered within 10 s: GET the app’s hostnames, or repeat the request, to follow it. Idempotent',
      params: AppParams,
      body: HostnameBody,
      response: { 200: Hostname, 202: Hostname, ...errorResponses(404, 409) },
    },
    handler: async (request, reply) => {
      // Records written into a project domain's zone are a domain write (the spec's `domain:write`).
      if (request.body.dns_mode === 'managed_project_domain') requireToo(request, 'domain:write');
      const result = await dns.hostnames.attach(request.params.projectId, request.params.appId, request.body);
      return reply.code(result.statusCode).send(result.view);
    },
  });

  r.delete('/v1/projects/:projectId/apps/:appId/domains/:domain', {
    config: { auth: { scope: 'apps:write', project: true } },
    schema: {
      tags,
      summary:
        'Detach a hostname: the app is no longer served on it, the records the platform wrote for it leave the zone and the name is free for others to attach. 204 once gone; 202 with the hostname (status deleting) when that has not finished within 10 s (the platform carries on); 404 when the hostname is not attached to the app. Records you published yourself are yours to remove',
      params: HostnameParams,
      response: { 202: Hostname, 204: Type.Null(), ...errorResponses(404, 409) },
    },
    handler: async (request, reply) => {
      const { gone, view } = await dns.hostnames.detach(request.params.projectId, request.params.appId, request.params.domain);
      return gone ? reply.code(204).send(null) : reply.code(202).send(view);
    },
  });

  r.post('/v1/projects/:projectId/apps/:appId/domains/:domain/finalize', {
    config: { auth: { scope: 'apps:write', project: true } },
    schema: {
      tags,
      summary:
        'Finalize: sets the binding’s finalize intent and has the records verified now (external: through the platform’s resolver; managed: applied), then the app is served on the hostname. 409 saying what is missing (the platform keeps re-checking and activates the hostname by itself once they are live); 202 when the check has not answered within 10 s; repeatable',
      params: HostnameParams,
      response: { 200: Hostname, 202: Hostname, ...errorResponses(404, 409) },
    },
    handler: async (request, reply) => {
      const result = await dns.hostnames.finalize(request.params.projectId, request.params.appId, request.params.domain);
      return reply.code(result.statusCode).send(result.view);
    },
  });
}
