import type { GitToken, GitTokenScope } from '../apis/v1alpha1/git-token.ts';
import { namespaceRefusal } from './namespace-refusal.ts';
import type { Project } from '../apis/v1alpha1/project.ts';
import { ForbiddenError, hasScope, requireScope, type Principal } from '../auth/index.ts';
import { expiryWithin } from '../auth/issue-token.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.ts';
import { formatTime, holdsWrite, isNotFound, objectClient, waitFor, type Informer, type KubeConnection, type ObjectClient } from '../kube/index.ts';
import { generateGitToken, gitTokenSha256, newGitTokenId } from '../auth/git-token.ts';
import { roleIn } from './project-reader.ts';
import { GIT_TOKENS, PROJECT_LABEL } from './resources.ts';

/** Live (neither revoked nor expired) git tokens one project may hold: each is an object in the cluster. */
export const MAX_ACTIVE_GIT_TOKENS_PER_PROJECT = 100;
/** Revoked and expired git tokens kept per project so its members can see what became of them; older ones are deleted. */
export const MAX_INACTIVE_GIT_TOKENS_KEPT = 100;
/** Inactive tokens deleted at most per token made: a bound on the work one request does. */
const MAX_PRUNED_PER_CALL = 10;
/** The longest a git token may be made to live, when it expires at all. */
export const MAX_GIT_TOKEN_SECONDS = 366 * 86_400;
/** How long a write waits for this process's cache to show it, so a listing right after it includes it. */
const CACHE_WAIT_MS = 5000;
const DESCRIPTION = /^\P{Cc}{1,256}$/u;

/** What a git token may be made to do, and which scope of the caller's each needs. */
const NEEDS: Readonly<Record<GitTokenScope, 'repositories:read' | 'repositories:write'>> = { read: 'repositories:read', write: 'repositories:write' };

/** A git token as listings show it: never its value, never its hash. */
export interface GitTokenView {
  token_id: string;
  description: string;
  scopes: GitTokenScope[];
  /** The member who made it (it works while they are a member). */
  user: string;
  created_at: string;
  expires_at: string | null;
  state: 'active' | 'expired' | 'revoked';
}

export interface GitTokenRequest {
  description: string;
  scopes: readonly GitTokenScope[];
  expires_in_seconds?: number;
}

/**
 * A project's git tokens for the repository service. The API writes intent only: a GitToken resource in the
 * project's namespace holding the token's SHA-256 (the token is shown once, in the create answer); cw-git
 * watches those resources and checks presented tokens by hash. Listings come from an informer cache.
 */
export class GitTokenDirectory {
  readonly #client: ObjectClient<GitToken>;
  readonly #cache: Informer<GitToken>;
  readonly #projects: Informer<Project>;

  constructor(conn: KubeConnection, cache: Informer<GitToken>, projects: Informer<Project>) {
    this.#client = objectClient<GitToken>(conn, GIT_TOKENS);
    this.#cache = cache;
    this.#projects = projects;
  }

  /**
   * Makes a token for the caller in `project` (the route checked the caller may act on it). The caller must be a
   * member (the token acts as one, and stops working when they leave), hold `tokens:write` and, for each scope
   * asked, `repositories:read` or `repositories:write`; the token expires no later than the caller's own.
   *
   * @throws ForbiddenError, BadRequestError, ConflictError (too many live tokens, or no namespace yet).
   */
  async create(principal: Principal, project: string, request: GitTokenRequest, now: Date): Promise<{ token: string; view: GitTokenView }> {
    requireScope(principal, 'tokens:write');
    for (const scope of request.scopes) {
      if (!hasScope(principal.scopes, NEEDS[scope]))
        throw new ForbiddenError(`A git token with the ${scope} scope needs ${NEEDS[scope]}, which this token does not hold.`, { missingScope: NEEDS[scope] });
    }
    if (roleIn(this.#projects.get(project), principal.userId) === undefined) {
      throw new ForbiddenError(`Git tokens act as a member of the project and ${principal.userId} is not one of ${project}; add yourself as a member first.`);
    }
    const description = request.description.trim();
    if (!DESCRIPTION.test(description)) throw new BadRequestError('The description must be 1 to 256 characters without control characters.');
    const seconds = request.expires_in_seconds;
    if (seconds !== undefined && (!Number.isInteger(seconds) || seconds < 60 || seconds > MAX_GIT_TOKEN_SECONDS)) {
      throw new BadRequestError(`expires_in_seconds must be a whole number from 60 to ${MAX_GIT_TOKEN_SECONDS}.`);
    }
    // Whole seconds, as Kubernetes keeps times, rounded down: an expiry comes early, never late.
    const at = Math.floor(now.getTime() / 1000) * 1000;
    const asked = seconds === undefined ? undefined : new Date(at + seconds * 1000);
    const expiresAt = expiryWithin(principal, asked);
    if (expiresAt && expiresAt.getTime() <= at) throw new BadRequestError('The calling token expires within the second: a git token made with it would never work.');
    const live = this.#inProject(project).filter((t) => stateOf(t, at) === 'active');
    if (live.length >= MAX_ACTIVE_GIT_TOKENS_PER_PROJECT) {
      throw new ConflictError(`Project ${project} has ${live.length} live git tokens, the most it may have; revoke some first.`);
    }
    const token = generateGitToken();
    const scopes = (['read', 'write'] as const).filter((scope) => request.scopes.includes(scope));
    let written: GitToken;
    try {
      written = await this.#client.create({
        metadata: { name: newGitTokenId(), namespace: project, labels: { [PROJECT_LABEL]: project } },
        spec: {
          user: principal.userId,
          description,
          scopes,
          tokenHash: gitTokenSha256(token),
          ...(expiresAt ? { expiresAt: formatTime(new Date(Math.floor(expiresAt.getTime() / 1000) * 1000)) } : {}),
        },
      });
    } catch (err) {
      const refusal = namespaceRefusal(err, project);
      if (refusal) throw refusal;
      throw err;
    }
    await waitFor(this.#cache, keyOf(written), holdsWrite(written), CACHE_WAIT_MS);
    await this.#prune(project, at);
    return { token, view: gitTokenView(written, at) };
  }

