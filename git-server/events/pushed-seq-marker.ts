// Raises the push mark of one repository's Repository resources to a head seq (pushed-seq.ts has the rule): read,
// patch conditional on what was read, and after a conflict read again, as client-go's RetryOnConflict.
import type { Repository } from '../../src/apis/v1alpha1/repository.ts';
import { isNotFound, retryOnConflict } from '../../src/kube/index.ts';
import type { RepoPath } from '../../src/repo-store/index.ts';
import type { RepositoryResources } from '../repositories/kube-repository-resources.ts';
import { pushedSeqPatch } from './pushed-seq.ts';

/** `raised`: a resource's mark was raised; `current`: each was already there or higher; `none`: no resource. */
export type MarkOutcome = 'raised' | 'current' | 'none';

export class PushedSeqMarker {
  readonly #resources: Pick<RepositoryResources, 'find' | 'get' | 'patch'>;

  constructor(resources: Pick<RepositoryResources, 'find' | 'get' | 'patch'>) {
    this.#resources = resources;
  }

  /** Raises the mark of each of `repo`'s resources to `headSeq`, never lowering one. Throws what the apiserver throws. */
  async raise(repo: RepoPath, headSeq: number | bigint): Promise<MarkOutcome> {
    const found = await this.#resources.find(repo);
    if (found.length === 0) return 'none';
    const outcomes = await Promise.all(found.map((resource) => this.#raiseOne(resource, headSeq)));
    if (outcomes.includes('raised')) return 'raised';
    return outcomes.includes('current') ? 'current' : 'none';
  }

  async #raiseOne(found: Repository, headSeq: number | bigint): Promise<MarkOutcome> {
    const namespace = found.metadata?.namespace ?? '';
    const name = found.metadata?.name ?? '';
    let resource: Repository | undefined = found;
    return retryOnConflict(async () => {
      resource ??= await this.#resources.get(namespace, name);
      if (!resource || resource.metadata?.deletionTimestamp) return 'none';
      const patch = pushedSeqPatch(resource, headSeq);
      resource = undefined; // a conflict reads it again
      if (!patch) return 'current';
      try {
        await this.#resources.patch(namespace, name, patch);
        return 'raised';
      } catch (err) {
        if (isNotFound(err)) return 'none';
        throw err;
      }
    });
  }
}
