import type { Repository } from '../../../src/apis/v1alpha1/repository.ts';
import { objectKey, type Informer } from '../../../src/kube/index.ts';

/** `owner/name` of a resource, as the store spells it (case-sensitive). */
export function repositoryPath(repo: Repository): string {
  return `${repo.spec?.owner ?? ''}/${repo.spec?.name ?? ''}`;
}

/**
 * The cached Repository resources by `owner/name`, kept current from the informer's events, so finding the
 * resources that share a name costs a map lookup instead of a scan of every repository in the cluster.
 * Subscribe it before the controller: a reconcile then always finds the index as current as the cache.
 */
export class RepositoryPathIndex {
  readonly #informer: Informer<Repository>;
  readonly #byPath = new Map<string, Set<string>>();
  readonly #pathOf = new Map<string, string>();

  constructor(informer: Informer<Repository>) {
    this.#informer = informer;
    informer.onChange((obj) => this.#update(obj));
  }

  /** The cached resources named `path`. */
  resources(path: string): Repository[] {
    return [...(this.#byPath.get(path) ?? [])].map((key) => this.#informer.get(key)).filter((r): r is Repository => r !== undefined);
  }

  // Handlers are not told whether the object was added, updated or deleted; the cache says whether it is there.
  #update(obj: Repository): void {
    const key = objectKey(obj);
    const before = this.#pathOf.get(key);
    const current = this.#informer.get(key);
    const after = current ? repositoryPath(current) : undefined;
    if (before === after) return;
    if (before !== undefined) {
      const keys = this.#byPath.get(before);
      keys?.delete(key);
      if (keys?.size === 0) this.#byPath.delete(before);
    }
    if (after === undefined) {
      this.#pathOf.delete(key);
      return;
    }
    this.#pathOf.set(key, after);
    const keys = this.#byPath.get(after) ?? new Set<string>();
    keys.add(key);
    this.#byPath.set(after, keys);
  }
}
