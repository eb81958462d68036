import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { authorize, PrincipalCache, requireScope, UnauthorizedError, type Principal, type Scope, type TokenStore } from '../../src/auth/index.ts';
import { PublicError } from '../../src/errors.ts';
import { errorResponses, implicitErrorStatuses } from '../schemas/problem.ts';
import { appendOnRequest } from './route-hooks.ts';
import { describeRate, TokenBuckets, type RateLimitOptions } from './token-buckets.ts';

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
 * Bearer authentication, driven by each route's `config.auth`. Routes must declare it: one without is
 * refused at registration, so no route is public by accident. The same declaration adds the route's
 * security requirement and its implicit error responses to OpenAPI. Register {@link authorization} after
 * the rate limiter, which sits between the two: it limits an authenticated caller by its token, so a
 * token's requests count whether or not it may make them.
 *
 * Each authenticated route gets a hook of its own (public routes none), which knows the route's
 * requirement without looking it up per request. The hooks run at `onRequest`, before the body is read or
 * validated, so an unauthenticated caller learns nothing from a 400. A caller seen since the last token or
 * user change is answered from the {@link PrincipalCache} without leaving the hook synchronously.
 *
 * Requests that fail authentication (401) never reach the rate limiter, so they are limited here, per
 * client address, by `failureLimit`. An address that has spent that allowance is answered 429 for any token
 * not in the {@link PrincipalCache}, before the token is parsed or looked up, until the allowance refills;
 * callers authenticated from it recently carry on.
 */
export function authentication(app: FastifyInstance, tokens: TokenStore, now: () => Date, failureLimit: RateLimitOptions): void {
  const principals = new PrincipalCache(tokens);
  const failures = failedAuthentications(failureLimit, now);
  const authenticate = authenticateHook(principals, failures, now);
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
    if (requirement !== false) appendOnRequest(route, authenticate);
  });
  app.decorateRequest('principal', undefined);
}

/**
 * Scope and project authorisation of each authenticated route's caller, per its `config.auth`: missing
 * scope or another project's route → 403. Register it after {@link authentication} and the rate limiter.
 */
export function authorization(app: FastifyInstance, tokens: TokenStore): void {
  app.addHook('onRoute', (route) => {
    const requirement = route.config?.auth;
    if (requirement) appendOnRequest(route, authorizeHook(requirement, tokens));
  });
}

/** Sets the request's principal, or answers 401 (or 429 to an address that keeps failing). */
function authenticateHook(principals: PrincipalCache, failures: FailedAuthentications, now: () => Date): onRequestHookHandler {
  // Callback style: an async hook would cost a promise per request even when nothing needs waiting for.
  return (request, _reply, done) => {
    const header = request.headers.authorization;
    const known = principals.cached(header, now().getTime());
    if (known !== undefined) {
      request.principal = known;
      return done();
    }
    const refused = failures.refusal(request.ip);
    if (refused) return done(refused);
    principals.authenticate(header, now()).then(
      (principal) => {
        request.principal = principal;
        done();
      },
      (err: Error) => {
        failures.count(request.ip, err);
        done(err);
      },
    );
  };
}

/** Answers 403 unless the principal holds the route's scope (and, on a project route, is a member). */
function authorizeHook(requirement: AccessRule, tokens: TokenStore): onRequestHookHandler {
  return (request, _reply, done) => {
    const principal = principalOf(request);
    // Project routes also check the membership, which the store answers asynchronously.
    const projectId = requirement.project ? (request.params as { projectId?: string }).projectId : undefined;
    if (projectId !== undefined) {
      authorize(principal, { scope: requirement.scope, projectId }, tokens).then(() => done(), done);
      return;
    }
    try {
      requireScope(principal, requirement.scope);
    } catch (err) {
      return done(err as Error);
    }
    done();
  };
}

type AccessRule = Exclude<RouteAuth, false>;

interface FailedAuthentications {
  /** The 429 for an address that has spent its allowance of failed authentications, else `undefined`. */
  refusal(address: string): PublicError | undefined;
  /** Counts `err` against `address` if it is a failed authentication. */
  count(address: string, err: Error): void;
}

function failedAuthentications(limit: RateLimitOptions, now: () => Date): FailedAuthentications {
  const buckets = new TokenBuckets(limit, (limit.maxCallers ?? 100_000) / 2, () => now().getTime());
  return {
    refusal: (address) => {
      if (buckets.hasRoom(address)) return undefined;
      const retryAfter = buckets.retryAfterSeconds(address);
      return new PublicError(
        429,
        `Too many requests with a missing or invalid token from this address (limit: ${describeRate(limit.perSecond)}); retry in ${retryAfter} s.`,
        { 'retry-after': String(retryAfter) },
      );
    },
    count: (address, err) => {
      if (err instanceof UnauthorizedError) buckets.take(address);
    },
  };
}
