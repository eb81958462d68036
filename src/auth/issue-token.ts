import { requireScope, type Principal } from './authenticate.ts';
import { ForbiddenError } from './errors.ts';
import type { TokenRecord, TokenStore } from './ports.ts';
import { hasScope, type Scope } from './scopes.ts';
import { generateToken, hashToken, newTokenId, type PlaintextToken } from './token.ts';
import { BadRequestError } from '../errors.ts';

/** What a new token should grant. */
export interface TokenRequest {
  readonly scopes: readonly Scope[];
  readonly description: string;
  /** Absent: the token does not expire. */
  readonly expiresAt?: Date | undefined;
  /** The uid of the user it is for, to bind it to this incarnation of the user (`TokenRecord.userUid`). */
  readonly userUid?: string | undefined;
}

/** A newly minted token: the plaintext exists only in this value and is shown to its owner once. */
export interface IssuedToken {
  readonly token: PlaintextToken;
  readonly record: TokenRecord;
}

/** Same limit and alphabet as `AccessToken.spec.description`, so the custom resource is always admitted. */
const MAX_DESCRIPTION = 256;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\x00-\x1f\x7f]/;

/**
 * Refuses to let `principal` hand out a token that could do more than itself: it needs `tokens:write` and
 * must hold every requested scope (`admin` only as an administrator). Without this, a narrow token with
 * `tokens:write` — or a device sign-in approved with it — would be a way to widen one's own access.
 *
 * @throws ForbiddenError naming the first scope the principal lacks.
 */
export function assertCanGrant(principal: Principal, scopes: readonly Scope[]): void {
  requireScope(principal, 'tokens:write');
  for (const scope of scopes) {
    const held = scope === 'admin' ? principal.admin : hasScope(principal.scopes, scope);
    if (!held) throw new ForbiddenError(`This token cannot grant the scope ${scope}, which it does not hold itself.`);
  }
}

/**
 * The expiry of a token `principal` makes or approves: the one requested, but never later than the
 * principal's own token expires. Otherwise a short-lived token (or a leaked one, before it expires) could
 * make itself a permanent successor.
 */
export function expiryWithin(principal: Pick<Principal, 'expiresAt' | 'session'>, requested: Date | undefined): Date | undefined {
  // A person signed in to the console is not a token that could be leaked and multiplied: no cap.
  return principal.session ? requested : earliest(requested, principal.expiresAt);
}

/** The earlier of two instants, either of which may be absent (never). */
export function earliest(a: Date | undefined, b: Date | undefined): Date | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a.getTime() <= b.getTime() ? a : b;
}

/**
 * Mints a token for `userId` without storing it, for callers that must record the id elsewhere first (the
 * device flow). Most callers want {@link issueToken}.
 *
 * @throws BadRequestError for an empty or invalid description or an expiry that is not in the future.
 */
export function mintToken(userId: string, request: TokenRequest, now: Date): IssuedToken {
  const description = request.description.trim();
  if (description === '' || description.length > MAX_DESCRIPTION || CONTROL_CHARACTER.test(description)) {
    throw new BadRequestError(`The token description must be 1 to ${MAX_DESCRIPTION} characters without control characters.`);
  }
  if (request.expiresAt && request.expiresAt.getTime() <= now.getTime()) {
    throw new BadRequestError('The token expiry must lie in the future.');
  }
  const token = generateToken();
  const record: TokenRecord = {
    id: newTokenId(),
    userId,
    ...(request.userUid === undefined ? {} : { userUid: request.userUid }),
    tokenHash: hashToken(token),
    scopes: [...request.scopes],
    description,
    createdAt: now,
    expiresAt: request.expiresAt,
    revoked: false,
  };
  return { token, record };
}

/**
 * Mints a token for `userId` and stores its hash. Callers check who may ask first ({@link assertCanGrant}).
 *
 * @throws BadRequestError for an empty or invalid description or an expiry that is not in the future.
 */
export async function issueToken(userId: string, request: TokenRequest, store: Pick<TokenStore, 'createToken'>, now: Date): Promise<IssuedToken> {
  const issued = mintToken(userId, request, now);
  await store.createToken(issued.record);
  return issued;
}
