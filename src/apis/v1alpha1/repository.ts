import { Type, type Static } from 'typebox';
import type { CustomResource, KindDescriptor } from '../kind-descriptor.ts';
import { Conditions, ObservedGeneration } from './conditions.ts';
import { CATEGORY } from './group-version.ts';
import { immutable, Timestamp } from './strings.ts';

// `{owner}/{repo}` is the first two path segments of every repository URL and the bucket prefix of the
// repository's state, so both segments follow the repository store's rule (src/repo-store/repo-path.ts):
// 1-100 of A-Z a-z 0-9 . _ -, not starting with '.' or '-', no '..', not ending with '.' or '.git'. The
// pattern says all but the '.git' suffix (RE2 has no look-around); a CEL rule says that.
// One character, then any number of (an optional single dot + a non-dot character): no '..', no trailing '.'.
const SEGMENT_PATTERN = '^[A-Za-z0-9_](\\.?[A-Za-z0-9_-])*$';
const NO_GIT_SUFFIX = { rule: "!self.endsWith('.git')", message: 'must not end with .git (the URL adds it)' };

export const RepositoryOwner = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: SEGMENT_PATTERN,
  description: 'Owner segment of the repository path (case-sensitive).',
  'x-kubernetes-validations': [NO_GIT_SUFFIX],
});

export const RepositoryName = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: SEGMENT_PATTERN,
  description: 'Repository segment of the repository path (case-sensitive).',
  'x-kubernetes-validations': [NO_GIT_SUFFIX],
});

// git's ref-name rules as far as a branch of ours needs them: slash-separated segments of A-Z a-z 0-9 . _ -,
// each starting with a non-dot, no '..', not ending with '.' (the pattern) or '.lock' (the CEL rule).
const BRANCH_SEGMENT = '[A-Za-z0-9_-](\\.?[A-Za-z0-9_-])*';

/** A path segment's validations plus immutability (`Type.With` replaces the list, so both are spelled). */
function identity(field: string) {
  return { 'x-kubernetes-validations': [NO_GIT_SUFFIX, ...immutable(field)['x-kubernetes-validations']] };
}

/** A branch short name, valid as `refs/heads/<name>` (git check-ref-format). */
/** What BranchName takes, for code that must tell a git branch name the API cannot carry. */
export const BRANCH_NAME_PATTERN = `^${BRANCH_SEGMENT}(/${BRANCH_SEGMENT})*$`;
export const BRANCH_NAME_MAX = 244;
export const BranchName = Type.String({
  minLength: 1,
  maxLength: BRANCH_NAME_MAX,
  pattern: BRANCH_NAME_PATTERN,
  description: 'Branch short name (without refs/heads/).',
});

export const RepositorySpec = Type.Object({
  owner: Type.With(RepositoryOwner, identity('owner')),
  name: Type.With(RepositoryName, identity('name')),
  // Immutable: it is the HEAD a repository starts with; afterwards the default branch is repository state, changed
  // through the repository service (`PUT /{owner}/{repo}/api/refs`), as pushes change branches.
  defaultBranch: Type.Optional(
    Type.With(BranchName, {
      default: 'main',
      description: 'Branch HEAD points at, set when the repository is created. Defaults to main.',
      'x-kubernetes-validations': [
        { rule: "!self.endsWith('.lock') && !self.contains('.lock/')", message: 'a branch segment must not end with .lock' },
        ...immutable('defaultBranch')['x-kubernetes-validations'],
      ],
    }),
  ),
});
export type RepositorySpec = Static<typeof RepositorySpec>;

/** A WAL sequence number: a string because the sequence is a 64-bit counter, beyond JSON's safe integers. */
function Seq(description: string) {
  return Type.String({ maxLength: 20, pattern: '^(0|[1-9][0-9]*)$', description });
}

function Count(description: string) {
  return Type.Integer({ minimum: 0, format: 'int64', description });
}

