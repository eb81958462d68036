import { Type, type Static } from 'typebox';
import type { CustomResource, KindDescriptor } from '../kind-descriptor.ts';
import { Conditions, ObservedGeneration } from './conditions.ts';
import { CATEGORY } from './group-version.ts';
import { immutable } from './strings.ts';

// `{owner}/{repo}` is the first two path segments of every repository URL, so both stay URL-safe and
// neither may be '.' or '..'.

export const RepositoryOwner = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?$',
  description: 'Owner segment of the repository path.',
});

export const RepositoryName = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[A-Za-z0-9_-][A-Za-z0-9._-]*$',
  description: 'Repository segment of the repository path.',
});

/** A branch short name: slash-separated segments that do not start or end with '.'. */
export const BranchName = Type.String({
  minLength: 1,
  maxLength: 244,
  pattern: '^[A-Za-z0-9_-]([A-Za-z0-9._-]*[A-Za-z0-9_-])?(/[A-Za-z0-9_-]([A-Za-z0-9._-]*[A-Za-z0-9_-])?)*$',
  description: 'Branch short name (without refs/heads/).',
});

export const RepositorySpec = Type.Object({
  owner: Type.With(RepositoryOwner, immutable('owner')),
  name: Type.With(RepositoryName, immutable('name')),
  defaultBranch: Type.Optional(
    Type.With(BranchName, { default: 'main', description: 'Branch HEAD points at. Defaults to main.' }),
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
});
export type RepositoryStatus = Static<typeof RepositoryStatus>;

/** Condition types of a Repository. */
export const RepositoryConditions = {
  /** The repository exists in the bucket and is served. */
  Ready: 'Ready',
} as const;

export type Repository = CustomResource<'Repository', RepositorySpec, RepositoryStatus>;

/**
 * A git repository of the repository service, served at `/{owner}/{name}`. Namespaced in the owning
 * project's namespace; `{owner}/{name}` must be unique across the cluster, which the controller checks.
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
