// Where a repository's `Repository` resources are, for cw-git's writes to them other than create and delete (the
// events role's push mark). A project's repository lives in its project's namespace, whose name is the owner; any
// other lives in cw-git's own namespace (`kubernetes.namespace`). Only those two places count: a resource naming
// `owner/name` anywhere else (a tenant's namespace naming another project's repository) is not the repository's,
// and is never written to, so nothing of another project's pushes reaches it.
import type { Repository } from '../../src/apis/v1alpha1/repository.ts';
import type { ObjectClient } from '../../src/kube/index.ts';
import type { RepoPath } from '../../src/repo-store/index.ts';
import { parseRepoPath } from '../../src/repo-store/index.ts';
import { repositoryResourceName } from './resource-name.ts';

/** A Kubernetes namespace name (RFC 1123 label): an owner that is not one has no project namespace. */
const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** A resource and the repository it names. */
export interface RepositoryResource {
  readonly repo: string;
  readonly resource: Repository;
}

/** Finds, reads and patches the `Repository` resources of repositories (the Kubernetes directory's). */
export interface RepositoryResources {
  /** The resources of `repo` in the places it may live (usually one); none for a repository without one. */
  find(repo: RepoPath): Promise<Repository[]>;
  /** Every repository's resources, in the places they may live (one cluster-wide list). */
  all(): Promise<RepositoryResource[]>;
  get(namespace: string, name: string): Promise<Repository | undefined>;
  /** A merge patch; one carrying `metadata.resourceVersion` fails with 409 when the resource changed since. */
  patch(namespace: string, name: string, patch: unknown): Promise<Repository>;
}

export class KubeRepositoryResources implements RepositoryResources {
  readonly #client: ObjectClient<Repository>;
  readonly #namespace: string;

  /** `namespace`: cw-git's own (`kubernetes.namespace`), where repositories of no project live. */
  constructor(client: ObjectClient<Repository>, namespace: string) {
    this.#client = client;
    this.#namespace = namespace;
  }

  /** The namespaces `repo`'s resource may be in: its project's (the owner, when a namespace name) and cw-git's. */
  placesOf(repo: RepoPath): string[] {
    return NAMESPACE_NAME.test(repo.owner) && repo.owner !== this.#namespace ? [repo.owner, this.#namespace] : [this.#namespace];
  }

  async find(repo: RepoPath): Promise<Repository[]> {
    const places = this.placesOf(repo);
    // The directory's own name first (what `PUT /{owner}/{repo}` creates): one get, no list.
    const name = repositoryResourceName(repo);
    for (const namespace of places) {
      const found = await this.#client.get(namespace, name);
      if (found && names(found, repo)) return [found];
    }
    // One made with kubectl under a name of its author's.
    const lists = await Promise.all(places.map((namespace) => this.#client.list(namespace)));
    return lists.flatMap((list) => list.items.filter((r) => names(r, repo)));
  }

  async all(): Promise<RepositoryResource[]> {
    const list = await this.#client.list('');
    return list.items.flatMap((resource) => {
      const repo = repoOf(resource);
      return repo && this.placesOf(repo).includes(resource.metadata?.namespace ?? '') ? [{ repo: repo.full, resource }] : [];
    });
  }

  get(namespace: string, name: string): Promise<Repository | undefined> {
    return this.#client.get(namespace, name);
  }

  patch(namespace: string, name: string, patch: unknown): Promise<Repository> {
    return this.#client.patch(namespace, name, patch, 'merge');
  }
}

function names(resource: Repository, repo: RepoPath): boolean {
  return resource.spec?.owner === repo.owner && resource.spec?.name === repo.name;
}

/** The repository a resource names, or `undefined` for a spec that is not a repository path. */
function repoOf(resource: Repository): RepoPath | undefined {
  try {
    return parseRepoPath(`${resource.spec?.owner ?? ''}/${resource.spec?.name ?? ''}`);
  } catch {
    return undefined;
  }
}
