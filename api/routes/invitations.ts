import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { integerQuery } from './integer-query.ts';
import { nextField, pageOf, PageQuery } from './pagination.ts';
import type { TokenStore } from '../../src/auth/index.ts';
import type { ProjectDirectory } from '../services/projects.ts';
import { principalOf } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/problem.ts';
import { Invitation, Member, MemberBody, MemberParams, ProjectParams } from '../schemas/project.ts';
import { NotFoundError } from '../../src/errors.ts';
import { requireOwner } from './projects.ts';

const tags = ['projects'];

/**
 * Invitations: the project's side (its owners see and withdraw what they offered) and the invitee's (`/v1/user/…`:
 * what waits for them, accepted or declined). Membership is never given without the person's consent.
 */
export function invitationRoutes(app: FastifyInstance, projects: ProjectDirectory, tokens: TokenStore): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  // Refused before the audit trail's hook: someone with no invitation to a project cannot write into its trail.
  const invited = async (request: FastifyRequest): Promise<void> => {
    const { projectId } = request.params as { projectId: string };
    if (!projects.hasInvitation(projectId, principalOf(request).userId)) throw new NotFoundError(`You have no pending invitation to ${projectId}.`);
  };

  r.get('/v1/projects/:projectId/invitations', {
    config: { auth: { scope: 'projects:read', project: true } },
    schema: {
      tags,
      summary: 'List the invitations of a project not yet accepted, declined or lapsed',
      params: ProjectParams,
      response: { 200: Type.Object({ invitations: Type.Array(Invitation) }), ...errorResponses(404, 500) },
    },
    handler: async (request) => ({ invitations: projects.invitations(request.params.projectId) }),
  });

  r.delete('/v1/projects/:projectId/invitations/:userId', {
    config: { auth: { scope: 'projects:write', project: true } },
    schema: { tags, summary: 'Withdraw an invitation (owners and administrators)', params: MemberParams, response: { 204: Type.Null(), ...errorResponses(404, 500) } },
    handler: async (request, reply) => {
      const { projectId, userId } = request.params;
      await requireOwner(tokens, principalOf(request), projectId);
      await projects.dropInvitation(projectId, userId);
      return reply.code(204).send(null);
    },
  });

  r.get('/v1/user/invitations', {
    config: { auth: { scope: 'projects:read' } },
    preValidation: integerQuery('limit'),
    schema: {
      tags,
      summary: 'List the invitations waiting for the caller, by project id, a page at a time',
      querystring: PageQuery,
      response: { 200: Type.Object({ invitations: Type.Array(Invitation), ...nextField }), ...errorResponses(400, 500) },
    },
    handler: (request) => {
      const { items, next } = pageOf(projects.invitationsFor(principalOf(request).userId), (i) => [i.project_id], request.query);
      return { invitations: items, next };
    },
  });

  r.post('/v1/user/invitations/:projectId/accept', {
    config: { auth: { scope: 'projects:write' } },
    preValidation: invited,
    schema: {
      tags,
      summary: 'Accept an invitation: the caller becomes a member with the role it offers',
      description: '`role` is the role the caller saw offered and accepts: an invitation renewed with another role since is refused ' + '(409), so nobody is made an owner they did not agree to be.',
      params: ProjectParams,
      // The role the invitee saw offered: the same body as an owner's add.
      body: MemberBody,
      response: { 200: Type.Object({ member: Member }), ...errorResponses(400, 404, 409, 415, 500) },
    },
    handler: async (request) => {
      const member = await projects.acceptInvitation(request.params.projectId, principalOf(request).userId, request.body.role);
      return { member: { user_id: member.user, role: member.role } };
    },
  });

  r.delete('/v1/user/invitations/:projectId', {
    config: { auth: { scope: 'projects:write' } },
    preValidation: invited,
    schema: { tags, summary: 'Decline an invitation', params: ProjectParams, response: { 204: Type.Null(), ...errorResponses(404, 500) } },
    handler: async (request, reply) => {
      await projects.dropInvitation(request.params.projectId, principalOf(request).userId);
      return reply.code(204).send(null);
    },
  });
}
