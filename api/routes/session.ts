// People signing in to the web console: a local account's password gives a session (an access token in an
// HttpOnly cookie, src/auth/sessions.ts); the console reads its CSRF token here and signs out here.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ForbiddenError } from '../../src/auth/errors.ts';
import { checkPasswordPolicy, hashPassword, PasswordPolicyError, verifyPassword } from '../../src/auth/passwords.ts';
import type { PasswordStore, TokenStore } from '../../src/auth/ports.ts';
import { activeSessions, csrfTokenFor, endAllSessions, signInWithPassword, type SessionPolicy } from '../../src/auth/sessions.ts';
import { BadRequestError, NotFoundError, PublicError } from '../../src/errors.ts';
import { principalOf, sessionCookieName, sessionCookieOf, sessionSetCookie } from '../plugins/auth.ts';
import { clientAddressKey } from '../../src/client-address.ts';
import { deviceOf, deviceSetCookie } from './device-cookie.ts';
import { UserParams } from '../schemas/user.ts';
import { TokenBuckets, type RateLimitOptions } from '../plugins/token-buckets.ts';
import { errorResponses } from '../schemas/problem.ts';

const tags = ['session'];

/** Per address: ten attempts, then one every ten seconds (a person mistyping is never held up). */
export const SIGN_IN_RATE_LIMIT: RateLimitOptions = { perSecond: 0.1, burst: 10 };
/**
 * Attempts per user from one address: five, then one a minute. Per user from all addresses together: thirty,
 * then one every ten seconds, so guessing from many addresses stays slow while one address guessing cannot
 * lock the user out of signing in from anywhere else. A browser that signed in as the user before (its device
 * cookie, device-cookie.ts) is counted on its own instead, five then one a minute: guesses from many addresses
 * cannot lock the person out of their own browser. Counted before the password is checked, so concurrent
 * attempts cannot slip past.
 */
const ATTEMPTS_PER_USER_AND_ADDRESS = { perSecond: 1 / 60, burst: 5 };
const ATTEMPTS_PER_USER = { perSecond: 1 / 10, burst: 30 };

export interface SessionRouteOptions {
  policy: SessionPolicy;
  /** Mark the cookie Secure (HTTPS only); off only where the API is served over plain HTTP (local dev). */
  secureCookies: boolean;
  signInRateLimit?: RateLimitOptions;
  /** The label of the OpenID Connect sign-in, when one is configured (routes/session-openid.ts). */
  openIdName?: string;
}

const Password = Type.String({ minLength: 1, maxLength: 1024, description: 'The password (at least 12 characters when set).' });
const SessionView = Type.Object({
  user_id: Type.String(),
  csrf_token: Type.String({ description: 'Send it as `x-csrf-token` with every state-changing request made with the session cookie.' }),
  expires_at: Type.String({ format: 'date-time', description: 'The session ends then, whatever happens.' }),
  idle_timeout_seconds: Type.Integer({ description: 'The session ends this long after its last use.' }),
});

