import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { integerQuery } from './integer-query.ts';
import { nextField, pageOf, PageQuery } from './pagination.ts';
import { ForbiddenError, type Principal, type TokenStore } from '../../src/auth/index.ts';
import type { BuildCatalog } from '../../src/platform/builds.ts';
import type { ProjectDirectory } from '../services/projects.ts';
import { principalOf } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/problem.ts';
import { Invitation, Member, MemberBody, MemberParams, Project, ProjectBody, ProjectParams } from '../schemas/project.ts';
import { NotFoundError } from '../../src/errors.ts';

const tags = ['projects'];

/** Owners manage a project; administrators manage every project. */
export async function requireOwner(tokens: TokenStore, principal: Principal, projectId: string): Promise<void> {
  if (principal.admin) return;
  if ((await tokens.getMembership(projectId, principal.userId)) !== 'owner') {
    throw new ForbiddenError(`Only an owner of ${projectId} may do this.`);
  }
}

/** A project's use of its build quota; absent (tests of the project routes alone), the view has no figures. */
type BuildUsage = Pick<BuildCatalog, 'usage'>;

/** What a member's removal takes with it: the query tokens they made on the project's databases. */
export interface MemberTokens {
  dropQueryTokensOf(project: string, userId: string): Promise<number>;
}

export function projectRoutes(app: FastifyInstance, projects: ProjectDirectory, tokens: TokenStore, builds?: BuildUsage, databases?: () => MemberTokens | undefined): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/v1/projects', {
    config: { auth: { scope: 'projects:read' } },
    preValidation: integerQuery('limit'),
    schema: {
      tags,
      summary: 'List the caller’s projects by project id, a page at a time',
      querystring: PageQuery,
      response: { 200: Type.Object({ projects: Type.Array(Project), ...nextField }), ...errorResponses(400, 500) },
    },
    // Not async: nothing here waits, and the API's most frequent read saves a promise per request.
    handler: (request) => {
      const { items, next } = pageOf(projects.listFor(principalOf(request)), (p) => [p.project_id], request.query);
      return { projects: items, next };
    },
  });

  r.post('/v1/projects', {
    config: { auth: { scope: 'projects:write' } },
    schema: {
      tags,
      summary: 'Create a project; the caller (or `owner`, for administrators) becomes its owner',
      body: ProjectBody,
      response: { 201: Type.Object({ project: Project }), ...errorResponses(400, 404, 409, 415, 500) },
    },
    handler: async (request, reply) => {
      const principal = principalOf(request);
      const owner = request.body.owner ?? principal.userId;
      if (owner !== principal.userId && !principal.admin) throw new ForbiddenError('Only an administrator may create a project for another user.');
      if (!(await tokens.getUser(owner))) throw new NotFoundError(`No user ${owner} exists.`);
      const project = await projects.create({ projectId: request.body.project_id, name: request.body.name, owner, ...(request.auditEntry ? { auditFrom: request.auditEntry.id } : {}) });
      return reply.code(201).send({ project });
    },
  });

  r.get('/v1/projects/:projectId', {
    config: { auth: { scope: 'projects:read', project: true } },
    schema: { tags, summary: 'Get a project', params: ProjectParams, response: { 200: Type.Object({ project: Project }), ...errorResponses(404, 500) } },
    handler: async (request) => {
      const project = projects.get(request.params.projectId, principalOf(request));
      const usage = builds?.usage(request.params.projectId);
      return {
        project: usage
          ? {
              ...project,
              usage: { active_builds_unpacked_bytes: usage.activeUnpackedBytes, stored_builds_bytes: usage.storedBytes },
              quotas: { active_builds_unpacked_bytes: usage.quota, stored_builds_bytes: usage.storedQuota },
            }
          : project,
      };
    },
  });

  r.delete('/v1/projects/:projectId', {
    config: { auth: { scope: 'projects:write', project: true } },
    schema: {
      tags,
      summary: 'Delete an empty project (409 while it still holds apps, databases, domains or repositories)',
      params: ProjectParams,
      response: { 204: Type.Null({ description: 'Deleted; the operator removes its namespace.' }), ...errorResponses(404, 409, 500) },
    },
    handler: async (request, reply) => {
      await requireOwner(tokens, principalOf(request), request.params.projectId);
      await projects.delete(request.params.projectId);
      return reply.code(204).send(null);
    },
  });

  r.get('/v1/projects/:projectId/members', {
    config: { auth: { scope: 'projects:read', project: true } },
    schema: { tags, summary: 'List members', params: ProjectParams, response: { 200: Type.Object({ members: Type.Array(Member) }), ...errorResponses(404, 500) } },
    handler: async (request) => ({ members: projects.members(request.params.projectId).map((m) => ({ user_id: m.user, role: m.role })) }),
  });

  r.put('/v1/projects/:projectId/members/:userId', {
    config: { auth: { scope: 'projects:write', project: true } },
    schema: {
      tags,
      summary: 'Invite someone, or change a member’s role (owners and administrators)',
      description:
        'Lowers or keeps a member’s role at once (200). Anyone else is invited (202), and so is a member offered the ' +
        'owner role: they become a member, or an owner, only by accepting (`POST /v1/user/invitations/{projectId}/accept`) ' +
        'within 7 days; inviting them again renews it with the role given. An invitation stands while its inviter is an owner. ' +
        'An administrator’s add makes them a member at once (200; 404 for a user that does not exist). An owner’s ' +
        'invitation is answered alike whether or not the user exists, so it tells nobody which user ids are taken.',
      params: MemberParams,
      body: MemberBody,
      response: { 200: Type.Object({ member: Member }), 202: Type.Object({ invitation: Invitation }), ...errorResponses(400, 404, 409, 415, 500) },
    },
    handler: async (request, reply) => {
      const { projectId, userId } = request.params;
      const principal = principalOf(request);
      await requireOwner(tokens, principal, projectId);
      if (principal.admin && !(await tokens.getUser(userId))) throw new NotFoundError(`No user ${userId} exists.`);
      const added = await projects.addMember(projectId, { user: userId, role: request.body.role }, { userId: principal.userId, direct: principal.admin });
      if ('invitation' in added) return reply.code(202).send({ invitation: added.invitation });
      return { member: { user_id: userId, role: added.member.role } };
    },
  });

  r.delete('/v1/projects/:projectId/members/:userId', {
    config: { auth: { scope: 'projects:write', project: true } },
    schema: {
      tags,
      summary: 'Remove a member (owners and administrators), or leave the project (any member, but its last owner)',
      params: MemberParams,
      response: { 204: Type.Null(), ...errorResponses(404, 409, 500) },
    },
    handler: async (request, reply) => {
      const { projectId, userId } = request.params;
      // A member may always leave (someone else added them), but the last owner: the project keeps one.
      if (userId !== principalOf(request).userId) await requireOwner(tokens, principalOf(request), projectId);
      // Their query tokens go once they are out (a removal refused, the last owner's, takes none); a removal retried
      // after the tokens failed to go finds them gone as it answers "not a member".
      try {
        await projects.removeMember(projectId, userId);
      } catch (err) {
        if (err instanceof NotFoundError) await databases?.()?.dropQueryTokensOf(projectId, userId);
        throw err;
      }
      await databases?.()?.dropQueryTokensOf(projectId, userId);
      return reply.code(204).send(null);
    },
  });
}
