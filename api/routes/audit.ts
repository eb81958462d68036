import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authorize, type TokenStore } from '../../src/auth/index.ts';
import type { ProjectDirectory } from '../services/projects.ts';
import { isResourceType } from '../audit/audit-entry.ts';
import type { AuditTrail } from '../audit/audit-trail.ts';
import { principalOf } from '../plugins/auth.ts';
import { AUDIT_PAGE_DEFAULT, AuditPage, AuditQuery } from '../schemas/audit.ts';
import { errorResponses } from '../schemas/problem.ts';
import { ProjectParams } from '../schemas/project.ts';
import { integerQuery } from './integer-query.ts';

/**
 * `GET /v1/projects/{projectId}/audit`. Members with `audit:read` read their project's trail; administrators
 * (`admin` and `audit:read`) read any project's, a deleted one's too, for as long as its entries are kept.
 */
export function auditRoutes(app: FastifyInstance, trail: AuditTrail, projects: Pick<ProjectDirectory, 'trailStart'>, tokens: TokenStore): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get('/v1/projects/:projectId/audit', {
    // The project is checked here, not by the auth hook: an administrator may read a deleted project's trail.
    config: { auth: { scope: 'audit:read' } },
    preValidation: integerQuery('limit'),
    schema: {
      tags: ['projects'],
      summary: 'The project’s audit trail: who changed what and when, newest first',
      description:
        'Every request through this API that changed (or tried to change) the project, its apps (deploys, rollbacks, environment, hostnames), ' +
        'domains, DNS records, databases and git tokens, with its principal, request id and status code. Entries are kept for a retention the ' +
        'platform sets (default 90 days and 10,000 entries per project), after the project’s deletion too (administrators read those). ' +
        'Changes made with kubectl do not pass through the API and are not here: Kubernetes audit logging records them.',
      params: ProjectParams,
      querystring: AuditQuery,
      response: { 200: AuditPage, ...errorResponses(404, 500, 503) },
    },
    handler: async (request) => {
      const principal = principalOf(request);
      const { projectId } = request.params;
      let notBefore: Date | undefined;
      // A member sees the project as it is, not an earlier project of the same id (deleted, then created again by
      // someone else): its trail starts where it was created.
      if (!principal.admin) {
        await authorize(principal, { scope: 'audit:read', projectId }, tokens);
        notBefore = projects.trailStart(projectId);
      }
      const { limit = AUDIT_PAGE_DEFAULT, cursor, resource_type: type } = request.query;
      const page = await trail.page(projectId, {
        limit,
        ...(cursor === undefined ? {} : { after: cursor }),
        ...(type !== undefined && isResourceType(type) ? { resourceType: type } : {}),
        ...(notBefore ? { notBefore } : {}),
      });
      return { entries: [...page.entries], next: page.next ?? null };
    },
  });
}
