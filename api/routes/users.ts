import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { integerQuery } from './integer-query.ts';
import { nextField, pageOf, PageQuery } from './pagination.ts';
import type { UserDirectory } from '../services/users.ts';
import { principalOf } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/problem.ts';
import { CallerToken, User, UserBody, UserParams } from '../schemas/user.ts';

const tags = ['users'];
const admin = { auth: { scope: 'admin' } } as const;

/**
 * `GET /v1/user`: the caller. The user directory for administrators (scope `admin`, held only by tokens of
 * platform administrators). Memberships are managed on the project routes.
 */
export function userRoutes(app: FastifyInstance, users: UserDirectory): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  // Scope `projects:read`, because the answer lists the caller's project memberships. (Any valid token would
  // do, but `config.auth` has no "any scope", and `auth: false` means public to the other plugins.)
  r.get('/v1/user', {
    config: { auth: { scope: 'projects:read' } },
    schema: {
      tags,
      summary: 'The user the calling token acts as, with their memberships and this token’s effective scopes',
      response: { 200: Type.Object({ user: User, token: CallerToken }), ...errorResponses(500) },
    },
    handler: async (request) => {
      const principal = principalOf(request);
      return { user: users.get(principal.userId), token: { token_id: principal.tokenId, scopes: [...principal.scopes] } };
    },
  });

  r.get('/v1/users', {
    config: admin,
    preValidation: integerQuery('limit'),
    schema: {
      tags,
      summary: 'List every user by user id, a page at a time (administrators)',
      querystring: PageQuery,
      response: { 200: Type.Object({ users: Type.Array(User), ...nextField }), ...errorResponses(400, 500) },
    },
    handler: async (request) => {
      const { items, next } = pageOf(users.list(), (u) => [u.user_id], request.query);
      return { users: items, next };
    },
  });

  r.post('/v1/users', {
    config: admin,
    schema: {
      tags,
      summary: 'Create a user (administrators)',
      description: 'Add them to projects with `PUT /v1/projects/{projectId}/members/{userId}` (an administrator’s add is at once; an owner’s is an invitation they accept).',
      body: UserBody,
      response: { 201: Type.Object({ user: User }), ...errorResponses(400, 409, 413, 415, 500) },
    },
    handler: async (request, reply) => {
      const { user_id: userId, display_name: displayName, email, admin: isAdmin } = request.body;
      const user = await users.create({ userId, displayName, email, admin: isAdmin });
      request.log.info({ user_id: userId, admin: user.admin }, 'user created');
      return reply.code(201).send({ user });
    },
  });

  r.get('/v1/users/:userId', {
    config: admin,
    schema: { tags, summary: 'Get a user (administrators)', params: UserParams, response: { 200: Type.Object({ user: User }), ...errorResponses(400, 404, 500) } },
    handler: async (request) => ({ user: users.get(request.params.userId) }),
  });

  r.delete('/v1/users/:userId', {
    config: admin,
    schema: {
      tags,
      summary: 'Delete a user and revoke their tokens (administrators)',
      description:
        '409 while the user is still a member of a project (remove them from it first) and for your own user. ' +
        'Every token of the user is revoked, so re-creating the id later does not bring them back.',
      params: UserParams,
      response: { 204: Type.Null({ description: 'Deleted.' }), ...errorResponses(400, 404, 409, 500) },
    },
    handler: async (request, reply) => {
      await users.delete(request.params.userId, principalOf(request).userId);
      request.log.info({ user_id: request.params.userId }, 'user deleted');
      return reply.code(204).send(null);
    },
  });
}
