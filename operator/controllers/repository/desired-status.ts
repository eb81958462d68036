import { ADOPT_REPO_ID_ANNOTATION, RepositoryHealthReasons, RepositoryReasons, type Repository, type RepositoryStatus } from '../../../src/apis/v1alpha1/repository.ts';
import { formatTime, removeCondition, setCondition, type Condition, type ConditionUpdate } from '../../../src/conditions/index.ts';
import type { RepoOverview } from '../../../src/repo-maintenance/index.ts';
import type { Decision } from './plan.ts';

/** What of a repository's maintenance overview (src/repo-maintenance/overview.ts) the status shows. */
export type MaintenanceView = Pick<RepoOverview, 'packs' | 'checkpoint' | 'lastCompaction' | 'lastFsck' | 'health'>;

/** The maintenance overview of a held repository, or why it could not be read (Ready does not depend on it). */
export type Maintenance =
  | { readonly kind: 'overview'; readonly overview: MaintenanceView }
  | { readonly kind: 'store-unavailable' }
  /** `errorName`: the error class, e.g. CorruptObjectError for a torn `maintenance/status.json`. */
  | { readonly kind: 'store-error'; readonly errorName: string };

/** What one reconcile found out, from which the status follows. */
export type Observation =
  /** The bucket holds this resource's incarnation, at `seq`. */
  | (Extract<Decision, { kind: 'hold' }> & { readonly maintenance: Maintenance })
  | Exclude<Decision, { kind: 'create' | 'hold' }>
  /** Another resource (`namespace/name`) holds the name. */
  | { readonly kind: 'conflict'; readonly holder: string }
  /** The store refuses the name (the message says why; it names no secret). */
  | { readonly kind: 'invalid-name'; readonly detail: string }
  /** The resource is in `project`'s namespace but names another owner. */
  | { readonly kind: 'owner-not-allowed'; readonly project: string }
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
    case 'owner-not-allowed':
      return {
        type: 'Ready',
        status: 'False',
        reason: R.OwnerNotAllowed,
        message: `This namespace is project ${observation.project}'s: its repositories are ${observation.project}/<name>, not ${full}. Nothing was created; use owner ${observation.project}.`,
      };
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

/** The longest Healthy message: what `kubectl describe` shows in a line or two; the overview has the rest. */
const MAX_HEALTH_MESSAGE = 1024;

/** The overview's problems, each followed by what to do about it. */
function problemsMessage(problems: MaintenanceView['health']['problems']): string {
  const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;
  const message = problems.map((p) => `${sentence(p.problem)} ${sentence(p.suggestion)}`).join(' ');
  return message.length <= MAX_HEALTH_MESSAGE ? message : `${message.slice(0, MAX_HEALTH_MESSAGE - 1)}…`;
}

/** What `observation` says about the maintenance overview; `undefined`: the resource holds no repository to judge. */
function maintenanceOf(observation: Observation): Maintenance | undefined {
  switch (observation.kind) {
    case 'hold':
      return observation.maintenance;
    case 'store-unavailable':
      return { kind: 'store-unavailable' };
    case 'store-error':
      return { kind: 'store-error', errorName: observation.errorName };
    default:
      return undefined;
  }
}

/** The Healthy condition `observation` calls for; `undefined`: none (the resource holds no repository). */
function healthy(repo: Repository, observation: Observation): ConditionUpdate | undefined {
  const full = `${repo.spec.owner}/${repo.spec.name}`;
  const R = RepositoryHealthReasons;
  const maintenance = maintenanceOf(observation);
  switch (maintenance?.kind) {
    case undefined:
      return undefined;
    case 'store-unavailable':
      return { type: 'Healthy', status: 'Unknown', reason: R.StoreUnavailable, message: 'The object store cannot be reached, so the maintenance status cannot be read; retrying.' };
    case 'store-error':
      return {
        type: 'Healthy',
        status: 'Unknown',
        reason: R.StoreError,
        message: `The maintenance status of ${full} cannot be read (${maintenance.errorName}); retrying. The operator's log has the details.`,
      };
    case 'overview': {
      const { status, problems } = maintenance.overview.health;
      if (status === 'ok') return { type: 'Healthy', status: 'True', reason: R.Healthy, message: `Maintenance reports nothing about ${full} that needs attention.` };
      return { type: 'Healthy', status: 'False', reason: status === 'error' ? R.Error : R.Degraded, message: problemsMessage(problems) };
    }
  }
}

