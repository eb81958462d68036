import { DNS_SUBDOMAIN_PATTERN, type AccessToken, type Project, type User } from '../../src/apis/v1alpha1/index.ts';
import type { ProjectRole, TokenRecord, TokenStore, UserRecord } from '../../src/auth/ports.ts';
import {
  createInformerFactory,
  formatTime,
  isAlreadyExists,
  isNotFound,
  objectClient,
  type Informer,
  type InformerFactory,
  type KubeConnection,
  type KubeObject,
  type ObjectClient,
} from '../../src/kube/index.ts';
import { AccessTokenCache } from './access-token-cache.ts';
import { toAccessToken, toTokenRecord } from './access-token-record.ts';
import { ACCESS_TOKENS, PROJECTS, USERS } from '../../src/platform/resources.ts';
import { projectsVisibleTo, roleIn, type ProjectReader } from '../../src/platform/project-reader.ts';

const RESOURCE_NAME = new RegExp(DNS_SUBDOMAIN_PATTERN);

export interface KubeTokenStoreOptions {
  /**
   * Informers shared with the rest of the process (one watch per kind). Their owner stops them; without
   * this option the store makes its own and {@link KubeTokenStore.stop} stops them.
   */
  readonly informers?: InformerFactory;
  /**
   * After this long, a write of ours the informer has still not seen is checked against the apiserver
   * (default 30 s), so a token deleted while the watch was away cannot linger in this process.
   */
  readonly lingeringWriteCheckMs?: number;
  /** Failures the store recovered from (watch restarts, background checks); log them. */
  readonly onError?: (err: unknown) => void;
}

/**
 * The production {@link TokenStore}: AccessToken, User and Project custom resources (all cluster-scoped).
 * Reads come from informer caches, tokens indexed by hash; writes go to the apiserver, and their responses
 * are folded into the cache before they resolve, which gives this process read-your-writes
 * ({@link AccessTokenCache}). Tokens written by anyone else (another replica, `kubectl apply`) appear once
 * the watch delivers them.
 *
 * Call {@link start} before serving; reads before the caches have synced throw rather than answer "no such
 * token" from an empty cache.
 */
export class KubeTokenStore implements TokenStore, ProjectReader {
  readonly #client: ObjectClient<AccessToken>;
  readonly #tokens: AccessTokenCache;
  readonly #tokenInformer: Informer<AccessToken>;
  readonly #users: Informer<User>;
  readonly #projects: Informer<Project>;
  readonly #ownedFactory: InformerFactory | undefined;
  readonly #checkAfterMs: number;
  readonly #onError: (err: unknown) => void;
  #checkTimer: NodeJS.Timeout | undefined;
  #checking = false;

