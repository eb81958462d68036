import type { Repository } from '../../../src/apis/v1alpha1/repository.ts';
import { findCondition } from '../../../src/conditions/index.ts';
import type { Informer } from '../../../src/kube/index.ts';

/**
 * The project's repository `owner/name`: a Repository in `namespace` naming it that the Repository controller
 * reports Ready, so it holds the name in the bucket. A resource a tenant applied for another project's repository
 * is never Ready (OwnerNotAllowed, NameConflict), so a source or a build cannot read a repository that is not its
 * project's. Answers the resource, or why there is none.
 */
export function projectRepository(repositories: Informer<Repository>, namespace: string, repo: string): { repository: Repository } | { missing: string } {
  const named = repositories.list(namespace).filter((r) => r.metadata?.namespace === namespace && `${r.spec.owner}/${r.spec.name}` === repo);
  if (named.length === 0) return { missing: `this project has no repository ${repo}` };
  const ready = named.find((r) => r.status?.observedGeneration === r.metadata?.generation && findCondition(r.status?.conditions, 'Ready')?.status === 'True');
  if (!ready) return { missing: `the repository ${repo} is not ready in this project: ${findCondition(named[0]?.status?.conditions, 'Ready')?.message ?? 'not reconciled yet'}` };
  return { repository: ready };
}
