import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { authorize, PrincipalCache, requireScope, type Principal, type Scope, type TokenStore } from '../../src/auth/index.ts';
import { errorResponses, implicitErrorStatuses } from '../schemas/problem.ts';
import { appendOnRequest } from './route-hooks.ts';

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
 *
 * Each authenticated route gets a hook of its own (public routes none), which knows the route's
 * requirement without looking it up per request. The hook runs at `onRequest`, before the body is read or
 * validated, so an unauthenticated caller learns nothing from a 400. A caller seen since the last token or
 * user change is answered from the {@link PrincipalCache} without leaving the hook synchronously.
 */
export function auth(app: FastifyInstance, tokens: TokenStore, now: () => Date): void {
  const principals = new PrincipalCache(tokens);
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
    if (requirement !== false) appendOnRequest(route, authorizeFor(requirement, principals, tokens, now));
  });
  app.decorateRequest('principal', undefined);
}

/** The onRequest hook of a route that needs `requirement`. */
function authorizeFor(requirement: AccessRule, principals: PrincipalCache, tokens: TokenStore, now: () => Date): onRequestHookHandler {
  const admit = async (request: FastifyRequest, principal: Principal): Promise<void> => {
    request.principal = principal;
    const projectId = requirement.project ? (request.params as { projectId?: string }).projectId : undefined;
    if (projectId !== undefined) await authorize(principal, { scope: requirement.scope, projectId }, tokens);
    else requireScope(principal, requirement.scope);
  };
  // Callback style: an async hook would cost a promise per request even when nothing needs waiting for.
  return (request, _reply, done) => {
    const header = request.headers.authorization;
    const known = principals.cached(header, now().getTime());
    // Project routes also check the membership, which the store answers asynchronously.
    if (known === undefined || requirement.project) {
      const admitted = known ? admit(request, known) : principals.authenticate(header, now()).then((principal) => admit(request, principal));
      admitted.then(() => done(), done);
      return;
    }
    // The common case without a promise: a caller seen before, on a route outside any project.
    request.principal = known;
    try {
      requireScope(known, requirement.scope);
    } catch (err) {
      return done(err as Error);
    }
    done();
  };
}

type AccessRule = Exclude<RouteAuth, false>;