  /** The project's git tokens, newest first: every member's, so each can see what reaches the repositories. */
  list(project: string, now: Date): GitTokenView[] {
    return this.#inProject(project)
      .map((t) => gitTokenView(t, now.getTime()))
      .sort((a, b) => b.created_at.localeCompare(a.created_at) || a.token_id.localeCompare(b.token_id));
  }

  /**
   * Revokes a token of the project: one's own, or any as an owner of the project or an administrator. Final;
   * revoking a revoked token succeeds again. cw-git refuses it as soon as its watch delivers the change.
   *
   * @throws NotFoundError for a token the project does not have; ForbiddenError for another member's.
   */
  async revoke(principal: Principal, project: string, tokenId: string): Promise<void> {
    requireScope(principal, 'tokens:write');
    const found = this.#cache.get(`${project}/${tokenId}`) ?? (await this.#client.get(project, tokenId));
    if (!found) throw new NotFoundError(`Project ${project} has no git token ${tokenId}.`);
    const owner = roleIn(this.#projects.get(project), principal.userId) === 'owner';
    if (found.spec.user !== principal.userId && !owner && !principal.admin) {
      throw new ForbiddenError(`Git token ${tokenId} was made by ${found.spec.user}: only they or an owner of the project may revoke it.`);
    }
    let written: GitToken;
    try {
      // No precondition: revocation is one-way (a CEL rule), so whatever else changed meanwhile, it ends revoked.
      written = await this.#client.patch(project, tokenId, { spec: { revoked: true } });
    } catch (err) {
      if (isNotFound(err)) throw new NotFoundError(`Project ${project} has no git token ${tokenId}.`);
      throw err;
    }
    await waitFor(this.#cache, keyOf(written), holdsWrite(written), CACHE_WAIT_MS);
  }

  #inProject(project: string): GitToken[] {
    return this.#cache.list(project).filter((t) => t.metadata?.namespace === project);
  }

  /** Deletes the project's oldest inactive tokens beyond those kept, a few per call; failures wait for the next call. */
  async #prune(project: string, at: number): Promise<void> {
    const inactive = this.#inProject(project)
      .filter((t) => stateOf(t, at) !== 'active')
      .sort((a, b) => createdAt(b).localeCompare(createdAt(a)));
    const excess = inactive.slice(MAX_INACTIVE_GIT_TOKENS_KEPT, MAX_INACTIVE_GIT_TOKENS_KEPT + MAX_PRUNED_PER_CALL);
    await Promise.all(excess.map((t) => this.#client.delete(project, t.metadata?.name ?? '').catch(() => undefined)));
  }
}

function keyOf(token: GitToken): string {
  return `${token.metadata?.namespace ?? ''}/${token.metadata?.name ?? ''}`;
}

function createdAt(token: GitToken): string {
  return token.metadata?.creationTimestamp ?? '';
}

function stateOf(token: GitToken, at: number): GitTokenView['state'] {
  if (token.spec.revoked) return 'revoked';
  if (token.spec.expiresAt !== undefined && Date.parse(token.spec.expiresAt) <= at) return 'expired';
  return 'active';
}

/** The listing form of a token (`at`: now, for its state). */
export function gitTokenView(token: GitToken, at: number): GitTokenView {
  return {
    token_id: token.metadata?.name ?? '',
    description: token.spec.description,
    scopes: [...token.spec.scopes],
    user: token.spec.user,
    created_at: new Date(createdAt(token) || 0).toISOString(),
    expires_at: token.spec.expiresAt === undefined ? null : new Date(token.spec.expiresAt).toISOString(),
    state: stateOf(token, at),
  };
}
