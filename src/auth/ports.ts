// The persistence the auth domain needs, and nothing more. The production implementation reads the
// AccessToken, User and Project custom resources from informer caches and writes AccessTokens through the
// kube-apiserver; `memory-token-store.ts` and `memory-device-grant-store.ts` are the in-memory ones. Each
// port has a contract suite (`*-contract.ts`) that every implementation must pass.

/** What a token grants, as stored. The plaintext is never stored; the id is independent of it (token.ts). */
export interface TokenRecord {
  /** `tok-…`, also the AccessToken custom resource's name. */
  readonly id: string;
  /** The User the token acts as. */
  readonly userId: string;
  /**
   * The uid of the User the token was made for (Kubernetes `metadata.uid`), where the store has uids: a
   * token bound to one user is refused once the id names another, a user deleted and created again.
   * Absent on tokens applied by hand, which bind to the id alone.
   */
  readonly userUid?: string | undefined;
  /** Lowercase hex SHA-256 of the token (`AccessToken.spec.tokenHash`). */
  readonly tokenHash: string;
  /** As stored; may hold names the scope catalog no longer knows (they grant nothing). */
  readonly scopes: readonly string[];
  readonly description: string;
  /**
   * Kubernetes keeps timestamps to the second, so a store may truncate this and `expiresAt` to whole
   * seconds: an expiry rounded down makes a token expire early, never late.
   */
  readonly createdAt: Date;
  /** From this instant on, the token is refused; absent: it does not expire. */
  readonly expiresAt?: Date | undefined;
  /** Revocation is final. */
  readonly revoked: boolean;
  /** A console sign-in (a cookie) rather than a personal access token; refused once idle this long. */
  readonly session?: { readonly idleTimeoutSeconds: number } | undefined;
  /** When it last authenticated a request, coarsely (sessions record it; see `touchToken`). */
  readonly lastUsedAt?: Date | undefined;
}

/** The parts of a User that authorisation reads. */
export interface UserRecord {
  readonly id: string;
  /** This incarnation of the user (Kubernetes `metadata.uid`), where the store has uids. */
  readonly uid?: string | undefined;
  /** Platform administrator (`User.spec.admin`). */
  readonly admin: boolean;
}

/** A member's role in a project (`Project.spec.members[].role`). */
export type ProjectRole = 'owner' | 'member';

/**
 * Tokens, users and project memberships.
 *
 * Consistency: an implementation reading from a cache must give read-your-writes to its own process —
 * `createToken` and `revokeToken` resolve only once `findTokenByHash` reflects them — because a client
 * uses a new token at once, and a revoked token must stop working as soon as revocation is confirmed.
 */
export interface TokenStore {
  /**
   * A number that changes whenever an answer of `findTokenByHash` or `getUser` may have changed: a token
   * created, revoked or deleted, a user created, changed or deleted, by this process or anyone else (as
   * soon as the store sees it). Lets a caller keep what it derived from those answers until the next change
   * ({@link PrincipalCache}); it says nothing about memberships.
   */
  readonly revision: number;
  /** The token whose `tokenHash` equals `tokenHash` (an exact match, never a prefix), revoked or not. */
  findTokenByHash(tokenHash: string): Promise<TokenRecord | undefined>;
  getToken(tokenId: string): Promise<TokenRecord | undefined>;
  /** Every token of the user, revoked and expired ones included, in any order. */
  listTokens(userId: string): Promise<TokenRecord[]>;
  /** Stores a new token. Rejects if a token with the same id or hash exists. */
  createToken(token: TokenRecord): Promise<void>;
  /** Records that the token authenticated a request at `at` (`lastUsedAt`); `false` when no token has that id. */
  touchToken(tokenId: string, at: Date): Promise<boolean>;
  /**
   * Marks the token revoked. Idempotent: revoking a revoked token succeeds. `false` when no token has
   * that id.
   */
  revokeToken(tokenId: string): Promise<boolean>;
  /**
   * Deletes the token for good; `false` when no token has that id. Used only for tokens already revoked or
   * expired (`pruneInactiveTokens`), so a reader that still sees one for a moment sees it inactive.
   */
  deleteToken(tokenId: string): Promise<boolean>;
  getUser(userId: string): Promise<UserRecord | undefined>;
  /**
   * The user's role in the project; `undefined` both when the project does not exist and when the user is
   * not a member, so callers cannot tell the two apart by accident.
   */
  getMembership(projectId: string, userId: string): Promise<ProjectRole | undefined>;
  /** Whether a project with this id exists (for administrators, who reach every project without a membership). */
  hasProject(projectId: string): Promise<boolean>;
}

/** Where an RFC 8628 device authorization stands. */
export type DeviceGrantState =
  | { readonly kind: 'pending' }
  /**
   * `notAfter`: the approving token's expiry; the token handed out expires by then (`expiryWithin`). `userUid`:
   * the approver's incarnation, so a user deleted and created again under the same id redeems nothing of theirs.
   */
  | { readonly kind: 'approved'; readonly userId: string; readonly userUid?: string | undefined; readonly notAfter?: Date | undefined }
  | { readonly kind: 'denied'; readonly userId: string }
  /** The token was handed out; a grant is redeemed at most once. */
  | { readonly kind: 'redeemed'; readonly userId: string; readonly tokenId: string };

/** One device authorization. The device code itself is never stored, only its hash. */
export interface DeviceGrant {
  /** Lowercase hex SHA-256 of the device code; unique. */
  readonly deviceCodeHash: string;
  /** The user code, normalised (8 letters, no dash); unique among stored grants. */
  readonly userCode: string;
  /** The scopes requested; the token minted on success carries exactly these. */
  readonly scopes: readonly string[];
  readonly createdAt: Date;
  /** From this instant on, the grant can neither be approved nor redeemed. */
  readonly expiresAt: Date;
  /** The current minimum polling interval in seconds; grows by 5 with every `slow_down`. */
  readonly intervalSeconds: number;
  readonly lastPolledAt?: Date | undefined;
  readonly state: DeviceGrantState;
}

/** A stored grant with the revision to pass to {@link DeviceGrantStore.update}. */
export interface StoredDeviceGrant {
  readonly grant: DeviceGrant;
  /** Opaque; changes on every update (a Kubernetes `resourceVersion`, a counter). */
  readonly revision: string;
}

/**
 * Pending device authorizations. Updates are compare-and-swap so that two racing polls cannot both redeem
 * an approved grant. Implementations may drop a grant some time after it expired; a dropped grant then
 * polls as unknown.
 */
export interface DeviceGrantStore {
  /** Stores a new grant; `false` when its device code hash or user code is already taken. */
  create(grant: DeviceGrant): Promise<boolean>;
  findByDeviceCodeHash(deviceCodeHash: string): Promise<StoredDeviceGrant | undefined>;
  findByUserCode(userCode: string): Promise<StoredDeviceGrant | undefined>;
  /**
   * Replaces the grant with the same device code hash if its revision is still `expectedRevision`;
   * `false` when it changed meanwhile or is gone.
   */
  update(next: DeviceGrant, expectedRevision: string): Promise<boolean>;
}

/**
 * People's local passwords, as Argon2id hashes (src/auth/passwords.ts). A user without one signs in only
 * through OpenID Connect, or not at all (robots use tokens).
 */
export interface PasswordStore {
  /** The user's password hash, `undefined` when they have none. */
  getPasswordHash(userId: string): Promise<string | undefined>;
  /** Sets or replaces it. With the user's uid, the stored hash goes when the user is deleted. */
  setPasswordHash(userId: string, hash: string, userUid?: string): Promise<void>;
}
