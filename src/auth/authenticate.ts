import { ForbiddenError, UnauthorizedError } from './errors.ts';
import type { TokenStore } from './ports.ts';
import { effectiveScopes, hasScope, type Scope } from './scopes.ts';
import { hashToken, parseToken, tokenHashesEqual, type PlaintextToken, type TokenRejection } from './token.ts';
import { NotFoundError } from '../errors.ts';

/** Who is calling, as established by {@link authenticate}. */
export interface Principal {
  readonly userId: string;
  /** The incarnation of the user (their `uid`): one deleted and created again under the same id is another. */
  readonly userUid?: string | undefined;
  /** For audit logs and for "this token" operations; never the token itself. */
  readonly tokenId: string;
  /** The token's effective scopes: catalog names only, `admin` only for administrators. */
  readonly scopes: readonly Scope[];
  /** The user is a platform administrator and the token carries the `admin` scope. */
  readonly admin: boolean;
  /** When the token expires; absent for a token that does not. What it makes or approves expires by then too. */
  readonly expiresAt?: Date;
  /**
   * A person's console sign-in (cookie), not a personal access token: refused from `idleUntil` on unless used
   * again, and what it makes or approves is not bound to its own expiry (a person signed in may make a
   * long-lived token, as on GitHub).
   */
  readonly session?: { readonly idleUntil: Date; readonly lastUsedAt: Date };
}

const REJECTION_DETAIL: Record<TokenRejection, string> = {
  prefix: 'The bearer token is not a Cloudwright access token; those start with cwt_.',
  format: 'The access token is malformed: expected cwt_ followed by 40 letters and digits.',
  checksum: 'The access token is invalid: its checksum does not match, so it was probably mistyped or cut short.',
};

/**
 * Turns an `Authorization` header into a {@link Principal}: {@link bearerToken}, then
 * {@link resolvePrincipal} of its hash.
 *
 * Every failure is a 401 whose `detail` never contains the presented credential. Expired, revoked and
 * unknown tokens get distinct details: only someone holding the exact secret can see them, and telling a
 * user "revoked" instead of "invalid" saves a support round-trip.
 *
 * @throws UnauthorizedError when the header is missing, not `Bearer`, or the token is malformed, fails its
 *   checksum, is unknown, expired or revoked, or belongs to a user that no longer exists.
 */
export async function authenticate(authorizationHeader: string | undefined, store: Pick<TokenStore, 'findTokenByHash' | 'getUser'>, now: Date): Promise<Principal> {
  return resolvePrincipal(hashToken(bearerToken(authorizationHeader)), store, now);
}

/**
 * The token an `Authorization` header carries, its shape and checksum checked (no lookup).
 *
 * @throws UnauthorizedError when the header is missing, not `Bearer`, or the token is malformed or fails
 *   its checksum.
 */
export function bearerToken(authorizationHeader: string | undefined): PlaintextToken {
  const header = authorizationHeader?.trim() ?? '';
  if (header === '') throw absent('This route needs an access token: send "Authorization: Bearer cwt_…".');
  const parts = header.split(WHITESPACE);
  // RFC 9110 §11.1: the scheme name is case-insensitive.
  if ((parts[0] ?? '').toLowerCase() !== 'bearer') {
    throw absent('The Authorization header must use the Bearer scheme: "Authorization: Bearer cwt_…".');
  }
  if (parts.length === 1) throw absent('The Authorization header names the Bearer scheme but carries no token.');
  // A header sent twice arrives joined by a comma (api/plugins/http-server.ts); no token holds one.
  if (header.includes(',')) throw presented('The request carries more than one Authorization header or credential; send exactly one.');
  if (parts.length > 2) throw presented(REJECTION_DETAIL.format);

  const parsed = parseToken(parts[1] ?? '');
  if (!parsed.ok) throw presented(REJECTION_DETAIL[parsed.reason]);
  return parsed.token;
}

/**
 * The principal of the stored token whose hash is `tokenHash`, as of `now`.
 *
 * @throws UnauthorizedError when no token has that hash, or it is revoked or expired, or its user no
 *   longer exists.
 */