/**
 * How a maintenance unit ended (`interrupted`: the maintainer was shutting down, or the unit ran past its deadline;
 * the next pass runs it again).
 */
export const MaintenanceOutcome = Type.Union([Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('interrupted')], {
  description: 'How it ended: succeeded, failed, or interrupted (the maintainer was shutting down, or the unit ran past its deadline, maintenance.unit_deadline; the next pass runs it again).',
});

export const RepositoryStatus = Type.Object({
  conditions: Type.Optional(Conditions),
  observedGeneration: Type.Optional(ObservedGeneration),
  headSeq: Type.Optional(Seq('Latest published WAL sequence number, as a decimal string.')),
  pristine: Type.Optional(Type.Boolean({ description: 'True while the repository is empty (never written).' })),
  repoId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^[A-Za-z0-9-]+$',
      description:
        "The incarnation of the repository in the bucket this resource created or adopted (the manifest's repoId). " + 'Only that incarnation is served as, and deleted with, this resource.',
    }),
  ),
  packs: Type.Optional(Count('Live packs at the head: a fetch reads every one, compaction merges them.')),
  packBytes: Type.Optional(Count('Bytes of the live packs.')),
  lastCheckpoint: Type.Optional(
    Type.Object(
      {
        seq: Seq('The sequence number the checkpoint folds the log up to, as a decimal string.'),
        time: Type.Optional(Timestamp({ description: 'When it was written.' })),
      },
      { description: "The latest checkpoint of the repository's log, as maintenance reports it." },
    ),
  ),
  lastCompaction: Type.Optional(
    Type.Object(
      {
        time: Type.Optional(Timestamp({ description: 'When it ended.' })),
        outcome: MaintenanceOutcome,
        packsBefore: Count('Live packs before it.'),
        packsAfter: Count('Live packs after it.'),
      },
      { description: 'The last pack compaction, as maintenance reports it.' },
    ),
  ),
  lastFsck: Type.Optional(
    Type.Object(
      {
        time: Type.Optional(Timestamp({ description: 'When it ended.' })),
        seq: Seq('The sequence number whose state was checked, as a decimal string.'),
        outcome: MaintenanceOutcome,
        missingObjects: Count('Objects the refs need that no live pack has (0 when clean).'),
      },
      { description: 'The last integrity check (git fsck of the published state), as maintenance reports it.' },
    ),
  ),
});
export type RepositoryStatus = Static<typeof RepositoryStatus>;

/** Condition types of a Repository. */
export const RepositoryConditions = {
  /** The repository exists in the bucket and is served. */
  Ready: 'Ready',
  /** Maintenance reports nothing that needs attention (integrity, compaction, checkpoints, maintainers). */
  Healthy: 'Healthy',
} as const;

/** Reasons of a Repository's `Ready` condition (stable: the git server and alerts key on them). */
export const RepositoryReasons = {
  /** True: the bucket holds this resource's incarnation of `{owner}/{name}`. */
  Available: 'Available',
  /** False: another Repository resource holds `{owner}/{name}`; this one waits until that one is deleted. */
  NameConflict: 'NameConflict',
  /** False: the bucket holds `{owner}/{name}` with data this resource did not create (see the adopt annotation). */
  RepositoryExists: 'RepositoryExists',
  /** False: the incarnation this resource holds was deleted (or replaced) in the bucket by someone else. */
  RepositoryLost: 'RepositoryLost',
  /** False: `{owner}/{name}` is not a name the repository store accepts. */
  InvalidName: 'InvalidName',
  /**
   * False: the resource is in a project's namespace but names another owner. A project's repositories are
   * `{project}/…` (its git tokens reach those); such a resource never holds a name, so it cannot take one from
   * the project it names.
   */
  OwnerNotAllowed: 'OwnerNotAllowed',
  /** Unknown: the object store cannot be reached; retried with backoff. */
  StoreUnavailable: 'StoreUnavailable',
  /** False: the object store answered something unusable (a corrupt manifest, an unknown schema). */
  StoreError: 'StoreError',
  /** False: the resource is being deleted and deleting its bucket data failed; retried with backoff. */
  DeletionFailed: 'DeletionFailed',
} as const;
export type RepositoryReason = (typeof RepositoryReasons)[keyof typeof RepositoryReasons];

