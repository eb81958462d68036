import { Type, type Static } from 'typebox';
import type { CustomResource, KindDescriptor } from '../kind-descriptor.ts';
import { Conditions, ObservedGeneration } from './conditions.ts';
import { CATEGORY } from './group-version.ts';
import { MapOf } from './map-of.ts';
import { BranchName, RepositoryName, RepositoryOwner } from './repository.ts';
import { EnvironmentKey, MAX_DATABASE_ENVIRONMENT_KEYS } from './runtime-app.ts';
import { DnsLabel, Hostname, immutable, Text, Timestamp } from './strings.ts';

/** Most branch patterns a source lists for previews. */
export const MAX_PREVIEW_PATTERNS = 20;
/** Most previews one source keeps at once; branches beyond (in name order) get none, said in the status. */
export const MAX_PREVIEWS_PER_SOURCE = 50;

/** A relative path inside the repository: segments of printable characters, no `..`, no leading `/`. */
const RelativePath = (description: string) =>
  Type.String({ minLength: 1, maxLength: 512, pattern: '^(?:[A-Za-z0-9_@+=,~-][A-Za-z0-9_.@+=,~-]*)(?:/[A-Za-z0-9_@+=,~-][A-Za-z0-9_.@+=,~-]*)*$', description });

const ContextEnvironment = (description: string) => MapOf(Type.String({ maxLength: 4096, description: 'Plain configuration value.' }), { maxProperties: 128, keys: EnvironmentKey, description });

export const SourceBuildSettings = Type.Object(
  {
    command: Type.Optional(
      Text({
        minLength: 1,
        maxLength: 1024,
        description: 'Shell command run in the root directory, for example `npm ci && npm run build`. Absent: nothing is built; the output directory is packed as `cw deploy` packs a directory.',
      }),
    ),
    outputDirectory: Type.Optional(
      RelativePath('What is packed after the command, relative to the root directory (a worker directory or a Next.js app built with OpenNext). Absent: the root directory.'),
    ),
  },
  { additionalProperties: false, description: 'How a commit becomes an artifact.' },
);
export type SourceBuildSettings = Static<typeof SourceBuildSettings>;

export const AppSourceSpec = Type.Object({
  app: DnsLabel({ description: 'The RuntimeApp in this namespace that the production branch deploys to.', ...immutable('app') }),
  repository: Type.Object(
    { owner: RepositoryOwner, name: RepositoryName },
    { additionalProperties: false, description: 'The repository on the platform’s repository service (a Repository in this namespace with this owner and name).' },
  ),
  productionBranch: Type.Optional(Type.With(BranchName, { default: 'main', description: 'Each push to this branch is built and deployed to the app. Defaults to main.' })),
  previewBranches: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 244, pattern: '^[A-Za-z0-9_.*/-]+$', description: 'A branch pattern: * matches any characters, / included.' }), {
      maxItems: MAX_PREVIEW_PATTERNS,
      description: 'Branches other than the production branch that get a preview app, by pattern. Absent: every branch; empty: none.',
    }),
  ),
  rootDirectory: Type.Optional(RelativePath('Where the app lives inside the repository. Absent: the repository root.')),
  build: Type.Optional(SourceBuildSettings),
  previewDatabases: Type.Optional(
    Type.Union([Type.Literal('None'), Type.Literal('Fork')], {
      default: 'None',
      description:
        'None (the default): preview apps get none of the app’s linked databases. Fork: each preview gets its own copy of every database the app links (point-in-time restore at the preview’s creation), linked under the same variables; a plain variable whose value is such a database’s URL gets the copy’s URL. The copies go with the preview.',
    }),
  ),
  environment: Type.Optional(
    Type.Object(
      {
        production: Type.Optional(ContextEnvironment('Variables of production builds (the running app keeps its own environment).')),
        preview: Type.Optional(ContextEnvironment('Variables of preview builds and of the preview apps, over the app’s own environment.')),
      },
      { additionalProperties: false, description: 'Plain environment per context, on top of the app’s (no secrets: the API shows it).' },
    ),
  ),
});
export type AppSourceSpec = Static<typeof AppSourceSpec>;

const Commit = (description: string) => Type.String({ minLength: 40, maxLength: 64, pattern: '^[0-9a-f]{40}([0-9a-f]{24})?$', description });

