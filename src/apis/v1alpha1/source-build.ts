import { Type, type Static } from 'typebox';
import type { CustomResource, KindDescriptor } from '../kind-descriptor.ts';
import { Conditions, ObservedGeneration } from './conditions.ts';
import { SourceBuildSettings } from './app-source.ts';
import { CATEGORY } from './group-version.ts';
import { MapOf } from './map-of.ts';
import { BranchName } from './repository.ts';
import { EnvironmentKey } from './runtime-app.ts';
import { DnsLabel, immutable, Text, Timestamp } from './strings.ts';

/** SourceBuilds kept per app: the newest, as deploy history; the AppSource controller deletes older finished ones. */
export const MAX_SOURCE_BUILDS_PER_APP = 20;

/** Removed once a deleted build's run is stopped and its objects (log, source, output) are gone from the bucket. */
export const SOURCE_BUILD_FINALIZER = 'cloudwright.dev/source-build';

export const SourceBuildSpec = Type.Object({
  app: DnsLabel({ description: 'The RuntimeApp the build deploys to (the production app or a preview app).', ...immutable('app') }),
  source: DnsLabel({ description: 'The AppSource it was derived from.', ...immutable('source') }),
  context: Type.Union([Type.Literal('production'), Type.Literal('preview')], { description: 'production or preview.', ...immutable('context') }),
  repository: Type.String({ maxLength: 201, description: 'owner/name of the repository.', ...immutable('repository') }),
  branch: Type.With(BranchName, { description: 'The branch whose head this commit was.', ...immutable('branch') }),
  commit: Type.String({ minLength: 40, maxLength: 64, pattern: '^[0-9a-f]{40}([0-9a-f]{24})?$', description: 'The commit built.', ...immutable('commit') }),
  rootDirectory: Type.Optional(Type.String({ maxLength: 512, description: 'The source’s root directory when the build was made.', ...immutable('rootDirectory') })),
  build: Type.Optional(Type.With(SourceBuildSettings, { description: 'The source’s build settings when the build was made.', ...immutable('build') })),
  environment: Type.Optional(
    MapOf(Type.String({ maxLength: 4096, description: 'Plain configuration value.' }), {
      maxProperties: 256,
      keys: EnvironmentKey,
      description: 'The build’s environment: the app’s plain variables and the context’s, when the build was made.',
    }),
  ),
  cancelled: Type.Optional(Type.Boolean({ description: 'Set when a newer push to the branch supersedes the build (or a user cancels it): a queued build never starts, a running one is stopped.' })),
});
export type SourceBuildSpec = Static<typeof SourceBuildSpec>;

export const SourceBuildState = Type.Union([Type.Literal('Queued'), Type.Literal('Building'), Type.Literal('Succeeded'), Type.Literal('Failed'), Type.Literal('Cancelled')], {
  description: 'Queued, Building, Succeeded (an artifact stored as a Build), Failed (see reason and message) or Cancelled (superseded by a newer push).',
});
export type SourceBuildState = Static<typeof SourceBuildState>;

export const SourceBuildStatus = Type.Object({
  conditions: Type.Optional(Conditions),
  observedGeneration: Type.Optional(ObservedGeneration),
  state: Type.Optional(SourceBuildState),
  reason: Type.Optional(Type.String({ maxLength: 64, description: 'CamelCase: CommandFailed, DeadlineExceeded, OutputInvalid, SourceUnavailable, Superseded, …' })),
  message: Type.Optional(Text({ maxLength: 1024, description: 'One line: what happened, and for a failure why.' })),
  commitMessage: Type.Optional(Text({ maxLength: 256, description: 'The first line of the commit message.' })),
  author: Type.Optional(Text({ maxLength: 256, description: 'The commit’s author.' })),
  startedAt: Type.Optional(Timestamp({ description: 'When the build started.' })),
  finishedAt: Type.Optional(Timestamp({ description: 'When it ended.' })),
  logTrimmedAt: Type.Optional(Timestamp({ description: 'When its log was cut to its end: past its app’s newest finished builds, a build keeps only the last part of its log.' })),
  buildId: Type.Optional(DnsLabel({ description: 'The Build the artifact was stored as (Succeeded).' })),
  runner: Type.Optional(Type.String({ maxLength: 253, description: 'Where it ran: a Job’s name, or local.' })),
  attempts: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'Runs started (a run lost with its runner is started again).' })),
});
export type SourceBuildStatus = Static<typeof SourceBuildStatus>;

export const SourceBuildReasons = {
  Superseded: 'Superseded',
  /** Cancelled by a user (the API's cancel, or spec.cancelled set by hand). */
  Cancelled: 'Cancelled',
  CommandFailed: 'CommandFailed',
  DeadlineExceeded: 'DeadlineExceeded',
  ResourceLimitExceeded: 'ResourceLimitExceeded',
  OutputInvalid: 'OutputInvalid',
  SourceUnavailable: 'SourceUnavailable',
  RunnerFailed: 'RunnerFailed',
} as const;

/**
 * On a build the AppSource controller cancelled because a newer push superseded it: the build that did. A
 * cancelled build without it was cancelled by a user, and its commit is not built again until the next push.
 */
export const SUPERSEDED_BY_ANNOTATION = 'cloudwright.dev/superseded-by';

export type SourceBuild = CustomResource<'SourceBuild', SourceBuildSpec, SourceBuildStatus>;

/**
 * One build of an app from one commit, derived by the AppSource controller from the repository's refs, run by
 * the operator in a sandbox (a Job in a cluster, a limited child process under `make dev`). Immutable: a
 * new push is a new SourceBuild. Named `<app>-<first 12 hex digits of the commit>`, owned by its AppSource.
 */
export const SourceBuildKind: KindDescriptor<'SourceBuild', typeof SourceBuildSpec, typeof SourceBuildStatus> = {
  kind: 'SourceBuild',
  plural: 'sourcebuilds',
  singular: 'sourcebuild',
  shortNames: ['cwsb'],
  scope: 'Namespaced',
  categories: [CATEGORY],
  description: 'A build of a Cloudwright runtime app from one commit of its connected repository.',
  // The fields' own rules hold a value that stays; these hold one that comes or goes, so a build's record stays
  // what was built (tenants may patch a SourceBuild, to cancel it), and a cancel is never undone.
  objectRules: [
    {
      rule: 'has(self.spec.rootDirectory) == has(oldSelf.spec.rootDirectory) && has(self.spec.build) == has(oldSelf.spec.build) && has(self.spec.environment) == has(oldSelf.spec.environment)',
      message: 'a SourceBuild is immutable but for spec.cancelled',
    },
    { rule: '!has(oldSelf.spec.environment) || (has(self.spec.environment) && self.spec.environment == oldSelf.spec.environment)', message: 'a SourceBuild is immutable but for spec.cancelled' },
    { rule: '!has(oldSelf.spec.cancelled) || !oldSelf.spec.cancelled || (has(self.spec.cancelled) && self.spec.cancelled)', message: 'a cancelled SourceBuild stays cancelled' },
  ],
  spec: SourceBuildSpec,
  status: SourceBuildStatus,
  printerColumns: [
    { name: 'App', type: 'string', jsonPath: '.spec.app', description: 'The app it deploys to.' },
    { name: 'Branch', type: 'string', jsonPath: '.spec.branch', description: 'Branch.' },
    { name: 'Commit', type: 'string', jsonPath: '.spec.commit', description: 'Commit built.' },
    { name: 'State', type: 'string', jsonPath: '.status.state', description: 'Queued, Building, Succeeded, Failed or Cancelled.' },
  ],
};