/**
 * Reasons of a Repository's `Healthy` condition, from the health of the repository's maintenance overview
 * (`GET /api/overview`). Unknown while it cannot be read: `StoreUnavailable` or `StoreError`, as for Ready.
 */
export const RepositoryHealthReasons = {
  /** True: nothing needs attention. */
  Healthy: 'Healthy',
  /** False: maintenance is failing or falling behind (a failed compaction or fsck run, packs or log piling up, no maintainer); reads still work. */
  Degraded: 'Degraded',
  /** False: the repository is damaged (fsck found objects the refs need missing from every live pack). */
  Error: 'Error',
  StoreUnavailable: RepositoryReasons.StoreUnavailable,
  StoreError: RepositoryReasons.StoreError,
} as const;

/** The finalizer that deletes a repository's bucket data before its resource goes away. */
export const REPOSITORY_FINALIZER = 'cloudwright.dev/repository-data';

/**
 * Annotation adopting a repository that is already in the bucket and was not created by this resource:
 * its value must be that repository's `repoId` (`cw-git repo info`), so nothing is taken over by accident.
 */
/**
 * Set by cw-git's events role on each published change of the repository: its head sequence number (decimal,
 * only ever raised). A wake-up, not a source of truth: the AppSource controller watches it to read the refs
 * again within moments of a push, and reads them anyway on its periodic pass, so a missed mark loses nothing.
 */
export const PUSHED_SEQ_ANNOTATION = 'cloudwright.dev/pushed-seq';

export const ADOPT_REPO_ID_ANNOTATION = 'cloudwright.dev/adopt-repo-id';

export type Repository = CustomResource<'Repository', RepositorySpec, RepositoryStatus>;

/**
 * A git repository of the repository service, served at `/{owner}/{name}`. Namespaced in the owning
 * project's namespace; `{owner}/{name}` must be unique across the cluster, which the controller checks
 * (a second resource with the same pair reports `Ready=False`, reason `NameConflict`).
 */
export const RepositoryKind: KindDescriptor<'Repository', typeof RepositorySpec, typeof RepositoryStatus> = {
  kind: 'Repository',
  plural: 'repositories',
  singular: 'repository',
  shortNames: ['cwrepo'],
  scope: 'Namespaced',
  categories: [CATEGORY],
  description: 'A Cloudwright git repository, stored in the object store behind a write-ahead log.',
  spec: RepositorySpec,
  status: RepositoryStatus,
  printerColumns: [
    { name: 'Owner', type: 'string', jsonPath: '.spec.owner', description: 'Owner path segment.' },
    { name: 'Repository', type: 'string', jsonPath: '.spec.name', description: 'Repository path segment.' },
    { name: 'Healthy', type: 'string', jsonPath: '.status.conditions[?(@.type=="Healthy")].status', description: 'Status of the Healthy condition: False needs attention.' },
    { name: 'Head Seq', type: 'string', jsonPath: '.status.headSeq', description: 'Latest WAL sequence.' },
    { name: 'Packs', type: 'integer', jsonPath: '.status.packs', description: 'Live packs.' },
    { name: 'Last Fsck', type: 'string', jsonPath: '.status.lastFsck.outcome', description: 'Outcome of the last integrity check.' },
    { name: 'Pack Bytes', type: 'integer', jsonPath: '.status.packBytes', description: 'Bytes of the live packs.', priority: 1 },
    { name: 'Pristine', type: 'boolean', jsonPath: '.status.pristine', description: 'Still empty.', priority: 1 },
  ],
};
