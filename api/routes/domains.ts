import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { integerQuery } from './integer-query.ts';
import { nextField, pageOf, PageQuery } from './pagination.ts';
import type { DomainServices } from '../services/domain-services.ts';
import { principalOf } from '../plugins/auth.ts';
import { Domain, DomainBody, DomainParams } from '../schemas/domain.ts';
import { errorResponses } from '../schemas/problem.ts';
import { ProjectParams } from '../schemas/project.ts';

const tags = ['domains'];
const one = Type.Object({ domain: Domain });

export function domainRoutes(app: FastifyInstance, dns: DomainServices): void {
  // Handlers read `dns` when called, never here: building the OpenAPI document registers these routes
  // against stand-ins that throw when touched (scripts/update-openapi.ts).
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/v1/projects/:projectId/domains', {
    config: { auth: { scope: 'domain:read', project: true } },
    preValidation: integerQuery('limit'),
    schema: {
      tags,
      summary: 'List the project’s domains by name, a page at a time (an empty list when there are none)',
      params: ProjectParams,
      querystring: PageQuery,
      response: { 200: Type.Object({ domains: Type.Array(Domain), ...nextField }), ...errorResponses(400) },
    },
    handler: async (request) => {
      const { items, next } = pageOf(dns.domains.list(request.params.projectId), (d) => [d.domain], request.query);
      return { domains: items, next };
    },
  });

  r.post('/v1/projects/:projectId/domains', {
    config: { auth: { scope: 'domain:write', project: true } },
    schema: {
      tags,
      summary:
        'Add a domain: its hosted zone is created and its nameservers answered (201, status pending_delegation); 202 with the domain as it stands (pending_delegation, status_reason Creating, no nameservers yet) and a Location to GET it when the zone has not been created within 10 s. 400 for a name that cannot be a project domain (the platform’s base domain, names in or above it); 409 when this project has it or another project holds it by a delegation that has not lapsed for a day (a holder that never delegated it, or whose delegation lapsed, is challenged: the domain is added with a zone of its own, status_reason DomainTaken, and takes the name over once delegated to it), when it is under another project’s domain, or when the caller has 10 domains waiting for their delegation; 502/503 when the DNS provider fails (the domain stays added and the platform retries)',
      params: ProjectParams,
      body: DomainBody,
      response: { 201: one, 202: one, ...errorResponses(409, 502, 503) },
    },
    handler: async (request, reply) => {
      const { zoneReady, view } = await dns.domains.create(request.params.projectId, request.body.domain, principalOf(request).userId);
      if (!zoneReady) reply.header('location', `/v1/projects/${request.params.projectId}/domains/${encodeURIComponent(view.domain)}`);
      return reply.code(zoneReady ? 201 : 202).send({ domain: view });
    },
  });

  r.get('/v1/projects/:projectId/domains/:domain', {
    config: { auth: { scope: 'domain:read', project: true } },
    schema: { tags, summary: 'Get a domain', params: DomainParams, response: { 200: one, ...errorResponses(404) } },
    handler: async (request) => ({ domain: dns.domains.get(request.params.projectId, request.params.domain) }),
  });

  r.delete('/v1/projects/:projectId/domains/:domain', {
    config: { auth: { scope: 'domain:write', project: true } },
    schema: {
      tags,
      summary:
        'Delete a domain (soft delete): its records, platform-owned ones included, and its hosted zone are deleted (200); 202 with status_reason Deleting when that has not finished within 10 s (the platform carries on). Its history is kept and the domain can be added again',
      params: DomainParams,
      response: { 200: one, 202: one, ...errorResponses(404, 409, 502, 503) },
    },
    handler: async (request, reply) => {
      const { retired, view } = await dns.domains.delete(request.params.projectId, request.params.domain);
      return reply.code(retired ? 200 : 202).send({ domain: view });
    },
  });

  r.post('/v1/projects/:projectId/domains/:domain/delegation-check', {
    config: { auth: { scope: 'domain:write', project: true } },
    schema: {
      tags,
      summary:
        'Check the delegation: the parent zone’s authoritative servers are asked for the domain’s NS records; managed when they equal the zone’s nameservers, pending_delegation otherwise (status_message says why). 202 with the status as it stands when the check has not answered within 10 s. Repeatable',
      params: DomainParams,
      response: { 200: one, 202: one, ...errorResponses(404, 502, 503) },
    },
    handler: async (request, reply) => {
      const { checked, view } = await dns.domains.checkDelegation(request.params.projectId, request.params.domain);
      return reply.code(checked ? 200 : 202).send({ domain: view });
    },
  });
}
