import type { Project } from '../apis/v1alpha1/project.ts';
import { DEFAULT_CACHE_WAIT_MS, settle } from './settle.ts';
import type { User } from '../apis/v1alpha1/user.ts';
import { type ProjectRole, type TokenStore } from '../auth/index.ts';
import { isAlreadyExists, objectClient, type Informer, type KubeConnection, type ObjectClient } from '../kube/index.ts';
import { PROJECTS, USERS } from './resources.ts';
import { ConflictError, NotFoundError } from '../errors.ts';

/** A user as the REST API shows it. */
export interface UserView {
  user_id: string;
  display_name: string | null;
  email: string | null;
  /** Platform administrator (`User.spec.admin`); tokens act as one only when they also carry `admin`. */
  admin: boolean;
  created_at: string;
  /** The projects the user belongs to, sorted by id. */
  memberships: { project_id: string; role: ProjectRole }[];
}

export interface NewUser {
  readonly userId: string;
  readonly displayName?: string | undefined;
  readonly email?: string | undefined;
  readonly admin?: boolean | undefined;
}

export interface UserDirectoryOptions {
  /** How long a write waits for the shared cache to reflect it (default 5 s); see {@link UserDirectory}. */
  readonly cacheWaitMs?: number;
}

/**
 * Users (`User` custom resources): read from the informer cache the token store also authenticates from,
 * written to the apiserver. A write resolves once that cache reflects it (or after `cacheWaitMs`), so a user
 * created through the API can at once be made a project member, and a deleted user's tokens stop at once.
 */
export class UserDirectory {
  readonly #users: Informer<User>;
  readonly #projects: Informer<Project>;
  readonly #tokens: Pick<TokenStore, 'listTokens' | 'revokeToken'>;
  readonly #userClient: ObjectClient<User>;
  readonly #projectClient: ObjectClient<Project>;
  readonly #cacheWaitMs: number;

  constructor(conn: KubeConnection, users: Informer<User>, projects: Informer<Project>, tokens: Pick<TokenStore, 'listTokens' | 'revokeToken'>, options: UserDirectoryOptions = {}) {
    this.#users = users;
    this.#projects = projects;
    this.#tokens = tokens;
    this.#userClient = objectClient<User>(conn, USERS);
    this.#projectClient = objectClient<Project>(conn, PROJECTS);
    this.#cacheWaitMs = options.cacheWaitMs ?? DEFAULT_CACHE_WAIT_MS;
  }

  /** Every user, sorted by id. */
  list(): UserView[] {
    const projects = this.#projects.list();
    return this.#users
      .list()
      .map((user) => userView(user, projects))
      .sort((a, b) => a.user_id.localeCompare(b.user_id));
  }

  /** @throws NotFoundError when no such user exists. */
  get(userId: string): UserView {
    const user = this.#users.get(userId);
    if (!user) throw new NotFoundError(`No user ${userId} exists.`);
    return userView(user, this.#projects.list());
  }

  /** @throws ConflictError when the id is taken. */
  async create(input: NewUser): Promise<UserView> {
    let created: User;
    try {
      created = await this.#userClient.create({
        metadata: { name: input.userId },
        spec: {
          ...(input.displayName === undefined ? {} : { displayName: input.displayName }),
          ...(input.email === undefined ? {} : { email: input.email }),
          admin: input.admin ?? false,
        },
      });
    } catch (err) {
      if (isAlreadyExists(err)) throw new ConflictError(`A user with the id ${input.userId} already exists.`);
      throw err;
    }
    await this.#settle(input.userId, (cached) => cached?.metadata?.uid === created.metadata?.uid);
    return userView(created, this.#projects.list());
  }

  /**
   * Deletes a user that belongs to no project, after revoking every token of theirs: a user created later
   * with the same id must not inherit them. Memberships are not removed implicitly (that could leave a
   * project without an owner); the caller removes them first, as for a project's contents.
   *
   * @throws NotFoundError when no such user exists; ConflictError for the acting user themself (so the last
   *   administrator cannot lock everyone out by accident) and for a user who is still a project member.
   */
  async delete(userId: string, actingUserId: string): Promise<void> {
    const user = await this.#userClient.get('', userId);
    if (!user) throw new NotFoundError(`No user ${userId} exists.`);
    if (userId === actingUserId) throw new ConflictError('You cannot delete your own user; another administrator can.');
    // From the apiserver, not the cache: a membership added a moment ago must count.
    const { items } = await this.#projectClient.list('');
    const memberOf = items.filter((p) => p.spec.members?.some((m) => m.user === userId)).map((p) => p.metadata?.name ?? '');
    if (memberOf.length > 0) {
      const shown = memberOf.sort().slice(0, 10).join(', ') + (memberOf.length > 10 ? ', …' : '');
      throw new ConflictError(`User ${userId} is still a member of ${shown}; remove them from those projects first.`);
    }
    for (const token of await this.#tokens.listTokens(userId)) {
      if (!token.revoked) await this.#tokens.revokeToken(token.id);
    }
    await this.#userClient.delete('', userId);
    await this.#settle(userId, (cached) => cached?.metadata?.uid !== user.metadata?.uid);
  }

  #settle(key: string, done: (cached: User | undefined) => boolean): Promise<void> {
    return settle(this.#users, key, done, this.#cacheWaitMs);
  }
}

function userView(user: User, projects: readonly Project[]): UserView {
  const userId = user.metadata?.name ?? '';
  const memberships = projects
    .flatMap((project) => {
      const role = project.spec.members?.find((m) => m.user === userId)?.role;
      return role ? [{ project_id: project.metadata?.name ?? '', role }] : [];
    })
    .sort((a, b) => a.project_id.localeCompare(b.project_id));
  return {
    user_id: userId,
    display_name: user.spec.displayName ?? null,
    email: user.spec.email ?? null,
    admin: user.spec.admin === true,
    created_at: user.metadata?.creationTimestamp ?? '',
    memberships,
  };
}
