import { timingSafeEqual } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify';
import { authorize, ForbiddenError, PrincipalCache, requireScope, UnauthorizedError, type Principal, type Scope, type TokenStore } from '../../src/auth/index.ts';
import { csrfTokenFor } from '../../src/auth/sessions.ts';
import { PublicError } from '../../src/errors.ts';
import { errorResponses, implicitErrorStatuses } from '../schemas/problem.ts';
import { clientAddressKey } from '../../src/client-address.ts';
import { appendOnRequest } from './route-hooks.ts';
import { describeRate, TokenBuckets, type RateLimitOptions } from './token-buckets.ts';

/** What a route needs from its caller; `false` marks a public route. */
/**
 * `false`: public. `{ scope }`: a token holding the scope (and, with `project`, a member of the path's project),
 * and each scope of `also` besides (a route reaching two kinds of resource). `{ scope: null }`: any valid token,
 * whatever its scopes (a token signing itself out).
 */
export type RouteAuth = false | { scope: Scope; project?: boolean; also?: readonly Scope[] } | { scope: null; project?: false };

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    principal?: Principal;
    /**
     * Checks the caller again as the route's hook did (token, scopes, membership of the path's project): for an
     * answer that goes on long after the request (a followed log), which must end once its caller is revoked or
     * leaves the project. @throws UnauthorizedError, ForbiddenError
     */
    stillAllowed?: () => Promise<void>;
  }
}

/**
 * The cookie holding a console session (src/auth/sessions.ts), set by `POST /v1/session`. Over HTTPS it has the
 * `__Host-` prefix, which browsers only accept from this very host with Secure and Path=/: a site on a sibling
 * domain cannot plant one (a session of its own, for login CSRF). Plain HTTP (local dev) cannot have it.
 */
export function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-cw_session' : 'cw_session';
}
/** The `set-cookie` value that stores a session (or, with `''` and 0, clears it): HttpOnly, SameSite=Strict. */
export function sessionSetCookie(secure: boolean, value: string, maxAgeSeconds: number): string {
  return stringifySetCookie({ name: sessionCookieName(secure), value, httpOnly: true, sameSite: 'strict', path: '/', secure, maxAge: maxAgeSeconds });
}

/** The session cookie a request carries without an `Authorization` header, as the auth hook reads it. */
export function sessionCookieOf(request: FastifyRequest, name: string): string | undefined {
  if (request.headers.authorization !== undefined || request.headers.cookie === undefined) return undefined;
  return parseCookie(request.headers.cookie)[name];
}

/** The header carrying a session's CSRF token on state-changing requests. */
export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The credential of a request, as an `Authorization` header value: the header itself, else the session
 * cookie. A request authenticated by the cookie that changes anything must also prove it comes from the
 * console (its CSRF token), since a browser sends cookies with requests any site makes it send.
 */
function credentialOf(request: FastifyRequest, cookieName: string): { header: string | undefined; session?: string } {
  const header = request.headers.authorization;
  const session = sessionCookieOf(request, cookieName);
  if (!session) return { header };
  // Two cookies of the name (one planted for a parent domain, say): which the browser meant is unknowable.
  if ((request.headers.cookie ?? '').split(';').filter((pair) => pair.trim().startsWith(`${cookieName}=`)).length > 1) {
    throw new UnauthorizedError('The request carries the session cookie twice; sign in again.', { tokenPresented: true });
  }
  return { header: `Bearer ${session}`, session };
}

function checkCsrf(request: FastifyRequest, session: string): void {
  if (SAFE_METHODS.has(request.method)) return;
  const sent = Buffer.from(String(request.headers[CSRF_HEADER] ?? ''));
  const expected = Buffer.from(csrfTokenFor(session));
  if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) {
    throw new ForbiddenError(`A request signed in with the console's cookie must carry its ${CSRF_HEADER} header (GET /v1/session gives it).`);
  }
}

/**
 * Checks the caller of a long answer again (`stillAllowed`, set by the auth hook of a route that needs one).
 * @throws UnauthorizedError, ForbiddenError
 */
export function checkStillAllowed(request: FastifyRequest): Promise<void> {
  if (!request.stillAllowed) throw new Error(`route ${request.routeOptions.url} has no auth requirement`);
  return request.stillAllowed();
}

/** The authenticated caller; routes with an `auth` requirement always have one. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error(`route ${request.routeOptions.url} has no auth requirement`);
  return request.principal;
}

export interface AuthOptions {
  /** The session cookie's name ({@link sessionCookieName}); default the Secure one. */
  readonly sessionCookie?: string;
  /** Per client address, the allowance of requests that fail authentication (401). */
  readonly failureLimit: RateLimitOptions;
  /**
   * Charges a request refused for its scope or project (403) to its caller's rate limit, which never sees
   * it (the limiter's hook runs after this one); `false` when that limit was spent and the 429 is sent
   * instead. See `callerRateLimiter` (plugins/rate-limit.ts).
   */
  readonly chargeRefusal?: (request: FastifyRequest, reply: FastifyReply) => boolean;
}

