import type { Repository } from '../../../src/apis/v1alpha1/repository.ts';
import { objectKey } from '../../../src/kube/index.ts';

/**
 * Which of the resources sharing one `owner/name` holds it; the others report `NameConflict` and never
 * touch the bucket. The order, total and the same in every process:
 *
 * 1. A resource that has claimed an incarnation (`status.repoId`) comes first: it created or adopted what is
 *    in the bucket, and a younger resource must not take that over.
 * 2. Then the oldest (`creationTimestamp`), then the smallest `namespace/name` (timestamps have seconds).
 *
 * A resource being deleted keeps its place until it is gone, because its finalizer still has the bucket
 * data to delete; the next in line then takes the name over and creates a new, empty repository.
 */
export function nameHolder(candidates: readonly Repository[]): Repository | undefined {
  return [...candidates].sort(holderOrder)[0];
}

/**
 * The project whose namespace holds `repo`, when that project is not its owner: a project's repositories are
 * `{project}/…` (what its git tokens reach), so a resource in one project's namespace naming another owner may
 * not hold that name. `projectOf` names the project of a namespace (none for other namespaces, such as cw-git's
 * own, where any owner goes).
 */
export function foreignOwnerOf(repo: Repository, projectOf: (namespace: string) => string | undefined): string | undefined {
  const project = projectOf(repo.metadata?.namespace ?? '');
  return project !== undefined && project !== repo.spec?.owner ? project : undefined;
}

function holderOrder(a: Repository, b: Repository): number {
  const claimed = Number(!a.status?.repoId) - Number(!b.status?.repoId);
  if (claimed !== 0) return claimed;
  // RFC 3339 in UTC with whole seconds, as the apiserver writes it: string order is time order.
  const age = (a.metadata?.creationTimestamp ?? '').localeCompare(b.metadata?.creationTimestamp ?? '');
  if (age !== 0) return age;
  const [ka, kb] = [objectKey(a), objectKey(b)];
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
