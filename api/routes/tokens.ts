import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createPersonalToken, listPersonalTokens, MAX_ACTIVE_TOKENS_PER_USER, revokeOwnToken, revokePersonalToken, summarize, type TokenStore, type TokenSummary } from '../../src/auth/index.ts';
import { principalOf } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/problem.ts';
import { CreatedToken, Token, TokenBody, TokenParams } from '../schemas/token.ts';

const tags = ['tokens'];
const DAY_MS = 86_400_000;

/** The API view of a token summary. */
export function tokenView(token: TokenSummary) {
  return {
    token_id: token.id,
    description: token.description,
    scopes: [...token.scopes],
    created_at: token.createdAt.toISOString(),
    expires_at: token.expiresAt?.toISOString() ?? null,
    state: token.state,
    session: token.session,
  };
}

/** The caller's personal access tokens. Handlers only translate; the rules live in src/auth/personal-tokens.ts. */
export function tokenRoutes(app: FastifyInstance, tokens: TokenStore, now: () => Date): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post('/v1/tokens', {
    config: { auth: { scope: 'tokens:write' } },
    schema: {
      tags,
      summary: 'Create an access token for yourself',
      description:
        'The response carries the token itself in `access_token`; it is never shown again (listings carry only ' +
        '`token_id`). The new token may hold only scopes the calling token holds, and expires no later than it. ' +
        `A user holds at most ${MAX_ACTIVE_TOKENS_PER_USER} active tokens (409 past that: revoke some first).`,
      body: TokenBody,
      response: { 201: CreatedToken, ...errorResponses(400, 409, 413, 415, 500) },
    },
    handler: async (request, reply) => {
      // Whole seconds, as the store keeps them (Kubernetes timestamps), so this answer and later listings agree.
      const at = new Date(Math.floor(now().getTime() / 1000) * 1000);
      const days = request.body.expires_in_days;
      const issued = await createPersonalToken(
        principalOf(request),
        {
          scopes: request.body.scopes,
          description: request.body.description,
          expiresAt: days === undefined ? undefined : new Date(at.getTime() + days * DAY_MS),
        },
        tokens,
        at,
      );
      request.log.info({ token_id: issued.record.id }, 'access token created');
      // A secret: no cache may keep this response (RFC 6749 §5.1 asks the same of token responses).
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({ token: tokenView(summarize(issued.record, at)), access_token: issued.token });
    },
  });

  r.get('/v1/tokens', {
    config: { auth: { scope: 'tokens:read' } },
    schema: {
      tags,
      summary: 'List your access tokens, newest first (revoked and expired ones included; never their values)',
      description: 'At most 100 active tokens, and the 100 most recently made of the revoked and expired ones (older ones are deleted as new tokens are made).',
      response: { 200: Type.Object({ tokens: Type.Array(Token) }), ...errorResponses(500) },
    },
    handler: async (request) => ({ tokens: (await listPersonalTokens(principalOf(request), tokens, now())).map(tokenView) }),
  });

  // Signing out must work for any token, so it needs no scope: a token may only ever revoke itself here.
  r.delete('/v1/user/token', {
    // Never held back by the caller's requests in flight, which a leaked token could fill (docs/platform-api.md).
    config: { auth: { scope: null }, countsInFlight: false },
    schema: {
      tags,
      summary: 'Revoke the token that makes this request (sign out); any valid token may, whatever its scopes',
      response: { 204: Type.Null({ description: 'Revoked: the token is refused from now on.' }), ...errorResponses(500) },
    },
    handler: async (request, reply) => {
      const { tokenId } = principalOf(request);
      await revokeOwnToken({ tokenId }, tokens);
      request.log.info({ token_id: tokenId }, 'access token revoked by itself');
      return reply.code(204).send(null);
    },
  });

  r.delete('/v1/tokens/:tokenId', {
    // Never held back by the caller's requests in flight: revoking a leaked token that fills them must get through.
    config: { auth: { scope: 'tokens:write' }, countsInFlight: false },
    schema: {
      tags,
      summary: 'Revoke one of your access tokens',
      description: 'Revocation is immediate and final; revoking a revoked token succeeds again. A token that is not yours ' + 'answers 404 like a missing one (administrators may revoke any token).',
      params: TokenParams,
      response: { 204: Type.Null({ description: 'Revoked.' }), ...errorResponses(400, 404, 500) },
    },
    handler: async (request, reply) => {
      await revokePersonalToken(principalOf(request), request.params.tokenId, tokens);
      request.log.info({ token_id: request.params.tokenId }, 'access token revoked');
      return reply.code(204).send(null);
    },
  });
}
