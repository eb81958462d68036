import { ADOPT_REPO_ID_ANNOTATION, RepositoryReasons, type Repository, type RepositoryStatus } from '../../../src/apis/v1alpha1/repository.ts';
import { setCondition, type ConditionUpdate } from '../../../src/conditions/index.ts';
import type { Decision } from './plan.ts';

/** What one reconcile found out, from which the status follows. */
export type Observation =
  | Exclude<Decision, { kind: 'create' }>
  /** Another resource (`namespace/name`) holds the name. */
  | { readonly kind: 'conflict'; readonly holder: string }
  /** The store refuses the name (the message says why; it names no secret). */
  | { readonly kind: 'invalid-name'; readonly detail: string }
  /** The object store could not be reached (during a delete too). */
  | { readonly kind: 'store-unavailable'; readonly deleting: boolean }
  /** The store answered something this build cannot use (`errorName`: the error class, e.g. CorruptObjectError). */
  | { readonly kind: 'store-error'; readonly errorName: string; readonly deleting: boolean };

function ready(repo: Repository, observation: Observation): ConditionUpdate {
  const full = `${repo.spec.owner}/${repo.spec.name}`;
  const R = RepositoryReasons;
  switch (observation.kind) {
    case 'hold':
      return { type: 'Ready', status: 'True', reason: R.Available, message: `Repository ${full} is in the bucket and served at /${full}.` };
    case 'conflict':
      return {
        type: 'Ready',
        status: 'False',
        reason: R.NameConflict,
        message: `Repository resource ${observation.holder} already holds ${full}; this one takes the name over only once that one is deleted.`,
      };
    case 'exists':
      return {
        type: 'Ready',
        status: 'False',
        reason: R.RepositoryExists,
        message: `The bucket already holds ${full} (repoId ${observation.repoId}) with data this resource did not create. To manage it with this resource, annotate it with ${ADOPT_REPO_ID_ANNOTATION}=${observation.repoId}; otherwise choose another name.`,
      };
    case 'lost':
      return {
        type: 'Ready',
        status: 'False',
        reason: R.RepositoryLost,
        message: observation.found
          ? `The bucket's ${full} is another repository (repoId ${observation.found}) than the one this resource holds (repoId ${observation.claim}); it is left alone. Delete this resource, then create one with ${ADOPT_REPO_ID_ANNOTATION} to manage it.`
          : `Repository ${full} (repoId ${observation.claim}) was deleted from the bucket outside this resource. Delete and re-create this resource to start a new, empty repository.`,
      };
    case 'invalid-name':
      return { type: 'Ready', status: 'False', reason: R.InvalidName, message: observation.detail };
    case 'store-unavailable':
      return observation.deleting
        ? { type: 'Ready', status: 'False', reason: R.StoreUnavailable, message: `Deleting the bucket data of ${full} failed: the object store cannot be reached; retrying.` }
        : { type: 'Ready', status: 'Unknown', reason: R.StoreUnavailable, message: 'The object store cannot be reached; retrying.' };
    case 'store-error':
      return {
        type: 'Ready',
        status: 'False',
        reason: observation.deleting ? R.DeletionFailed : R.StoreError,
        message: `${observation.deleting ? `Deleting the bucket data of ${full} failed` : `The bucket's ${full} cannot be used`} (${observation.errorName}); retrying. The operator's log has the details.`,
      };
  }
}

/**
 * The status `observation` calls for. `repoId`, `headSeq` and `pristine` change only when the repository
 * was seen (`hold`); otherwise they keep saying what was last known, and `repoId` (the claim) is never
 * dropped. Messages carry no sequence numbers or times, so an unchanged repository writes nothing.
 */
export function desiredStatus(repo: Repository, observation: Observation, now: Date): RepositoryStatus {
  const generation = repo.metadata?.generation;
  const conditions = setCondition(repo.status?.conditions, ready(repo, observation), generation, now).conditions;
  const seen = observation.kind === 'hold' ? { repoId: observation.repoId, headSeq: String(observation.seq), pristine: observation.seq === 0 } : {};
  return { ...repo.status, ...seen, conditions, ...(generation !== undefined ? { observedGeneration: generation } : {}) };
}
