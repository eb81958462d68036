// People's sign-ins to the web console. A session is an access token (so revocation, the principal cache,
// listing and every route work for it unchanged) marked as a session: it lives in an HttpOnly cookie, never
// in the page, expires after `maxAgeSeconds` and after `idleTimeoutSeconds` without use, and state-changing
// requests made with it must carry its CSRF token (api/plugins/auth.ts).
import { createHash } from 'node:crypto';
import { UnauthorizedError } from './errors.ts';
import { verifyAgainstDecoy, verifyPassword } from './passwords.ts';
import type { PasswordStore, TokenRecord, TokenStore } from './ports.ts';
import { SCOPE_NAMES } from './scopes.ts';
import { generateToken, hashToken, newTokenId, type PlaintextToken } from './token.ts';
import { pruneInactiveTokensQuietly } from './personal-tokens.ts';

export interface SessionPolicy {
  /** Refused once unused this long (OWASP: 15–30 minutes for high-value apps; an hour here). */
  readonly idleTimeoutSeconds: number;
  /** Refused this long after sign-in whatever happens (a working day). */
  readonly maxAgeSeconds: number;
}

export const DEFAULT_SESSION_POLICY: SessionPolicy = { idleTimeoutSeconds: 3600, maxAgeSeconds: 12 * 3600 };

/** What a person can do in the console: everything a member can, never `admin` (that needs a token made for it). */
export const SESSION_SCOPES = SCOPE_NAMES.filter((scope) => scope !== 'admin');

export interface Session {
  readonly token: PlaintextToken;
  readonly record: TokenRecord;
}

/** What starting a session reads and writes: the user, and their tokens (the new session, the oldest ended, the dead pruned). */
export type SessionTokens = Pick<TokenStore, 'getUser' | 'createToken' | 'listTokens' | 'revokeToken' | 'deleteToken'>;

/**
 * Mints a session for `userId`, who has just proven who they are (`method` says how, for their token list), and
 * ends their oldest sessions past {@link MAX_SESSIONS_PER_USER} and prunes their dead tokens, whatever the way in:
 * a sign-in loop, by any method, cannot fill the cluster.
 */
export async function startSession(userId: string, method: 'password' | 'openid', tokens: SessionTokens, policy: SessionPolicy, now: Date): Promise<Session> {
  const user = await tokens.getUser(userId);
  if (!user) throw new UnauthorizedError('Unknown user or wrong password.', { tokenPresented: false });
  const token = generateToken();
  const record: TokenRecord = {
    id: newTokenId(),
    userId,
    ...(user.uid ? { userUid: user.uid } : {}),
    tokenHash: hashToken(token),
    scopes: SESSION_SCOPES,
    description: `Console sign-in (${method === 'password' ? 'password' : 'OpenID Connect'})`,
    createdAt: now,
    expiresAt: new Date(now.getTime() + policy.maxAgeSeconds * 1000),
    revoked: false,
    session: { idleTimeoutSeconds: policy.idleTimeoutSeconds },
  };
  await tokens.createToken(record);
  await capSessions(userId, record.id, tokens, now).catch(() => undefined);
  await pruneInactiveTokensQuietly(tokens, userId, now);
  return { token, record };
}

/** Active sessions one user may hold; signing in past that ends the oldest (a sign-in loop cannot fill the cluster). */
export const MAX_SESSIONS_PER_USER = 20;

/**
 * Ends the user's oldest active sessions beyond {@link MAX_SESSIONS_PER_USER}, never `started` (the one just made):
 * sessions started in the same second are stored as equally old, so age alone could pick the new one.
 */
async function capSessions(userId: string, started: string, tokens: Pick<TokenStore, 'listTokens' | 'revokeToken'>, now: Date): Promise<void> {
  const others = (await activeSessions(userId, tokens, now)).filter((t) => t.id !== started).sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  await Promise.all(others.slice(MAX_SESSIONS_PER_USER - 1).map((t) => tokens.revokeToken(t.id)));
}

/**
 * Checks a local account's password and starts a session. An unknown user, a user without a password and a
 * wrong password answer alike and take as long (a decoy hash is verified), so accounts cannot be probed.
 * `storedHash`: the user's stored hash when the caller read it already (the sign-in route, for its device cookie).
 */
export async function signInWithPassword(
  userId: string,
  password: string,
  deps: { tokens: SessionTokens; passwords: PasswordStore; storedHash?: Promise<string | undefined> },
  policy: SessionPolicy,
  now: Date,
): Promise<Session> {
  // Both lookups whether or not the user exists, so an unknown user takes as long as a known one.
  const [user, stored] = await Promise.all([deps.tokens.getUser(userId), deps.storedHash ?? deps.passwords.getPasswordHash(userId).catch(() => undefined)]);
  const hash = user ? stored : undefined;
  const ok = hash ? await verifyPassword(password, hash) : await verifyAgainstDecoy(password);
  if (!ok) throw new UnauthorizedError('Unknown user or wrong password.', { tokenPresented: false });
  return startSession(userId, 'password', deps.tokens, policy, now);
}

/**
 * The CSRF token of a session: derived from the session token, which only the browser's cookie jar holds
 * (HttpOnly), so a page of another origin can neither read nor compute it. The console reads it from
 * `GET /v1/session` and sends it as `x-csrf-token` with every state-changing request.
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHash('sha256').update(`cloudwright-csrf:${sessionToken}`).digest('base64url');
}

/** The user's sessions neither revoked nor past their absolute expiry. */
export async function activeSessions(userId: string, tokens: Pick<TokenStore, 'listTokens'>, now: Date): Promise<TokenRecord[]> {
  return (await tokens.listTokens(userId)).filter((t) => t.session && !t.revoked && (!t.expiresAt || t.expiresAt.getTime() > now.getTime()));
}

/** Revokes every active session of the user ("sign out everywhere"); returns how many. */
export async function endAllSessions(userId: string, tokens: Pick<TokenStore, 'listTokens' | 'revokeToken'>, now: Date): Promise<number> {
  const active = await activeSessions(userId, tokens, now);
  await Promise.all(active.map((t) => tokens.revokeToken(t.id)));
  return active.length;
}
