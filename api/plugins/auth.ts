import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticate, authorize, requireScope, type Principal, type Scope, type TokenStore } from '../../src/auth/index.ts';
import { errorResponses, implicitErrorStatuses } from '../schemas/problem.ts';

/** What a route needs from its caller; `false` marks a public route. */
export type RouteAuth = false | { scope: Scope; project?: boolean };

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    principal?: Principal;
  }
}

/** The authenticated caller; routes with an `auth` requirement always have one. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error(`route ${request.routeOptions.url} has no auth requirement`);
  return request.principal;
}

/**
 * Bearer authentication and scope/project authorisation, driven by each route's `config.auth`. Routes
 * must declare it: one without is refused at registration, so no route is public by accident. The same
 * declaration adds the route's security requirement and its implicit error responses to OpenAPI.
 */
export function auth(app: FastifyInstance, tokens: TokenStore, now: () => Date): void {
  app.addHook('onRoute', (route) => {
    const requirement = route.config?.auth;
    if (requirement === undefined) {
      if (route.url.startsWith('/docs') || route.schema?.hide) return;
      throw new Error(`route ${route.method} ${route.url} declares no config.auth`);
    }
    const schema = route.schema ?? {};
    const hasBody = schema.body !== undefined;
    const statuses = implicitErrorStatuses({
      authenticated: requirement !== false,
      hasInput: hasBody || schema.params !== undefined || schema.querystring !== undefined,
      hasBody,
    });
    route.schema = {
      ...schema,
      ...(requirement === false ? {} : { security: [{ bearer: [requirement.scope] }] }),
      // What the route documents itself wins (the OAuth token endpoint's own 400, for one).
      response: { ...errorResponses(...statuses), ...(schema.response as object) },
    };
  });
  app.decorateRequest('principal', undefined);
  // onRequest: before the body is read or validated, so an unauthenticated caller learns nothing from a 400.
  app.addHook('onRequest', async (request) => {
    const requirement = request.routeOptions.config.auth;
    if (!requirement) return;
    const principal = await authenticate(request.headers.authorization, tokens, now());
    request.principal = principal;
    const projectId = requirement.project ? (request.params as { projectId?: string }).projectId : undefined;
    if (projectId !== undefined) await authorize(principal, { scope: requirement.scope, projectId }, tokens);
    else requireScope(principal, requirement.scope);
  });
}
