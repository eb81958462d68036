import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { MAX_ACTIVE_GIT_TOKENS_PER_PROJECT, type GitTokenDirectory } from '../../src/platform/git-tokens.ts';
import { principalOf } from '../plugins/auth.ts';
import { CreatedGitToken, GitTokenBody, GitTokenList, GitTokenParams } from '../schemas/git-token.ts';
import { errorResponses } from '../schemas/problem.ts';
import { ProjectParams } from '../schemas/project.ts';

const tags = ['git tokens'];

/** What the git token routes need: the directory, and where users reach the repository service. */
export interface GitTokenServices {
  gitTokens: GitTokenDirectory;
  /** CW_GIT_PUBLIC_URL; absent: answers say null. */
  gitUrl?: string;
}

/** A project's tokens for the repository service. Handlers only translate; the rules live in src/platform/git-tokens.ts. */
export function gitTokenRoutes(app: FastifyInstance, services: GitTokenServices, now: () => Date): void {
  // Handlers read `services` when called, never here (scripts/update-openapi.ts registers these on stand-ins).
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post('/v1/projects/:projectId/git-tokens', {
    config: { auth: { scope: 'tokens:write', project: true } },
    schema: {
      tags,
      summary: 'Make a git token for the project’s repositories (clone, fetch and, with write, push; LFS and the repository API too)',
      description:
        'The response carries the token itself in `git_token`; it is never shown again (listings carry only `token_id`). It reaches only this project’s ' +
        'repositories (`{git_url}/{project_id}/…`), acts as the caller, and works only while the caller is a member. Needs `tokens:write`, and ' +
        '`repositories:read` for the read scope or `repositories:write` for write; it expires no later than the calling token. ' +
        `A project holds at most ${MAX_ACTIVE_GIT_TOKENS_PER_PROJECT} live git tokens (409 past that).`,
      params: ProjectParams,
      body: GitTokenBody,
      response: { 201: CreatedGitToken, ...errorResponses(400, 409, 413, 415, 500) },
    },
    handler: async (request, reply) => {
      const { token, view } = await services.gitTokens.create(principalOf(request), request.params.projectId, request.body, now());
      request.log.info({ token_id: view.token_id, project: request.params.projectId }, 'git token created');
      // A secret: no cache may keep this response.
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({ token: view, git_token: token, git_url: services.gitUrl ?? null });
    },
  });

  r.get('/v1/projects/:projectId/git-tokens', {
    config: { auth: { scope: 'repositories:read', project: true } },
    schema: {
      tags,
      summary: 'List the project’s git tokens, every member’s, newest first (revoked and expired ones included; never their values)',
      params: ProjectParams,
      response: { 200: GitTokenList, ...errorResponses(500) },
    },
    handler: async (request) => ({ git_url: services.gitUrl ?? null, tokens: services.gitTokens.list(request.params.projectId, now()) }),
  });

  r.delete('/v1/projects/:projectId/git-tokens/:tokenId', {
    config: { auth: { scope: 'tokens:write', project: true } },
    schema: {
      tags,
      summary: 'Revoke a git token of the project: your own, or any as an owner of the project',
      description: 'Revocation is final; revoking a revoked token succeeds again. The repository service refuses it as soon as it sees the change (normally within a second).',
      params: GitTokenParams,
      response: { 204: Type.Null({ description: 'Revoked.' }), ...errorResponses(400, 404, 500) },
    },
    handler: async (request, reply) => {
      await services.gitTokens.revoke(principalOf(request), request.params.projectId, request.params.tokenId);
      request.log.info({ token_id: request.params.tokenId, project: request.params.projectId }, 'git token revoked');
      return reply.code(204).send(null);
    },
  });
}
