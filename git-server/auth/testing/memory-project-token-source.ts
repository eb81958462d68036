// An in-memory ProjectTokenSource for unit tests: GitTokens, Projects and cw-git's own repositories as plain objects.
import type { GitToken, GitTokenSpec } from '../../../src/apis/v1alpha1/git-token.ts';
import type { Project } from '../../../src/apis/v1alpha1/project.ts';
import { generateGitToken, gitTokenSha256, newGitTokenId } from '../../../src/auth/git-token.ts';
import type { RepoPath } from '../../../src/repo-store/index.ts';
import type { ProjectTokenSource } from '../project-tokens.ts';

export class MemoryProjectTokenSource implements ProjectTokenSource {
  readonly tokens: GitToken[] = [];
  readonly projects = new Map<string, Project>();
  /** Repositories of cw-git's own (`owner/name`), as its namespace's Repository resources. */
  readonly serviceRepositories = new Set<string>();
  loaded = true;

  synced(): boolean {
    return this.loaded;
  }

  tokensWithHash(sha256: string): readonly GitToken[] {
    return this.tokens.filter((t) => t.spec.tokenHash === sha256);
  }

  project(name: string): Project | undefined {
    return this.projects.get(name);
  }

  heldByService(repo: RepoPath): boolean {
    return this.serviceRepositories.has(repo.full);
  }

  readonly #waiters = new Set<() => void>();

  changed(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.#waiters.add(done);
    });
  }

  /** Tells waiting lookups the tokens changed (as a watch event would). */
  notify(): void {
    // Each waiter removes itself; a Set may lose visited entries while it is iterated.
    for (const waiter of this.#waiters) waiter();
  }

  /** A project owning its namespace, with `members` as members. */
  addProject(name: string, members: readonly string[]): Project {
    const project: Project = { metadata: { name }, spec: { displayName: name, members: members.map((user) => ({ user, role: 'member' as const })) }, status: { namespace: name } };
    this.projects.set(name, project);
    return project;
  }

  /** A new token of `project`, made by `user`: its plaintext and its resource (change the resource to revoke it). */
  addToken(project: string, user: string, spec: Partial<GitTokenSpec> = {}): { token: string; resource: GitToken } {
    const token = generateGitToken();
    const resource: GitToken = {
      metadata: { name: newGitTokenId(), namespace: project },
      spec: { user, description: 'test', scopes: ['write'], tokenHash: gitTokenSha256(token), ...spec },
    };
    this.tokens.push(resource);
    return { token, resource };
  }
}
