import type { Project } from '../../src/apis/v1alpha1/project.ts';
import { DEFAULT_CACHE_WAIT_MS, settle } from '../../src/platform/settle.ts';
import type { User } from '../../src/apis/v1alpha1/user.ts';
import { type ProjectRole, type TokenStore } from '../../src/auth/index.ts';
import { isAlreadyExists, objectClient, type Informer, type KubeConnection, type ObjectClient } from '../../src/kube/index.ts';
import { PROJECTS, USERS } from '../../src/platform/resources.ts';
import { ConflictError, NotFoundError } from '../../src/errors.ts';
import { createHash } from 'node:crypto';
import { ForbiddenError } from '../../src/auth/errors.ts';
import type { OpenIdAccount } from '../../src/auth/openid.ts';

/** A display name from the provider's: control characters and bidirectional overrides left out, 128 at most. */
function displayName(name: string | undefined): string | undefined {
  const kept = Array.from(name ?? '')
    .filter((c) => {
      const code = c.codePointAt(0) ?? 0;
      return code >= 0x20 && !(code >= 0x7f && code <= 0x9f) && !(code >= 0x202a && code <= 0x202e) && !(code >= 0x2066 && code <= 0x2069);
    })
    .join('')
    .trim()
    .slice(0, 128);
  return kept || undefined;
}

/** A DNS label from free text: lowercase letters, digits and dashes, at most 40 characters. */
function slug(text: string): string {
  const label = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return label || 'user';
}

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
  /** Where a deleted user's pending invitations are withdrawn. */
  readonly invitations?: { dropInvitationsOf(userId: string, projects: readonly Project[]): Promise<void> };
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
  readonly #invitations: UserDirectoryOptions['invitations'];

  constructor(conn: KubeConnection, users: Informer<User>, projects: Informer<Project>, tokens: Pick<TokenStore, 'listTokens' | 'revokeToken'>, options: UserDirectoryOptions = {}) {
    this.#users = users;
    this.#projects = projects;
    this.#tokens = tokens;
    this.#userClient = objectClient<User>(conn, USERS);
    this.#projectClient = objectClient<Project>(conn, PROJECTS);
    this.#cacheWaitMs = options.cacheWaitMs ?? DEFAULT_CACHE_WAIT_MS;
    this.#invitations = options.invitations;
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

  /**
   * The user an OpenID Connect account signs in as, by these rules in order:
   * 1. the user listing the account (`spec.identities`: issuer and subject);
   * 2. else the one user whose email is the account's verified email, who has no account of this provider
   *    linked yet and is not an administrator: the account is added to their identities, so later sign-ins
   *    match by rule 1 even if the email changes (an address the provider hands to someone new cannot take
   *    over a user already linked, and administrators are linked by hand);
   * 3. else, with `createUsers`, a new user named after the verified email's local part and a short hash of the
   *    account (never after a name the account chose alone), holding the account, its name and email.
   * An email the provider has not verified never matches anyone: anyone can claim any address at some providers.
   *
   * @throws ForbiddenError when no user matches and none may be created, or two users share the email.
   */
  async userForOpenId(account: OpenIdAccount, createUsers: boolean): Promise<string> {
    const users = this.#users.list();
    const linked = users.find((u) => u.spec.identities?.some((i) => i.issuer === account.issuer && i.subject === account.subject));
    if (linked?.metadata?.name) return linked.metadata.name;
    if (account.email) {
      const byEmail = users.filter((u) => u.spec.email?.toLowerCase() === account.email);
      if (byEmail.length > 1) throw new ForbiddenError(`Several users have the email ${account.email}; an administrator must link this account to one (User.spec.identities).`);
      const [match] = byEmail;
      if (match && (match.spec.admin || match.spec.identities?.some((i) => i.issuer === account.issuer))) {
        throw new ForbiddenError(
          `The user with the email ${account.email} is linked to another account of this provider, or is an administrator: an administrator must link this account (User.spec.identities).`,
        );
      }
      if (match?.metadata?.name) {
        const identities = [...(match.spec.identities ?? []), { issuer: account.issuer, subject: account.subject }];
        if (identities.length > 8) throw new ForbiddenError(`The user ${match.metadata.name} has the most OpenID accounts linked already.`);
        await this.#userClient.replace({ ...match, spec: { ...match.spec, identities } });
        await this.#settle(match.metadata.name, (cached) => cached?.spec.identities?.some((i) => i.subject === account.subject) === true);
        return match.metadata.name;
      }
    }
    if (!createUsers) throw new ForbiddenError('No Cloudwright user is linked to this account; ask an administrator to add you.');
    const suffix = createHash('sha256').update(`${account.issuer}\n${account.subject}`).digest('hex').slice(0, 6);
    // Always with the account's hash: a local part alone is anyone's to choose at another mail domain, and an id an
    // owner invited before its person signed in (invitations are addressed to ids that may not exist yet) went to
    // whoever signed in first with that local part (review-163 F1).
    const userId = account.email ? `${slug(account.email.split('@')[0] ?? '')}-${suffix}` : `oidc-${suffix}`;
    const spec = {
      ...(displayName(account.name) ? { displayName: displayName(account.name) } : {}),
      ...(account.email ? { email: account.email } : {}),
      admin: false,
      identities: [{ issuer: account.issuer, subject: account.subject }],
    };
    // One write, account included (a race with the same account's other sign-in: the next one finds it linked).
    try {
      const created = await this.#userClient.create({ metadata: { name: userId }, spec });
      await this.#settle(userId, (cached) => cached?.metadata?.uid === created.metadata?.uid);
      return userId;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    throw new ForbiddenError('No user id is free for this account; ask an administrator to add you.');
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
    // Like the tokens: offers made to this person do not wait for a later user of the id.
    await this.#invitations?.dropInvitationsOf(userId, items);
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
