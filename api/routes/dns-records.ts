import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { integerQuery } from './integer-query.ts';
import { nextField, pageOf, PageQuery } from './pagination.ts';
import type { DomainServices } from '../services/domain-services.ts';
import { DnsRecord, DomainParams, RecordBody, RecordParams } from '../schemas/domain.ts';
import { errorResponses } from '../schemas/problem.ts';

const tags = ['domains'];
const one = Type.Object({ record: DnsRecord });

export function dnsRecordRoutes(app: FastifyInstance, dns: DomainServices): void {
  // Handlers read `dns` when called, never here: building the OpenAPI document registers these routes
  // against stand-ins that throw when touched (scripts/update-openapi.ts).
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/v1/projects/:projectId/domains/:domain/records', {
    config: { auth: { scope: 'domain:read', project: true } },
    preValidation: integerQuery('limit'),
    schema: {
      tags,
      summary: 'List the domain’s records, platform-owned ones included, by name, type and id, a page at a time',
      params: DomainParams,
      querystring: PageQuery,
      response: { 200: Type.Object({ records: Type.Array(DnsRecord), ...nextField }), ...errorResponses(400, 404) },
    },
    handler: async (request) => {
      const records = dns.records.list(request.params.projectId, request.params.domain);
      const { items, next } = pageOf(records, (r) => [r.fqdn, r.type, r.record_id], request.query);
      return { records: items, next };
    },
  });

  r.post('/v1/projects/:projectId/domains/:domain/records', {
    config: { auth: { scope: 'domain:write', project: true } },
    schema: {
      tags,
      summary:
        'Create a record (name, type, values, ttl) and write it to the zone: 201 once the platform has tried (status says how it went), 202 with the record as it stands (pending) when it has not within 10 s. 409 while the domain is not managed, or when the name is taken (one record set per name and type; a CNAME alone at its name)',
      params: DomainParams,
      body: RecordBody,
      response: { 201: one, 202: one, ...errorResponses(404, 409) },
    },
    handler: async (request, reply) => {
      const { answered, view } = await dns.records.create(request.params.projectId, request.params.domain, request.body);
      return reply.code(answered ? 201 : 202).send({ record: view });
    },
  });

  r.put('/v1/projects/:projectId/domains/:domain/records/:recordId', {
    config: { auth: { scope: 'domain:write', project: true } },
    schema: {
      tags,
      summary:
        'Update a record: omitted name, type and ttl keep the stored ones; values replace the stored values. 200 once the platform has tried to write it (status says how it went), 202 with the record as it stands when it has not within 10 s. 409 for platform-owned records and while the domain is not managed',
      params: RecordParams,
      body: RecordBody,
      response: { 200: one, 202: one, ...errorResponses(404, 409) },
    },
    handler: async (request, reply) => {
      const { answered, view } = await dns.records.update(request.params.projectId, request.params.domain, request.params.recordId, request.body);
      return reply.code(answered ? 200 : 202).send({ record: view });
    },
  });

  r.delete('/v1/projects/:projectId/domains/:domain/records/:recordId', {
    config: { auth: { scope: 'domain:write', project: true } },
    schema: {
      tags,
      summary:
        'Delete a record (in every domain state); 409 for platform-owned records. Answers the record as it was: 200 once it has left the zone, 202 when it has not within 10 s (the platform carries on)',
      params: RecordParams,
      response: { 200: one, 202: one, ...errorResponses(404, 409) },
    },
    handler: async (request, reply) => {
      const { answered, view } = await dns.records.delete(request.params.projectId, request.params.domain, request.params.recordId);
      return reply.code(answered ? 200 : 202).send({ record: view });
    },
  });
}