/** A maintenance record's time as the API writes times; a time that does not parse is left out. */
function time(at: string): { time?: string } {
  const ms = Date.parse(at);
  return Number.isNaN(ms) ? {} : { time: formatTime(ms) };
}

/** The status fields of the overview; a record maintenance never wrote is absent. */
function maintenanceFields(view: MaintenanceView): Pick<RepositoryStatus, 'packs' | 'packBytes' | 'lastCheckpoint' | 'lastCompaction' | 'lastFsck'> {
  const { checkpoint, lastCompaction: compaction, lastFsck: fsck } = view;
  return {
    packs: view.packs.count,
    packBytes: view.packs.bytes,
    ...(checkpoint ? { lastCheckpoint: { seq: String(checkpoint.seq), ...time(checkpoint.at) } } : {}),
    ...(compaction ? { lastCompaction: { ...time(compaction.at), outcome: compaction.outcome, packsBefore: compaction.packsBefore, packsAfter: compaction.packsAfter } } : {}),
    ...(fsck ? { lastFsck: { ...time(fsck.at), seq: String(fsck.seq), outcome: fsck.outcome, missingObjects: fsck.missingObjects } } : {}),
  };
}

const MAINTENANCE_FIELDS = ['packs', 'packBytes', 'lastCheckpoint', 'lastCompaction', 'lastFsck'] as const;

/**
 * The status `observation` calls for. `repoId`, `headSeq` and `pristine` change only when the repository
 * was seen (`hold`), the maintenance fields only when its overview was read too; otherwise they keep
 * saying what was last known, and `repoId` (the claim) is never dropped. Healthy follows the overview's
 * health, is Unknown while it cannot be read, and is absent while the resource holds no repository. Ready
 * never depends on the overview. Messages carry no times (Healthy's carries the overview's counts, which
 * change only as the repository does), so an unchanged repository writes nothing.
 */
export function desiredStatus(repo: Repository, observation: Observation, now: Date): RepositoryStatus {
  const generation = repo.metadata?.generation;
  let conditions: Condition[] = setCondition(repo.status?.conditions, ready(repo, observation), generation, now).conditions;
  const health = healthy(repo, observation);
  conditions = health ? setCondition(conditions, health, generation, now).conditions : removeCondition(conditions, 'Healthy').conditions;
  const status: RepositoryStatus = { ...repo.status };
  if (observation.kind === 'hold') {
    Object.assign(status, { repoId: observation.repoId, headSeq: String(observation.seq), pristine: observation.seq === 0 });
    if (observation.maintenance.kind === 'overview') {
      for (const field of MAINTENANCE_FIELDS) delete status[field];
      Object.assign(status, maintenanceFields(observation.maintenance.overview));
    }
  }
  return { ...status, conditions, ...(generation !== undefined ? { observedGeneration: generation } : {}) };
}

/**
 * A merge patch turning status `before` into `after`: a field `after` drops is set to null, in nested objects
 * too (a merge patch keeps what it does not mention, and merges objects field by field; lists it replaces).
 */
export function statusPatch(before: object | undefined, after: object): Record<string, unknown> {
  const patch: Record<string, unknown> = { ...after };
  const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null && !Array.isArray(value);
  for (const [field, old] of Object.entries(before ?? {})) {
    const next = patch[field];
    if (next === undefined) patch[field] = null;
    else if (isObject(old) && isObject(next)) patch[field] = statusPatch(old, next);
  }
  return patch;
}