export async function resolvePrincipal(tokenHash: string, store: Pick<TokenStore, 'findTokenByHash' | 'getUser'>, now: Date): Promise<Principal> {
  const record = await store.findTokenByHash(tokenHash);
  // Re-checked here so a store that matched loosely (a prefix, another case) cannot let a token through.
  if (!record || !tokenHashesEqual(record.tokenHash, tokenHash)) throw presented('The access token is not recognised.');
  if (record.revoked) throw presented('The access token has been revoked.');
  // Expired from the instant `expiresAt` on, like a JWT `exp` (RFC 7519 §4.1.4).
  if (record.expiresAt && now.getTime() >= record.expiresAt.getTime()) throw presented('The access token has expired.');

  const user = await store.getUser(record.userId);
  // A token bound to an earlier user of the same id (deleted, then created again) is that user's, and gone
  // with it: however it escaped the deletion's revocations (made on another replica a moment before, say).
  const sameUser = user !== undefined && (record.userUid === undefined || user.uid === undefined || record.userUid === user.uid);
  if (!sameUser) throw presented("The access token's user no longer exists.");

  // Least privilege: an administrator's everyday token without `admin` acts as an ordinary member, and a
  // user who lost administrator rights keeps no `admin` power through tokens minted before.
  const scopes = effectiveScopes(record.scopes, user.admin);
  const principal = {
    userId: user.id,
    ...(user.uid ? { userUid: user.uid } : {}),
    tokenId: record.id,
    scopes,
    admin: scopes.includes('admin'),
    ...(record.expiresAt ? { expiresAt: record.expiresAt } : {}),
  };
  if (!record.session) return principal;
  const lastUsedAt = record.lastUsedAt ?? record.createdAt;
  const idleUntil = new Date(lastUsedAt.getTime() + record.session.idleTimeoutSeconds * 1000);
  if (now.getTime() >= idleUntil.getTime()) throw presented(`The session expired after ${Math.round(record.session.idleTimeoutSeconds / 60)} minutes without use; sign in again.`);
  return { ...principal, session: { idleUntil, lastUsedAt } };
}

const WHITESPACE = /\s+/;
const absent = (reason: string): UnauthorizedError => new UnauthorizedError(reason, { tokenPresented: false });
const presented = (reason: string): UnauthorizedError => new UnauthorizedError(reason, { tokenPresented: true });

/** What an operation needs: a scope, and for project routes the project. */
export interface AccessRequirement {
  readonly scope: Scope;
  readonly projectId?: string | undefined;
}

/**
 * Checks that the principal may perform an operation; resolves when it may.
 *
 * The scope is checked first: it needs no lookup and its answer says nothing about the project. A project
 * the user is not a member of and a project that does not exist answer the same 403, so a token cannot be
 * used to probe which project ids exist. Administrators (see {@link Principal.admin}) pass the membership
 * check for every project that exists; one that does not is a 404, which tells an administrator nothing
 * they could not list anyway, and keeps their project routes out of namespaces that are no project's
 * (`default`, `kube-system`).
 *
 * @throws ForbiddenError naming the missing scope, or refusing the project.
 * @throws NotFoundError to an administrator, for a project that does not exist.
 */
export async function authorize(principal: Principal, requirement: AccessRequirement, store: Pick<TokenStore, 'getMembership' | 'hasProject'>): Promise<void> {
  const { scope, projectId } = requirement;
  requireScope(principal, scope);
  if (projectId === undefined) return;
  if (principal.admin) {
    if (!(await store.hasProject(projectId))) throw new NotFoundError(`The project ${quoteId(projectId)} does not exist.`);
    return;
  }
  const role = await store.getMembership(projectId, principal.userId);
  if (role === undefined) {
    throw new ForbiddenError(`The project ${quoteId(projectId)} does not exist or you are not a member of it.`);
  }
}

/**
 * The scope half of {@link authorize}, for operations outside any project (token management, admin routes).
 * `admin` is held only by administrators (see {@link Principal.admin}).
 *
 * @throws ForbiddenError naming the missing scope.
 */
export function requireScope(principal: Principal, scope: Scope): void {
  const held = scope === 'admin' ? principal.admin : hasScope(principal.scopes, scope);
  if (!held) throw new ForbiddenError(`This token lacks the scope ${scope}.`, { missingScope: scope });
}

// The id comes from the request path; bound what we echo.
function quoteId(id: string): string {
  return JSON.stringify(id.length > 63 ? `${id.slice(0, 63)}…` : id);
}
