import { oldestBeyond } from '../collections/retention.ts';
import { requireScope, type Principal } from './authenticate.ts';
import { UnauthorizedError } from './errors.ts';
import { assertCanGrant, expiryWithin, issueToken, type IssuedToken } from './issue-token.ts';
import type { TokenRecord, TokenStore } from './ports.ts';
import { knownScopes, parseScopes, type Scope } from './scopes.ts';
import { ConflictError, NotFoundError } from '../errors.ts';

// The use cases behind the token routes: a user manages their own tokens. No project is involved.

/** A token as listings show it: never the plaintext, never the hash. */
export interface TokenSummary {
  readonly id: string;
  readonly description: string;
  readonly scopes: readonly Scope[];
  readonly createdAt: Date;
  readonly expiresAt?: Date | undefined;
  readonly state: 'active' | 'expired' | 'revoked';
  /** A console sign-in rather than a personal access token. */
  readonly session: boolean;
}

/** A request to create a personal access token, as the route receives it. */
export interface PersonalTokenRequest {
  readonly scopes: string | readonly string[];
  readonly description: string;
  readonly expiresAt?: Date | undefined;
}

/**
 * Active tokens one user may hold. Each is an object in the cluster and a rate-limit bucket of its own:
 * without a cap, one user could fill the control plane, or spread requests over fresh buckets.
 */
export const MAX_ACTIVE_TOKENS_PER_USER = 100;

/**
 * Revoked and expired tokens kept per user, so the owner can see what happened to them (GitHub shows a
 * revoked token no more; we keep the recent ones). Older ones are deleted as new tokens are made: without
 * a bound, creating and revoking tokens in a loop would fill the control plane with dead objects.
 */
export const MAX_INACTIVE_TOKENS_KEPT = 100;
/** Inactive tokens deleted at most per token made: a bound on the work one request does. */
const MAX_PRUNED_PER_CALL = 10;

/**
 * Creates a token for the caller's own user with at most the caller's scopes.
 *
 * @throws BadRequestError for unknown or missing scopes or a bad description or expiry.
 * @throws ForbiddenError without `tokens:write` or when asking for a scope the caller lacks.
 * @throws ConflictError when the user already holds {@link MAX_ACTIVE_TOKENS_PER_USER} active tokens.
 */
export async function createPersonalToken(
  principal: Principal,
  request: PersonalTokenRequest,
  store: Pick<TokenStore, 'createToken' | 'listTokens' | 'deleteToken' | 'getUser'>,
  now: Date,
): Promise<IssuedToken> {
  const scopes = parseScopes(request.scopes);
  assertCanGrant(principal, scopes);
  // Read now, not when the caller authenticated: the token is bound to the user as it is (its uid).
  const user = await store.getUser(principal.userId);
  if (!user) throw new UnauthorizedError("The access token's user no longer exists.", { tokenPresented: true });
  const active = await countActiveTokens(store, principal.userId, now);
  if (active >= MAX_ACTIVE_TOKENS_PER_USER) {
    throw new ConflictError(`You hold ${active} active tokens, the most a user may; revoke some (DELETE /v1/tokens/{tokenId}) before creating another.`);
  }
  const expiresAt = expiryWithin(principal, request.expiresAt);
  const issued = await issueToken(principal.userId, { scopes, description: request.description, expiresAt, userUid: user.uid }, store, now);
  await pruneInactiveTokensQuietly(store, principal.userId, now);
  return issued;
}

/**
 * Deletes `userId`'s oldest revoked or expired tokens beyond {@link MAX_INACTIVE_TOKENS_KEPT}, at most
 * {@link MAX_PRUNED_PER_CALL} of them; called as each token is made, so every user's stored tokens stay
 * within the active cap plus the inactive ones kept. Answers how many it deleted.
 */
export async function pruneInactiveTokens(store: Pick<TokenStore, 'listTokens' | 'deleteToken'>, userId: string, now: Date): Promise<number> {
  const inactive = (await store.listTokens(userId))
    .filter((token) => summarize(token, now).state !== 'active')
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
  // Down to one below the bound: the token just made may itself become inactive.
  const excess = oldestBeyond(inactive, MAX_INACTIVE_TOKENS_KEPT - 1, MAX_PRUNED_PER_CALL);
  let deleted = 0;
  for (const token of excess) if (await store.deleteToken(token.id)) deleted += 1;
  return deleted;
}

/**
 * {@link pruneInactiveTokens} as housekeeping after a token was made: a failure leaves the old tokens for the
 * next token made to delete, and must not fail the request that made this one.
 */
export async function pruneInactiveTokensQuietly(store: Pick<TokenStore, 'listTokens' | 'deleteToken'>, userId: string, now: Date): Promise<void> {
  await pruneInactiveTokens(store, userId, now).catch(() => undefined);
}

/** How many of `userId`'s tokens are neither revoked nor expired at `now` (the cap counts these). */
export async function countActiveTokens(store: Pick<TokenStore, 'listTokens'>, userId: string, now: Date): Promise<number> {
  return (await store.listTokens(userId)).filter((token) => summarize(token, now).state === 'active').length;
}

/** The caller's tokens, newest first, revoked and expired ones included so the owner can see what happened. */
export async function listPersonalTokens(principal: Principal, store: Pick<TokenStore, 'listTokens'>, now: Date): Promise<TokenSummary[]> {
  requireScope(principal, 'tokens:read');
  const tokens = await store.listTokens(principal.userId);
  return tokens.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime()).map((token) => summarize(token, now));
}

/**
 * Revokes one of the caller's tokens (an administrator may revoke anyone's, for incident response).
 * Idempotent. Another user's token answers 404 like a missing one, so token ids cannot be probed.
 *
 * @throws ForbiddenError without `tokens:write`.
 * @throws NotFoundError when the caller has no token with that id.
 */
export async function revokePersonalToken(principal: Principal, tokenId: string, store: Pick<TokenStore, 'getToken' | 'revokeToken'>): Promise<void> {
  requireScope(principal, 'tokens:write');
  const token = await store.getToken(tokenId);
  const visible = token !== undefined && (token.userId === principal.userId || principal.admin);
  if (!visible || !(await store.revokeToken(tokenId))) {
    throw new NotFoundError('You have no access token with this id.');
  }
}

/** Revokes the caller's own token (signing out), which needs no scope. */
export async function revokeOwnToken(principal: Pick<Principal, 'tokenId'>, store: Pick<TokenStore, 'revokeToken'>): Promise<void> {
  if (!(await store.revokeToken(principal.tokenId))) throw new NotFoundError('This token no longer exists.');
}

/** The listing view of a stored token at `now`. */
export function summarize(token: TokenRecord, now: Date): TokenSummary {
  const idle = token.session !== undefined && now.getTime() >= (token.lastUsedAt ?? token.createdAt).getTime() + token.session.idleTimeoutSeconds * 1000;
  const expired = idle || (token.expiresAt !== undefined && now.getTime() >= token.expiresAt.getTime());
  return {
    id: token.id,
    description: token.description,
    scopes: knownScopes(token.scopes),
    createdAt: token.createdAt,
    expiresAt: token.expiresAt,
    state: token.revoked ? 'revoked' : expired ? 'expired' : 'active',
    session: token.session !== undefined,
  };
}
