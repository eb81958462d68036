import { listAllPrefixes } from '../../src/object-store/list-all.ts';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import { PublicError } from '../../src/errors.ts';
import { ownerPrefix, repoPrefix, RepoNotFoundError, type RepoPath, type RepoStore } from '../../src/repo-store/index.ts';
import { defaultBranchOf, type CreateRepositoryOptions, type RepositoryDirectory } from './repository-directory.ts';

/** An owner has as many repositories as it may (`quota.owner_max_repositories`). */
export class OwnerRepositoryLimitError extends PublicError {
  override readonly name = 'OwnerRepositoryLimitError';
  readonly code = 'repository_limit_reached';
  constructor(owner: string, max: number) {
    super(409, `${owner} has ${max} repositories, the most an owner may have (quota.owner_max_repositories); delete one first.`);
  }
}

/**
 * Repositories straight in the bucket, for a cw-git that runs without Kubernetes: `create` is the store's
 * conditional create of the manifest (one request), `delete` the store's delete of everything under the
 * repository's prefix. With `maxPerOwner`, a create first counts the owner's repositories (a LIST of its prefix,
 * stopped at the bound): without Kubernetes no ResourceQuota counts them, and each costs the owner's storage count
 * (plumbing/storage-quota.ts) two reads. Two creates at once may both pass at the bound.
 */
export class BucketRepositoryDirectory implements RepositoryDirectory {
  readonly #store: RepoStore;
  readonly #limit: { objects: ObjectStore; maxPerOwner: number } | undefined;

  constructor(store: RepoStore, limit?: { objects: ObjectStore; maxPerOwner: number }) {
    this.#store = store;
    this.#limit = limit;
  }

  async create(repo: RepoPath, options?: CreateRepositoryOptions): Promise<void> {
    if (this.#limit) {
      let held = 0;
      for await (const prefix of listAllPrefixes(this.#limit.objects, ownerPrefix(repo.owner))) {
        if (prefix === repoPrefix(repo)) continue; // taken already: the create answers that
        if (++held >= this.#limit.maxPerOwner) throw new OwnerRepositoryLimitError(repo.owner, this.#limit.maxPerOwner);
      }
    }
    await this.#store.createRepo(repo.full, { headRef: `refs/heads/${defaultBranchOf(options)}` });
  }

  async delete(repo: RepoPath): Promise<void> {
    let exists = true;
    try {
      await this.#store.readHead(repo.full);
    } catch (err) {
      if (!(err instanceof RepoNotFoundError)) throw err;
      exists = false;
    }
    // Also when the manifest is gone: a delete that died half-way left objects behind, and a retry sweeps them.
    await this.#store.deleteRepo(repo.full);
    if (!exists) throw new RepoNotFoundError(repo.full);
  }
}
