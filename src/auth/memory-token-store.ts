import type { ProjectRole, TokenRecord, TokenStore, UserRecord } from './ports.ts';

/** Users and memberships to start an in-memory store with (they have no write path in the port). */
export interface TokenStoreSeed {
  readonly users?: readonly UserRecord[];
  /** `projectId` → `userId` → role. */
  readonly memberships?: Readonly<Record<string, Readonly<Record<string, ProjectRole>>>>;
}

/**
 * A {@link TokenStore} in memory, for unit tests and for running the API without a cluster. Records are
 * copied on the way in and out, like a real store, so a caller mutating one cannot change the store.
 */
export class MemoryTokenStore implements TokenStore {
  readonly #tokens = new Map<string, TokenRecord>();
  readonly #users = new Map<string, UserRecord>();
  readonly #memberships = new Map<string, Map<string, ProjectRole>>();
  #revision = 0;

  get revision(): number {
    return this.#revision;
  }

  constructor(seed: TokenStoreSeed = {}) {
    for (const user of seed.users ?? []) this.putUser(user);
    for (const [projectId, members] of Object.entries(seed.memberships ?? {})) {
      for (const [userId, role] of Object.entries(members)) this.putMembership(projectId, userId, role);
    }
  }

  /** Test helper: creates or replaces a user. */
  putUser(user: UserRecord): void {
    this.#users.set(user.id, { ...user });
    this.#revision++;
  }

  /** Test helper: removes a user (its tokens stay, as with a deleted User custom resource). */
  deleteUser(userId: string): void {
    if (this.#users.delete(userId)) this.#revision++;
  }

  /** Test helper: sets a role, or removes the membership with `undefined`. */
  putMembership(projectId: string, userId: string, role: ProjectRole | undefined): void {
    const members = this.#memberships.get(projectId) ?? new Map<string, ProjectRole>();
    if (role === undefined) members.delete(userId);
    else members.set(userId, role);
    this.#memberships.set(projectId, members);
  }

  async findTokenByHash(tokenHash: string): Promise<TokenRecord | undefined> {
    for (const token of this.#tokens.values()) {
      if (token.tokenHash === tokenHash) return copy(token);
    }
    return undefined;
  }

  async getToken(tokenId: string): Promise<TokenRecord | undefined> {
    const token = this.#tokens.get(tokenId);
    return token && copy(token);
  }

  async listTokens(userId: string): Promise<TokenRecord[]> {
    return [...this.#tokens.values()].filter((token) => token.userId === userId).map(copy);
  }

  async createToken(token: TokenRecord): Promise<void> {
    if (this.#tokens.has(token.id)) throw new Error(`token ${token.id} already exists`);
    if (await this.findTokenByHash(token.tokenHash)) throw new Error('a token with this hash already exists');
    this.#tokens.set(token.id, copy(token));
    this.#revision++;
  }

  async revokeToken(tokenId: string): Promise<boolean> {
    const token = this.#tokens.get(tokenId);
    if (!token) return false;
    this.#tokens.set(tokenId, { ...token, revoked: true });
    this.#revision++;
    return true;
  }

  async touchToken(tokenId: string, at: Date): Promise<boolean> {
    const token = this.#tokens.get(tokenId);
    if (!token) return false;
    this.#tokens.set(tokenId, { ...token, lastUsedAt: at });
    this.#revision++;
    return true;
  }

  async deleteToken(tokenId: string): Promise<boolean> {
    if (!this.#tokens.delete(tokenId)) return false;
    this.#revision++;
    return true;
  }

  async getUser(userId: string): Promise<UserRecord | undefined> {
    const user = this.#users.get(userId);
    return user && { ...user };
  }

  async getMembership(projectId: string, userId: string): Promise<ProjectRole | undefined> {
    return this.#memberships.get(projectId)?.get(userId);
  }

  /** A project exists here once a membership of it has been put (it may have none left since). */
  async hasProject(projectId: string): Promise<boolean> {
    return this.#memberships.has(projectId);
  }
}

function copy(token: TokenRecord): TokenRecord {
  return {
    ...token,
    scopes: [...token.scopes],
    createdAt: new Date(token.createdAt),
    expiresAt: token.expiresAt && new Date(token.expiresAt),
  };
}
