// The platform's per-project git tokens (`cwg_…`) as cw-git checks them: the API writes a GitToken resource in
// the project's namespace holding the token's SHA-256; cw-git finds a presented token by that hash in its cache
// of those resources. A token works while it is neither revoked nor expired, its project exists and owns the
// namespace the token lives in, and the user who made it is still a member of that project. It reaches the
// project's own repositories only (the owner named like the project, and not one of cw-git's own: project ids are
// first come, first served, and a project named like the owner of the operator's repositories would reach them),
// whatever else its resource says.
import type { GitToken } from '../../src/apis/v1alpha1/git-token.ts';
import type { Project } from '../../src/apis/v1alpha1/project.ts';
import { UnavailableError } from '../../src/errors.ts';
import { gitTokenSha256, isWellFormedGitToken } from '../../src/auth/git-token.ts';
import { UnauthenticatedError } from './errors.ts';
import type { GitScope } from './token.ts';
import type { RepoPath } from '../../src/repo-store/index.ts';

/** What cw-git knows of the platform: its GitTokens and Projects, from caches. */
export interface ProjectTokenSource {
  /** False until both caches have been filled once: before that, "unknown token" would be a lie. */
  synced(): boolean;
  /** The GitTokens whose `spec.tokenHash` is `sha256` (one, unless someone wrote a duplicate around the API). */
  tokensWithHash(sha256: string): readonly GitToken[];
  /** The Project named `name`. */
  project(name: string): Project | undefined;
  /**
   * Whether `repo` is one of cw-git's own (its resource in cw-git's namespace: made with the service's token, the
   * operator's templates and import sources among them), not a project's, though its owner may be named like one.
   */
  heldByService(repo: RepoPath): boolean;
  /** Resolves at the next change of the GitTokens cache, or after `timeoutMs`. */
  changed(timeoutMs: number): Promise<void>;
}

/**
 * How long an unknown token waits for the cache to learn of it: the API answers a new token as soon as the
 * apiserver stored it, and a client that uses it at once may be a moment ahead of this process's watch.
 */
export const NEW_TOKEN_GRACE_MS = 2000;

/** No GitToken has the presented token's hash. */
class UnknownGitTokenError extends UnauthenticatedError {
  constructor() {
    super('The git token is not known: it was never made here, or it was deleted.');
  }
}

/** A token that passed every check. */
export interface ProjectTokenGrant {
  /** The token id (`gtk-…`, the resource's name). */
  readonly id: string;
  /** The project (also its namespace, and the owner of its repositories). */
  readonly project: string;
  /** The member who made it: the principal events report as the pusher. */
  readonly user: string;
  readonly scopes: ReadonlySet<GitScope>;
  /** When it stops working (ms since the epoch), if it expires. */
  readonly expiresAt?: number;
}

/** Checks presented project git tokens against a {@link ProjectTokenSource}. */
export class ProjectTokens {
  readonly #source: ProjectTokenSource;

  constructor(source: ProjectTokenSource) {
    this.#source = source;
  }

  /**
   * The grant of `token` at `now` (ms). Rejects with `UnauthenticatedError` (401) saying why it is refused — never
   * repeating it — or `UnavailableError` (503) while the caches are still loading. A token not (yet) in the cache
   * is looked for again as the watch delivers changes, for at most {@link NEW_TOKEN_GRACE_MS}.
   */
  async authenticate(token: string, now: number): Promise<ProjectTokenGrant> {
    const deadline = Date.now() + NEW_TOKEN_GRACE_MS;
    for (;;) {
      try {
        return this.check(token, now);
      } catch (err) {
        const left = deadline - Date.now();
        if (!(err instanceof UnknownGitTokenError) || left <= 0) throw err;
        await this.#source.changed(left);
      }
    }
  }

  /** Whether `repo` is cw-git's own, not a project's: no project token reaches it (`ProjectTokenSource.heldByService`). */
  heldByService(repo: RepoPath): boolean {
    return this.#source.heldByService(repo);
  }

  /** {@link authenticate} against the cache as it is now, without waiting. */
  check(token: string, now: number): ProjectTokenGrant {
    if (!isWellFormedGitToken(token)) throw new UnauthenticatedError('The git token is malformed: expected cwg_ and 43 letters and digits, as the platform made it.');
    if (!this.#source.synced()) throw new UnavailableError('cw-git is still loading the platform’s git tokens; retry in a moment.', 1);
    const matches = this.#source.tokensWithHash(gitTokenSha256(token));
    const found = matches.length === 1 ? matches[0] : undefined;
    if (!found) throw new UnknownGitTokenError();
    const id = found.metadata?.name ?? '';
    const namespace = found.metadata?.namespace ?? '';
    if (found.spec.revoked === true) throw new UnauthenticatedError(`The git token ${id} was revoked.`);
    const expiresAt = found.spec.expiresAt === undefined ? undefined : Date.parse(found.spec.expiresAt);
    if (expiresAt !== undefined && !(now < expiresAt)) throw new UnauthenticatedError(`The git token ${id} expired at ${new Date(expiresAt).toISOString()}.`);
    const project = this.#source.project(namespace);
    // The namespace must be the one the project reports owning: a namespace merely named like a project (made
    // before it, or by someone else) holds no project's tokens.
    if (!project || project.metadata?.deletionTimestamp || project.status?.namespace !== namespace) {
      throw new UnauthenticatedError(`The git token ${id} belongs to no project (project ${namespace} does not exist, or does not own its namespace).`);
    }
    const user = found.spec.user;
    if (!project.spec.members?.some((member) => member.user === user)) {
      throw new UnauthenticatedError(`The git token ${id} was made by ${user}, who is no longer a member of project ${namespace}.`);
    }
    const scopes = new Set<GitScope>(found.spec.scopes.filter((scope): scope is GitScope => scope === 'read' || scope === 'write'));
    if (scopes.has('write')) scopes.add('read');
    return { id, project: namespace, user, scopes, ...(expiresAt === undefined ? {} : { expiresAt }) };
  }
}