/**
 * Bearer authentication and scope/project authorisation, driven by each route's `config.auth`. Routes
 * must declare it: one without is refused at registration, so no route is public by accident. The same
 * declaration adds the route's security requirement and its implicit error responses to OpenAPI.
 *
 * Each authenticated route gets a hook of its own (public routes none), which knows the route's
 * requirement without looking it up per request. The hook runs at `onRequest`, before the body is read or
 * validated, so an unauthenticated caller learns nothing from a 400. A caller seen since the last token or
 * user change is answered from the {@link PrincipalCache} without leaving the hook synchronously. One hook
 * does both, authentication and authorisation: every hook on this path costs (measured: bench/README.md).
 *
 * Refused requests never reach the rate limiter, whose hook comes after this one, so they are counted
 * here: a 403 against the caller's own limit (`chargeRefusal`), and a 401 against its address's allowance
 * of failures (`failureLimit`). An address that has spent that allowance is answered 429 for any token not
 * in the {@link PrincipalCache}, before the token is parsed or looked up, until the allowance refills;
 * callers authenticated from it recently carry on.
 */
export function auth(app: FastifyInstance, tokens: TokenStore, now: () => Date, options: AuthOptions): void {
  const principals = new PrincipalCache(tokens);
  const failures = failedAuthentications(options.failureLimit, now);
  const refusals: Refusals = { failures, charge: options.chargeRefusal ?? (() => true) };
  const cookieName = options.sessionCookie ?? sessionCookieName(true);
  // One record of session use for every route, so a session is touched once a minute however many it calls.
  const sessions = sessionUse(tokens, now);
  app.addHook('onRoute', (route) => {
    const requirement = route.config?.auth;
    if (requirement === undefined) {
      // Only the interactive reference's own routes (@fastify/swagger-ui, under /docs/) may leave it out.
      if (route.url === '/docs' || route.url.startsWith('/docs/')) return;
      throw new Error(`route ${String(route.method)} ${route.url} declares no config.auth`);
    }
    const schema = route.schema ?? {};
    const hasBody = schema.body !== undefined;
    const statuses = implicitErrorStatuses({
      authenticated: requirement !== false,
      hasInput: hasBody || schema.params !== undefined || schema.querystring !== undefined,
      // Fastify parses a body sent with any other method, so a DELETE too can be a 413 or a 415.
      readsBody: hasBody || [route.method].flat().some((method) => method !== 'GET' && method !== 'HEAD'),
    });
    route.schema = {
      ...schema,
      ...(requirement === false ? {} : { security: [{ bearer: requirement.scope === null ? [] : [requirement.scope, ...alsoOf(requirement)] }] }),
      // What the route documents itself wins (the OAuth token endpoint's own 400, for one).
      response: { ...errorResponses(...statuses), ...(schema.response as object) },
    };
    if (requirement !== false) appendOnRequest(route, authorizeFor(requirement, principals, refusals, tokens, now, cookieName, sessions));
  });
  app.decorateRequest('principal', undefined);
  app.decorateRequest('stillAllowed', undefined);
}

interface Refusals {
  readonly failures: FailedAuthentications;
  readonly charge: (request: FastifyRequest, reply: FastifyReply) => boolean;
}