export const SourceDeployment = Type.Object(
  {
    branch: Type.String({ maxLength: 244, description: 'The branch.' }),
    app: DnsLabel({ description: 'The RuntimeApp it deploys to.' }),
    host: Type.Optional(Hostname({ description: 'The app’s default host.' })),
    commit: Type.Optional(Commit('The branch’s head as last read from the repository.')),
    build: Type.Optional(Type.String({ maxLength: 253, description: 'The SourceBuild of that commit.' })),
    deployedCommit: Type.Optional(Commit('The commit the app serves, from the latest successful build deployed.')),
    deployedBuildId: Type.Optional(DnsLabel({ description: 'Its Build id.' })),
    deployedAt: Type.Optional(Timestamp({ description: 'When it was deployed.' })),
    message: Type.Optional(Text({ maxLength: 1024, description: 'Why the head is not deployed, when it is not (its build failed, the deploy was refused).' })),
    databases: Type.Optional(
      Type.Array(DnsLabel({ description: 'A Database.' }), { maxItems: MAX_DATABASE_ENVIRONMENT_KEYS, description: 'A preview’s own copies of the app’s databases (previewDatabases Fork).' }),
    ),
  },
  { description: 'One branch and what it serves.' },
);
export type SourceDeployment = Static<typeof SourceDeployment>;

export const AppSourceStatus = Type.Object({
  conditions: Type.Optional(Conditions),
  observedGeneration: Type.Optional(ObservedGeneration),
  production: Type.Optional(SourceDeployment),
  previews: Type.Optional(Type.Array(SourceDeployment, { maxItems: MAX_PREVIEWS_PER_SOURCE, description: 'The preview branches and their apps.' })),
  lastWakeSeq: Type.Optional(Type.String({ maxLength: 20, description: 'The repository’s change sequence this status was derived from.' })),
});
export type AppSourceStatus = Static<typeof AppSourceStatus>;

export const AppSourceConditions = {
  /** The repository exists here and its refs were read. */
  RepositoryReady: 'RepositoryReady',
  /** The production branch's head is built and deployed. */
  Ready: 'Ready',
} as const;

export const AppSourceReasons = {
  RepositoryNotFound: 'RepositoryNotFound',
  RepositoryUnavailable: 'RepositoryUnavailable',
  AppNotFound: 'AppNotFound',
  BranchNotFound: 'BranchNotFound',
  Building: 'Building',
  BuildFailed: 'BuildFailed',
  /** The head's build was cancelled by a user: nothing is built until the next push. */
  BuildCancelled: 'BuildCancelled',
  DeployFailed: 'DeployFailed',
  Deployed: 'Deployed',
} as const;

/** Preview RuntimeApps carry the source's name and their branch (the full name is an annotation: labels are short). */
export const PREVIEW_OF_LABEL = 'cloudwright.dev/preview-of';
export const PREVIEW_BRANCH_ANNOTATION = 'cloudwright.dev/preview-branch';
/** On a preview's copy of a database (previewDatabases Fork): the preview app it belongs to. */
export const PREVIEW_DATABASE_OF_LABEL = 'cloudwright.dev/preview-database-of';
/** On a preview app whose branch is gone: when it is deleted (the grace period). */
export const PREVIEW_EXPIRES_ANNOTATION = 'cloudwright.dev/preview-expires-at';

export type AppSource = CustomResource<'AppSource', AppSourceSpec, AppSourceStatus>;

/**
 * Connects a RuntimeApp to a repository on the platform's repository service: every push to the production
 * branch is built (a SourceBuild) and deployed to the app, and each preview branch gets a preview app of its own
 * on `<branch>--<app>.<project>.<base>`. Derived from the repository's refs, so a missed wake-up loses nothing.
 */
export const AppSourceKind: KindDescriptor<'AppSource', typeof AppSourceSpec, typeof AppSourceStatus> = {
  kind: 'AppSource',
  plural: 'appsources',
  singular: 'appsource',
  shortNames: ['cwsrc'],
  scope: 'Namespaced',
  categories: [CATEGORY],
  description: 'A repository connected to a Cloudwright runtime app: push to deploy, with previews per branch.',
  // One source per app: the app's name is the source's.
  objectRules: [{ rule: 'self.metadata.name == self.spec.app', message: 'an AppSource is named after its app (metadata.name must equal spec.app)' }],
  spec: AppSourceSpec,
  status: AppSourceStatus,
  printerColumns: [
    { name: 'App', type: 'string', jsonPath: '.spec.app', description: 'The production app.' },
    { name: 'Repository', type: 'string', jsonPath: '.spec.repository.name', description: 'Repository name.' },
    { name: 'Deployed', type: 'string', jsonPath: '.status.production.deployedCommit', description: 'The commit production serves.' },
  ],
};
