import { Type, type Static } from 'typebox';
import type { CustomResource, KindDescriptor } from '../kind-descriptor.ts';
import { Conditions, ObservedGeneration } from './conditions.ts';
import { CATEGORY } from './group-version.ts';
import { immutable } from './strings.ts';

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
export const BranchName = Type.String({
  minLength: 1,
  maxLength: 244,
  pattern: `^${BRANCH_SEGMENT}(/${BRANCH_SEGMENT})*$`,
  description: 'Branch short name (without refs/heads/).',
});

export const RepositorySpec = Type.Object({
  owner: Type.With(RepositoryOwner, identity('owner')),
  name: Type.With(RepositoryName, identity('name')),
  // Immutable: the repository store has no HEAD retarget yet, so a change could never be carried out.
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

export const RepositoryStatus = Type.Object({
  conditions: Type.Optional(Conditions),
  observedGeneration: Type.Optional(ObservedGeneration),
  headSeq: Type.Optional(
    Type.String({
      maxLength: 20,
      pattern: '^(0|[1-9][0-9]*)$',
      // A string because the WAL sequence is a 64-bit counter, beyond JSON's safe integers.
      description: 'Latest published WAL sequence number, as a decimal string.',
    }),
  ),
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
});
export type RepositoryStatus = Static<typeof RepositoryStatus>;

/** Condition types of a Repository. */
export const RepositoryConditions = {
  /** The repository exists in the bucket and is served. */
  Ready: 'Ready',
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
  /** Unknown: the object store cannot be reached; retried with backoff. */
  StoreUnavailable: 'StoreUnavailable',
  /** False: the object store answered something unusable (a corrupt manifest, an unknown schema). */
  StoreError: 'StoreError',
  /** False: the resource is being deleted and deleting its bucket data failed; retried with backoff. */
  DeletionFailed: 'DeletionFailed',
} as const;
export type RepositoryReason = (typeof RepositoryReasons)[keyof typeof RepositoryReasons];

/** The finalizer that deletes a repository's bucket data before its resource goes away. */
export const REPOSITORY_FINALIZER = 'cloudwright.dev/repository-data';

/**
 * Annotation adopting a repository that is already in the bucket and was not created by this resource:
 * its value must be that repository's `repoId` (`cw-git repo info`), so nothing is taken over by accident.
 */
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
    { name: 'Seq', type: 'string', jsonPath: '.status.headSeq', description: 'Latest WAL sequence.' },
    { name: 'Pristine', type: 'boolean', jsonPath: '.status.pristine', description: 'Still empty.', priority: 1 },
  ],
};