/** The onRequest hook of a route that needs `requirement`. */
function authorizeFor(requirement: AccessRule, principals: PrincipalCache, refusals: Refusals, tokens: TokenStore, now: () => Date, cookieName: string, sessions: SessionUse): onRequestHookHandler {
  /** The requirement's scopes, and the membership of the path's project. */
  const permits = async (request: FastifyRequest, principal: Principal): Promise<void> => {
    if (requirement.scope === null) return;
    const projectId = requirement.project ? (request.params as { projectId?: string }).projectId : undefined;
    if (projectId !== undefined) await authorize(principal, { scope: requirement.scope, projectId }, tokens);
    else requireScope(principal, requirement.scope);
    for (const scope of alsoOf(requirement)) requireScope(principal, scope);
  };
  const admit = async (request: FastifyRequest, principal: Principal, header: string | undefined, cookie: string | undefined): Promise<void> => {
    if (cookie !== undefined) {
      // Only a console session may ride in the cookie; a personal access token is sent as a header.
      if (!principal.session) throw new UnauthorizedError('The session cookie holds no console session; sign in again.', { tokenPresented: true });
      checkCsrf(request, cookie);
    } else if (principal.session) {
      // A session works only through its cookie, where CSRF tokens guard it; copied into a header it would not.
      throw new UnauthorizedError('A console session is used only through its cookie, never as a bearer token.', { tokenPresented: true });
    }
    request.principal = principal;
    await permits(request, principal);
    // Only a request let through counts as use (a refused one does not keep a session alive).
    if (principal.session) sessions.touch(principal);
    request.stillAllowed = async () => {
      const again = principals.cached(header, now().getTime()) ?? (await principals.authenticate(header, now()));
      await permits(request, again);
      if (again.session) sessions.touch(again);
    };
  };
  /**
   * Counts a refusal where it belongs, then answers it (unless the count answered 429 already). A failed
   * authentication from an address that has spent its allowance of them is answered 429 instead of 401.
   */
  const refuse = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction, err: Error): void => {
    if (err instanceof UnauthorizedError) {
      const address = clientAddressKey(request.ip);
      const tooMany = refusals.failures.refusal(address);
      refusals.failures.count(address);
      return done(tooMany ?? err);
    }
    if (err instanceof ForbiddenError && !refusals.charge(request, reply)) return;
    done(err);
  };
  // Callback style: an async hook would cost a promise per request even when nothing needs waiting for.
  return (request, reply, done) => {
    let credential: { header: string | undefined; session?: string };
    try {
      credential = credentialOf(request, cookieName);
    } catch (err) {
      return refuse(request, reply, done, err as Error);
    }
    const { header, session } = credential;
    const known = principals.cached(header, now().getTime());
    // Project routes also check the membership, which the store answers asynchronously; sessions their CSRF token.
    if (known === undefined || requirement.project || session !== undefined || known.session) {
      // A token that authenticates is let through whatever its address's failures: behind one ingress or NAT,
      // another client's bad tokens must not lock everyone out (tokens are too long to guess, so admitting a
      // valid one teaches a guesser nothing useful; only failures are refused past the allowance).
      const admitted = known ? admit(request, known, header, session) : principals.authenticate(header, now()).then((principal) => admit(request, principal, header, session));
      admitted.then(
        () => done(),
        (err: Error) => refuse(request, reply, done, err),
      );
      return;
    }
    // The common case without a promise: a caller seen before, on a route outside any project.
    request.principal = known;
    try {
      if (requirement.scope !== null) requireScope(known, requirement.scope);
      for (const scope of alsoOf(requirement)) requireScope(known, scope);
    } catch (err) {
      return refuse(request, reply, done, err as Error);
    }
    done();
  };
}

type AccessRule = Exclude<RouteAuth, false>;

function alsoOf(requirement: AccessRule): readonly Scope[] {
  return 'also' in requirement ? (requirement.also ?? []) : [];
}

/** How often a session's `lastUsedAt` is written at most (a quarter of its idle timeout when that is shorter). */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * Records that sessions are in use (`TokenStore.touchToken`), at most once a minute each, in the
 * background: their idle expiry counts from there. A failed write only makes a session look idle sooner.
 */
interface SessionUse {
  touch(principal: Principal): void;
}

function sessionUse(tokens: TokenStore, now: () => Date): SessionUse {
  const pending = new Set<string>();
  return {
    touch(principal) {
      const session = principal.session;
      if (!session || pending.has(principal.tokenId)) return;
      const at = now();
      const interval = Math.min(TOUCH_INTERVAL_MS, (session.idleUntil.getTime() - session.lastUsedAt.getTime()) / 4);
      if (at.getTime() - session.lastUsedAt.getTime() < interval) return;
      pending.add(principal.tokenId);
      tokens
        .touchToken(principal.tokenId, at)
        .catch(() => false)
        .finally(() => pending.delete(principal.tokenId));
    },
  };
}

interface FailedAuthentications {
  /** The 429 for an address that has spent its allowance of failed authentications, else `undefined`. */
  refusal(address: string): PublicError | undefined;
  /** Counts a failed authentication against `address`. */
  count(address: string): void;
}

function failedAuthentications(limit: RateLimitOptions, now: () => Date): FailedAuthentications {
  const buckets = new TokenBuckets(limit, (limit.maxCallers ?? 100_000) / 2, () => now().getTime());
  return {
    refusal: (address) => {
      if (buckets.hasRoom(address)) return undefined;
      const retryAfter = buckets.retryAfterSeconds(address);
      return new PublicError(429, `Too many requests with a missing or invalid token from this address (limit: ${describeRate(limit.perSecond)}); retry in ${retryAfter} s.`, {
        'retry-after': String(retryAfter),
      });
    },
    count: (address) => void buckets.take(address),
  };
}