export function sessionRoutes(app: FastifyInstance, tokens: TokenStore, passwords: PasswordStore, now: () => Date, options: SessionRouteOptions): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const clock = () => now().getTime();
  const perUserAndAddress = new TokenBuckets(ATTEMPTS_PER_USER_AND_ADDRESS, 10_000, clock);
  const perUser = new TokenBuckets(ATTEMPTS_PER_USER, 10_000, clock);
  const perDevice = new TokenBuckets(ATTEMPTS_PER_USER_AND_ADDRESS, 10_000, clock);
  /** Counts an attempt for `user` from the request's address, or its `device`; a 429 once an allowance is spent. */
  const attempt = (request: FastifyRequest, user: string, device: string | undefined): void => {
    const pair = `${user}\n${clientAddressKey(request.ip)}`;
    const allowances: ReadonlyArray<readonly [TokenBuckets, string]> = device
      ? [[perDevice, `${user}\n${device}`]]
      : [
          [perUserAndAddress, pair],
          [perUser, user],
        ];
    for (const [buckets, key] of allowances) {
      if (buckets.take(key) === undefined) throw new PublicError(429, 'Too many sign-in attempts for this user; try again in a minute.', { 'retry-after': String(buckets.retryAfterSeconds(key)) });
    }
  };
  const sessionCookie = sessionCookieName(options.secureCookies);
  const cookie = (value: string, maxAgeSeconds: number): string => sessionSetCookie(options.secureCookies, value, maxAgeSeconds);
  const view = (token: string, userId: string, expiresAt: Date | undefined) => ({
    user_id: userId,
    csrf_token: csrfTokenFor(token),
    expires_at: (expiresAt ?? now()).toISOString(),
    idle_timeout_seconds: options.policy.idleTimeoutSeconds,
  });

  r.get('/v1/session/methods', {
    config: { auth: false },
    schema: {
      tags,
      summary: 'How people can sign in to the console: with a password, and through which OpenID Connect provider if any',
      response: {
        200: Type.Object({
          password: Type.Boolean(),
          openid: Type.Union([Type.Object({ name: Type.String(), url: Type.String({ description: 'Send the browser here to sign in.' }) }), Type.Null()]),
        }),
        ...errorResponses(500),
      },
    },
    handler: async () => ({ password: true, openid: options.openIdName ? { name: options.openIdName, url: '/v1/session/openid' } : null }),
  });

  r.post('/v1/session', {
    config: { auth: false, rateLimit: options.signInRateLimit ?? SIGN_IN_RATE_LIMIT },
    schema: {
      tags,
      summary: 'Sign in to the web console with a local account: sets the session cookie (HttpOnly) and returns its CSRF token',
      description:
        'Public. An unknown user and a wrong password answer the same 401. Ten attempts per address, then one every ten seconds; per user, five attempts from one address then one a minute, thirty from all addresses then one every ten seconds (429 with Retry-After). A browser that signed in as the user before carries a device cookie (set with the session) and is counted on its own instead, five attempts then one a minute, so guesses from elsewhere do not lock it out.',
      body: Type.Object({ user: Type.String({ minLength: 1, maxLength: 253 }), password: Password }, { additionalProperties: false }),
      response: { 200: Type.Object({ session: SessionView }), ...errorResponses(401, 429, 500) },
    },
    handler: async (request, reply) => {
      const { user, password } = request.body;
      // Read for every attempt, known user or not, as the password check reads it: the answer takes as long.
      const reading = passwords.getPasswordHash(user).catch(() => undefined);
      const stored = await reading;
      attempt(request, user, deviceOf(request.headers.cookie, options.secureCookies, user, stored));
      const session = await signInWithPassword(user, password, { tokens, passwords, storedHash: reading }, options.policy, now());
      request.log.info({ token_id: session.record.id, user }, 'console sign-in');
      const cookies = [cookie(session.token, options.policy.maxAgeSeconds), ...(stored ? [deviceSetCookie(options.secureCookies, user, stored)] : [])];
      void reply.header('cache-control', 'no-store').header('set-cookie', cookies);
      return { session: view(session.token, session.record.userId, session.record.expiresAt) };
    },
  });

  r.get('/v1/session', {
    config: { auth: { scope: null } },
    schema: {
      tags,
      summary: 'The console session making this request, with its CSRF token (404 for a personal access token)',
      response: { 200: Type.Object({ session: SessionView }), ...errorResponses(404, 500) },
    },
    handler: async (request, reply) => {
      const principal = principalOf(request);
      const token = sessionCookieOf(request, sessionCookie);
      if (!principal.session || !token) throw new NotFoundError('This request is not signed in with a console session.');
      void reply.header('cache-control', 'no-store');
      return { session: view(token, principal.userId, principal.expiresAt) };
    },
  });

  r.delete('/v1/session', {
    // Never held back by the caller's requests in flight, which a leaked token could fill.
    config: { auth: { scope: null }, countsInFlight: false },
    schema: {
      tags,
      summary: 'Sign out of the console: revokes the session making the request and clears the cookie (404 for a personal access token: DELETE /v1/user/token revokes those)',
      response: { 204: Type.Null(), ...errorResponses(404, 500) },
    },
    handler: async (request, reply) => {
      const principal = principalOf(request);
      if (!principal.session) throw new NotFoundError('This request is not signed in with a console session.');
      await tokens.revokeToken(principal.tokenId);
      return reply.code(204).header('set-cookie', cookie('', 0)).send(null);
    },
  });

  r.delete('/v1/sessions', {
    // Sessions are the caller's credentials: a token that may not manage tokens (a CI token) may not end them. Never
    // held back by the caller's requests in flight, which a leaked token could fill.
    config: { auth: { scope: 'tokens:write' }, countsInFlight: false },
    schema: {
      tags,
      summary: 'Sign out everywhere: revokes every console session of the caller (personal access tokens stay); needs `tokens:write`, which a console session holds',
      response: { 200: Type.Object({ ended: Type.Integer({ description: 'Sessions revoked.' }) }), ...errorResponses(500) },
    },
    handler: async (request, reply) => {
      const ended = await endAllSessions(principalOf(request).userId, tokens, now());
      void reply.header('set-cookie', cookie('', 0));
      return { ended };
    },
  });

  r.put('/v1/user/password', {
    config: { auth: { scope: null } },
    schema: {
      tags,
      summary: 'Change your own password (the current one is needed; a user without one asks an administrator)',
      body: Type.Object({ current_password: Password, new_password: Password }, { additionalProperties: false }),
      response: { 204: Type.Null(), ...errorResponses(400, 403, 500) },
    },
    handler: async (request, reply) => {
      const principal = principalOf(request);
      // A token (a script's, a device's) never changes the password a person signs in with.
      if (!principal.session) throw new ForbiddenError('Change your password signed in to the console, not with an access token.');
      const stored = await passwords.getPasswordHash(principal.userId);
      attempt(request, principal.userId, deviceOf(request.headers.cookie, options.secureCookies, principal.userId, stored));
      if (!stored || !(await verifyPassword(request.body.current_password, stored))) throw new ForbiddenError('The current password is wrong.');
      const changed = await hashed(request.body.new_password);
      await passwords.setPasswordHash(principal.userId, changed, (await tokens.getUser(principal.userId))?.uid);
      // Whoever else was signed in with the old password is signed out.
      const others = (await activeSessions(principal.userId, tokens, now())).filter((t) => t.id !== principal.tokenId);
      await Promise.all(others.map((t) => tokens.revokeToken(t.id)));
      // Device cookies are keyed with the password hash: this browser's is made again with the new one.
      return reply
        .code(204)
        .header('set-cookie', deviceSetCookie(options.secureCookies, principal.userId, changed))
        .send(null);
    },
  });

  r.put('/v1/users/:userId/password', {
    config: { auth: { scope: 'admin' } },
    schema: {
      tags,
      summary: 'Set a user’s password (administrators): they can then sign in to the console with it, and every session they had ends (a reset is how a stolen session is cut off)',
      params: UserParams,
      body: Type.Object({ password: Password }, { additionalProperties: false }),
      response: { 204: Type.Null(), ...errorResponses(400, 404, 500) },
    },
    handler: async (request, reply) => {
      const user = await tokens.getUser(request.params.userId);
      if (!user) throw new NotFoundError(`No user ${JSON.stringify(request.params.userId)}.`);
      await passwords.setPasswordHash(user.id, await hashed(request.body.password), user.uid);
      const ended = await endAllSessions(user.id, tokens, now());
      request.log.info({ user: user.id, sessionsEnded: ended }, 'password set by an administrator');
      return reply.code(204).send(null);
    },
  });
}

async function hashed(password: string): Promise<string> {
  try {
    checkPasswordPolicy(password);
  } catch (err) {
    if (err instanceof PasswordPolicyError) throw new BadRequestError(err.message);
    throw err;
  }
  return hashPassword(password);
}
