// The port the git server creates and deletes repositories through (`PUT`/`DELETE /{owner}/{repo}`). Two
// implementations: straight to the bucket (a cw-git without Kubernetes) and through `Repository` custom
// resources, whose controller does the bucket work (with the operator running).
import Value from 'typebox/value';
import { BranchName } from '../../src/apis/v1alpha1/repository.ts';
import { PublicError } from '../../src/errors.ts';
import type { RepoPath } from '../../src/repo-store/index.ts';
import type { RepositoryResources } from './kube-repository-resources.ts';

export interface CreateRepositoryOptions {
  /** The branch HEAD points at (a short name, without `refs/heads/`). Default `main`. */
  defaultBranch?: string;
  /**
   * The project namespace the repository belongs to (a project's git token created it). Only the Kubernetes
   * directory uses it: the `Repository` resource goes there instead of the directory's own namespace.
   */
  namespace?: string;
}

export interface DeleteRepositoryOptions {
  /** Delete only resources of this project namespace (a project's git token asks). Absent: wherever they are. */
  namespace?: string;
}

/** Creates and deletes repositories. Both calls resolve only once the bucket shows the change. */
export interface RepositoryDirectory {
  /**
   * Creates `owner/name`, pristine (no refs, seq 0); resolves once it exists in the bucket. Throws
   * `RepoExistsError` when the name is taken, `InvalidBranchNameError` for a bad `defaultBranch`.
   */
  create(repo: RepoPath, options?: CreateRepositoryOptions): Promise<void>;
  /** Deletes it and its bucket data; resolves once gone. Throws `RepoNotFoundError` when absent. */
  delete(repo: RepoPath, options?: DeleteRepositoryOptions): Promise<void>;
  /** The repositories' `Repository` resources (the Kubernetes directory only): what the events role marks on a push. */
  readonly resources?: RepositoryResources;
}

export const DEFAULT_BRANCH = 'main';

/** A `defaultBranch` that is no valid branch name. */
export class InvalidBranchNameError extends PublicError {
  override readonly name = 'InvalidBranchNameError';
  constructor(branch: string) {
    super(400, `"${branch.slice(0, 300)}" is not a branch name: expected segments of A-Z a-z 0-9 . _ - separated by /, without .., a leading dot, or a trailing . or .lock`);
  }
}

/**
 * The branch both implementations use, checked by the same rule the `Repository` kind's schema states (so a
 * name the bucket directory takes is never one the apiserver refuses). Throws `InvalidBranchNameError`.
 */
export function defaultBranchOf(options: CreateRepositoryOptions | undefined): string {
  const branch = options?.defaultBranch ?? DEFAULT_BRANCH;
  const segments = branch.split('/');
  // The schema's pattern and length, then what its CEL rule adds (TypeBox does not evaluate CEL).
  const valid = Value.Check(BranchName, branch) && !segments.some((s) => s.endsWith('.lock'));
  if (!valid) throw new InvalidBranchNameError(branch);
  return branch;
}
