// cw-git's view of the platform's GitTokens (every namespace) and Projects, from informers: a token revoked, a
// project deleted or a member removed is refused from the moment the watch delivers it. Also the repositories of no
// project (cw-git's own namespace's), which no project token reaches whatever their owner is called. Loaded only when
// `kubernetes.project_tokens` is on, so a cw-git without it never loads the Kubernetes client.
import type { GitToken } from '../../src/apis/v1alpha1/git-token.ts';
import type { Project } from '../../src/apis/v1alpha1/project.ts';
import type { Repository } from '../../src/apis/v1alpha1/repository.ts';
import { createInformerFactory, type Informer, type InformerFactory, type KubeConnection } from '../../src/kube/index.ts';
import { sharedIndex } from '../../src/kube/informer-index.ts';
import { GIT_TOKENS, PROJECTS, REPOSITORIES } from '../../src/platform/resources.ts';
import type { RepoPath } from '../../src/repo-store/index.ts';
import type { ProjectTokenSource } from './project-tokens.ts';

export class KubeProjectTokenSource implements ProjectTokenSource {
  readonly #factory: InformerFactory;
  readonly #tokens: Informer<GitToken>;
  readonly #projects: Informer<Project>;
  /** The repositories of no project: those in cw-git's own namespace (`kubernetes.namespace`), when it has one. */
  readonly #serviceRepositories: Informer<Repository> | undefined;
  #byHash = new Map<string, GitToken[]>();
  #indexedAt = -1;

  constructor(conn: KubeConnection, onError: (err: unknown) => void, serviceNamespace?: string) {
    this.#factory = createInformerFactory(conn, { onError: (_resource, err) => onError(err) });
    this.#tokens = this.#factory.informer<GitToken>(GIT_TOKENS);
    this.#projects = this.#factory.informer<Project>(PROJECTS);
    this.#serviceRepositories = serviceNamespace ? this.#factory.informer<Repository>(REPOSITORIES, { namespace: serviceNamespace }) : undefined;
  }

  heldByService(repo: RepoPath): boolean {
    const cache = this.#serviceRepositories;
    if (!cache) return false;
    const byPath = sharedIndex(cache, 'path', (r) => (r.spec?.owner && r.spec.name ? [`${r.spec.owner}/${r.spec.name}`] : []));
    return byPath.keys(repo.full).length > 0;
  }

  /** Starts the watches; lookups answer 503 until both have synced. */
  start(): void {
    this.#factory.start();
  }

  stop(): void {
    this.#factory.stop();
  }

  /** Resolves once both caches are filled (tests; serving does not wait). */
  waitForSync(signal?: AbortSignal): Promise<void> {
    return this.#factory.waitForSync(signal);
  }

  synced(): boolean {
    return this.#tokens.hasSynced() && this.#projects.hasSynced() && (this.#serviceRepositories?.hasSynced() ?? true);
  }

  tokensWithHash(sha256: string): readonly GitToken[] {
    // Re-indexed only when the cache changed since: one pass per change, not per request.
    const changes = this.#tokens.changes();
    if (changes !== this.#indexedAt) {
      const index = new Map<string, GitToken[]>();
      for (const token of this.#tokens.list()) {
        const hash = token.spec?.tokenHash;
        if (typeof hash === 'string') index.set(hash, [...(index.get(hash) ?? []), token]);
      }
      this.#byHash = index;
      this.#indexedAt = changes;
    }
    return this.#byHash.get(sha256) ?? [];
  }

  project(name: string): Project | undefined {
    return this.#projects.get(name);
  }

  changed(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        unsubscribe();
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      const unsubscribe = this.#tokens.onChange(done);
    });
  }
}
