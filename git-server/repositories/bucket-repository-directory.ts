import { RepoNotFoundError, type RepoPath, type RepoStore } from '../../src/repo-store/index.ts';
import { defaultBranchOf, type CreateRepositoryOptions, type RepositoryDirectory } from './repository-directory.ts';

/**
 * Repositories straight in the bucket, for a cw-git that runs without Kubernetes: `create` is the store's
 * conditional create of the manifest (one request), `delete` the store's delete of everything under the
 * repository's prefix.
 */
export class BucketRepositoryDirectory implements RepositoryDirectory {
  readonly #store: RepoStore;

  constructor(store: RepoStore) {
    this.#store = store;
  }

  async create(repo: RepoPath, options?: CreateRepositoryOptions): Promise<void> {
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