  constructor(conn: KubeConnection, options: KubeTokenStoreOptions = {}) {
    this.#onError = options.onError ?? (() => {});
    this.#checkAfterMs = options.lingeringWriteCheckMs ?? 30_000;
    const factory = options.informers ?? createInformerFactory(conn, { onError: (_resource, err) => this.#onError(err) });
    this.#ownedFactory = options.informers ? undefined : factory;
    this.#client = objectClient<AccessToken>(conn, ACCESS_TOKENS);
    this.#tokenInformer = factory.informer<AccessToken>(ACCESS_TOKENS);
    this.#users = factory.informer<User>(USERS);
    this.#projects = factory.informer<Project>(PROJECTS);
    this.#tokens = new AccessTokenCache(this.#tokenInformer);
  }

  /** Both counters only grow, so their sum changes whenever a token or a user does. */
  get revision(): number {
    return this.#tokens.revision + this.#users.changes();
  }

  /** Starts the watches (idempotent) and resolves once the AccessToken, User and Project caches have synced. */
  async start(signal?: AbortSignal): Promise<void> {
    const informers = [this.#tokenInformer, this.#users, this.#projects];
    for (const informer of informers) informer.start();
    await Promise.all(informers.map((informer) => informer.waitForSync(signal)));
    if (!this.#checkTimer) {
      this.#checkTimer = setInterval(() => void this.#checkLingeringWrites(), Math.max(this.#checkAfterMs / 2, 50));
      this.#checkTimer.unref();
    }
  }

  /** Stops background work, and the watches when the store made them itself. */
  stop(): void {
    clearInterval(this.#checkTimer);
    this.#checkTimer = undefined;
    this.#ownedFactory?.stop();
  }

  async findTokenByHash(tokenHash: string): Promise<TokenRecord | undefined> {
    this.#assertSynced(this.#tokenInformer);
    const matches = this.#tokens.findByHash(tokenHash);
    // Two objects with one hash can only be written around this store; refuse the token rather than guess.
    return matches.length === 1 && matches[0] ? toTokenRecord(matches[0]) : undefined;
  }

  /**
   * From the cache; one it does not hold yet is asked of the apiserver, so that a token created a moment
   * ago through another replica can be found (and revoked) at once.
   */
  async getToken(tokenId: string): Promise<TokenRecord | undefined> {
    this.#assertSynced(this.#tokenInformer);
    const cached = this.#tokens.get(tokenId);
    if (cached) return toTokenRecord(cached);
    if (!RESOURCE_NAME.test(tokenId)) return undefined;
    const fetched = await this.#client.get('', tokenId);
    return fetched && toTokenRecord(fetched);
  }

  async listTokens(userId: string): Promise<TokenRecord[]> {
    this.#assertSynced(this.#tokenInformer);
    return this.#tokens.listForUser(userId).map(toTokenRecord);
  }

  /** @throws Error when a token with the same id or hash exists; {@link KubeApiError} from the apiserver. */
  async createToken(token: TokenRecord): Promise<void> {
    this.#assertSynced(this.#tokenInformer);
    // The apiserver enforces unique names only; hashes are unique because ids and tokens are random, and
    // this check catches a repeated write of the same token.
    if (this.#tokens.findByHash(token.tokenHash).length > 0) throw new Error('a token with this hash already exists');
    try {
      this.#tokens.record(await this.#client.create(toAccessToken(token)));
    } catch (err) {
      if (isAlreadyExists(err)) throw new Error(`token ${token.id} already exists`, { cause: err });
      throw err;
    }
  }

  async revokeToken(tokenId: string): Promise<boolean> {
    // Not a resource name (`''` would even address the collection): no token can have that id.
    if (!RESOURCE_NAME.test(tokenId)) return false;
    // A merge patch needs no resourceVersion precondition: revocation is one-way (a CEL rule on the CRD),
    // so whatever else changed concurrently, the result is revoked. Asks the apiserver, not the cache, so a
    // token applied a moment ago by someone else can be revoked too.
    try {
      this.#tokens.record(await this.#client.patch('', tokenId, { spec: { revoked: true } }));
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  /** A merge patch of `status.lastUsedAt` alone (the status subresource: the API's one field there). */
  async touchToken(tokenId: string, at: Date): Promise<boolean> {
    if (!RESOURCE_NAME.test(tokenId)) return false;
    try {
      this.#tokens.record(await this.#client.patchStatus('', tokenId, { status: { lastUsedAt: formatTime(at) } }));
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  /**
   * Asks the apiserver. The cache keeps the token until the watch delivers the deletion (or the lingering
   * check finds it gone): only inactive tokens are deleted, so meanwhile it reads as the inactive token it
   * was, and our own overlay, which may hold its revocation, is left for the informer to retire.
   */
  async deleteToken(tokenId: string): Promise<boolean> {
    if (!RESOURCE_NAME.test(tokenId)) return false;
    return this.#client.delete('', tokenId);
  }

  async getUser(userId: string): Promise<UserRecord | undefined> {
    this.#assertSynced(this.#users);
    const user = this.#users.get(userId);
    return user && { id: userId, admin: user.spec.admin === true, uid: user.metadata?.uid };
  }

  async getMembership(projectId: string, userId: string): Promise<ProjectRole | undefined> {
    this.#assertSynced(this.#projects);
    return roleIn(this.#projects.get(projectId), userId);
  }

  async hasProject(projectId: string): Promise<boolean> {
    this.#assertSynced(this.#projects);
    return this.#projects.get(projectId) !== undefined;
  }

  async listProjectsForUser(userId: string, options: { readonly admin: boolean }): Promise<Project[]> {
    this.#assertSynced(this.#projects);
    return projectsVisibleTo(this.#projects.list(), userId, options.admin);
  }

  #assertSynced(informer: Pick<Informer<KubeObject>, 'hasSynced' | 'resource'>): void {
    if (!informer.hasSynced()) throw new Error(`KubeTokenStore: the ${informer.resource.kind} cache has not synced; await start() first`);
  }

  async #checkLingeringWrites(): Promise<void> {
    if (this.#checking) return;
    this.#checking = true;
    try {
      for (const written of this.#tokens.lingering(this.#checkAfterMs)) {
        const live = await this.#client.get('', written.metadata?.name ?? '');
        // Still there: the watch is merely behind, and our write stays authoritative until it catches up.
        if (live?.metadata?.uid !== written.metadata?.uid) this.#tokens.forget(written);
      }
    } catch (err) {
      this.#onError(err);
    } finally {
      this.#checking = false;
    }
  }
}
