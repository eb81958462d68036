// Sign-in to the console through an OpenID Connect provider (configured with CW_OIDC_*): the browser leaves
// for the provider and comes back with a code, which becomes a console session (routes/session.ts).
import { parseCookie, stringifySetCookie } from 'cookie';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { UnauthorizedError } from '../../src/auth/errors.ts';
import { OpenIdSignInError, type OpenIdClient, type PendingSignIn } from '../../src/auth/openid.ts';
import type { TokenStore } from '../../src/auth/ports.ts';
import { startSession, type SessionPolicy } from '../../src/auth/sessions.ts';
import { BadRequestError, PublicError } from '../../src/errors.ts';
import type { UserDirectory } from '../services/users.ts';
import { sessionSetCookie } from '../plugins/auth.ts';
import type { RateLimitOptions } from '../plugins/token-buckets.ts';
import { errorResponses } from '../schemas/problem.ts';
import { SIGN_IN_RATE_LIMIT } from './session.ts';

const tags = ['session'];
const PENDING_PATH = '/v1/session/openid';
/** Ten minutes to sign in at the provider. */
const PENDING_MAX_AGE = 600;
/** Where a person lands after signing in, unless the console asked for a page of its own. */
export const CONSOLE_HOME = '/console/';
/**
 * A path on this origin: one leading slash, never two or a backslash (`//evil.example` and `/\\evil.example` are
 * other origins to browsers), printable ASCII only (it becomes a Location header).
 */
const LOCAL_PATH = '^/(?![/\\\\])[\\x21-\\x7e]*$';

export interface OpenIdRouteOptions {
  policy: SessionPolicy;
  secureCookies: boolean;
  /** Create a user for an account that matches none (CW_OIDC_CREATE_USERS, default false). */
  createUsers: boolean;
  signInRateLimit?: RateLimitOptions;
}

export function openIdRoutes(app: FastifyInstance, client: OpenIdClient, users: UserDirectory, tokens: TokenStore, now: () => Date, options: OpenIdRouteOptions): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  // `__Host-` over HTTPS, as the session cookie: no sibling domain can plant a sign-in of its own.
  const pendingName = options.secureCookies ? '__Host-cw_openid' : 'cw_openid';
  const pendingCookie = (value: string, maxAge: number): string =>
    // Lax, not Strict: the browser comes back from the provider by a cross-site navigation, which must carry it.
    stringifySetCookie({ name: pendingName, value, httpOnly: true, sameSite: 'lax', path: '/', secure: options.secureCookies, maxAge });

  r.get(PENDING_PATH, {
    config: { auth: false, rateLimit: options.signInRateLimit ?? SIGN_IN_RATE_LIMIT },
    schema: {
      tags,
      summary: `Sign in to the console with ${client.settings.name} (OpenID Connect): redirects to the provider`,
      querystring: Type.Object(
        { return_to: Type.Optional(Type.String({ maxLength: 1024, pattern: LOCAL_PATH, description: 'A path of this site to land on afterwards.' })) },
        { additionalProperties: false },
      ),
      response: { 302: Type.Null({ description: 'To the provider.' }), ...errorResponses(502, 500) },
    },
    handler: async (request, reply) => {
      const { url, pending } = await client.start(request.query.return_to ?? CONSOLE_HOME).catch(providerDown);
      return reply
        .code(302)
        .header('location', url)
        .header('cache-control', 'no-store')
        .header('set-cookie', pendingCookie(Buffer.from(JSON.stringify(pending)).toString('base64url'), PENDING_MAX_AGE))
        .send(null);
    },
  });

  r.get(`${PENDING_PATH}/callback`, {
    config: { auth: false, rateLimit: options.signInRateLimit ?? SIGN_IN_RATE_LIMIT },
    schema: {
      tags,
      summary: 'Where the OpenID provider sends the browser back: starts the console session and redirects into the console',
      querystring: Type.Object(
        {
          code: Type.Optional(Type.String({ maxLength: 2048 })),
          state: Type.Optional(Type.String({ maxLength: 512 })),
          error: Type.Optional(Type.String({ maxLength: 256 })),
          error_description: Type.Optional(Type.String({ maxLength: 1024 })),
        },
        { additionalProperties: true },
      ),
      response: { 302: Type.Null({ description: 'Into the console, signed in.' }), ...errorResponses(400, 401, 403, 502, 500) },
    },
    handler: async (request, reply) => {
      const pending = readPending(request.headers.cookie, pendingName);
      if (!pending) throw new BadRequestError('This sign-in took longer than ten minutes or began in another browser; start it again.');
      if (request.query.error) throw new UnauthorizedError(`The OpenID provider refused the sign-in: ${request.query.error_description ?? request.query.error}`, { tokenPresented: false });
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      let account;
      try {
        account = await client.finish(new URL(`${client.settings.redirectUri}${query}`), pending);
      } catch (err) {
        if (err instanceof OpenIdSignInError) throw new UnauthorizedError(err.message, { tokenPresented: false });
        throw err;
      }
      const userId = await users.userForOpenId(account, options.createUsers);
      const session = await startSession(userId, 'openid', tokens, options.policy, now());
      request.log.info({ token_id: session.record.id, user: userId }, 'console sign-in through OpenID Connect');
      const cookies = [sessionSetCookie(options.secureCookies, session.token, options.policy.maxAgeSeconds), pendingCookie('', 0)];
      return reply.code(302).header('location', pending.returnTo).header('cache-control', 'no-store').header('set-cookie', cookies).send(null);
    },
  });
}

function readPending(cookieHeader: string | undefined, name: string): PendingSignIn | undefined {
  const raw = cookieHeader ? parseCookie(cookieHeader)[name] : undefined;
  if (!raw) return undefined;
  try {
    const value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<PendingSignIn>;
    const ok = [value.state, value.nonce, value.verifier, value.returnTo].every((v) => typeof v === 'string') && new RegExp(LOCAL_PATH).test(value.returnTo ?? '');
    return ok ? (value as PendingSignIn) : undefined;
  } catch {
    return undefined;
  }
}

function providerDown(err: unknown): never {
  if (err instanceof OpenIdSignInError) throw new PublicError(502, err.message);
  throw err;
}
