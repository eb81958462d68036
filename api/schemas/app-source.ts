import { Type } from 'typebox';
import { AppSourceSpec, MAX_PREVIEW_PATTERNS, SourceBuildSettings } from '../../src/apis/v1alpha1/app-source.ts';
import { BranchName } from '../../src/apis/v1alpha1/repository.ts';
import { DNS_SUBDOMAIN_PATTERN } from '../../src/apis/v1alpha1/strings.ts';
import { AppId } from './app.ts';
import { ProjectId } from './project.ts';

// Response schemas avoid `anyOf` (see project.ts): optional fields are simply absent.

const PreviewDatabases = Type.Unsafe<'none' | 'fork'>({
  type: 'string',
  enum: ['none', 'fork'],
  description:
    'none (the default): preview apps get none of the app’s linked databases. fork: each preview gets its own copy of every database the app links (a point-in-time restore taken when the preview is created), linked under the same variables; a plain variable whose value is such a database’s URL gets the copy’s URL. The copies go with the preview.',
});

// The bounds are the kind's own (src/apis/v1alpha1/app-source.ts), so what the API takes the apiserver takes.
const SEGMENT = '[A-Za-z0-9_](\\.?[A-Za-z0-9_-])*';
export const SOURCE_BUILD_PAGE_MAX = 100;
export const SOURCE_BUILD_PAGE_DEFAULT = 20;

export const SourceBody = Type.Object(
  {
    repository: Type.String({
      minLength: 3,
      maxLength: 201,
      pattern: `^${SEGMENT}/${SEGMENT}$`,
      description: 'The repository on the platform’s repository service, `owner/name`: one of this project’s, so `<project id>/<name>` (a Repository in its namespace).',
    }),
    production_branch: Type.Optional(Type.With(BranchName, { description: 'Each push to this branch is built and deployed to the app. Default main.' })),
    preview_branches: Type.Optional(
      Type.With(AppSourceSpec.properties.previewBranches, {
        description: `Patterns of the branches (other than the production branch) that get a preview app of their own; \`*\` matches any characters, \`/\` included. At most ${MAX_PREVIEW_PATTERNS}. Absent: every branch; empty: none.`,
      }),
    ),
    root_directory: Type.Optional(AppSourceSpec.properties.rootDirectory),
    build_command: Type.Optional(SourceBuildSettings.properties.command),
    output_directory: Type.Optional(SourceBuildSettings.properties.outputDirectory),
    environment: Type.Optional(AppSourceSpec.properties.environment),
    preview_databases: Type.Optional(PreviewDatabases),
  },
  { additionalProperties: false, description: 'The connection; what is left out gets its default (PUT replaces the settings whole).' },
);

const Commit = (description: string) => Type.String({ description });

const SourceDeployment = Type.Object(
  {
    branch: Type.String({ description: 'The branch.' }),
    app_id: Type.String({ description: 'The app it deploys to: the app itself for production, a preview app (`<branch-slug>--<app>`) otherwise.' }),
    host: Type.Optional(Type.String({ description: 'The app’s default host.' })),
    commit: Type.Optional(Commit('The branch’s head as last read from the repository.')),
    source_build_id: Type.Optional(Type.String({ description: 'The source build of that commit.' })),
    deployed_commit: Type.Optional(Commit('The commit the app serves.')),
    deployed_build_id: Type.Optional(Type.String({ description: 'The build (as `GET …/builds` lists it) the app serves from it.' })),
    deployed_at: Type.Optional(Type.String({ description: 'When it was deployed.' })),
    message: Type.Optional(Type.String({ description: 'Why the head is not deployed, when it is not (its build failed, the deploy was refused), or why a preview lacks a copy of a database.' })),
    databases: Type.Optional(Type.Array(Type.String(), { description: 'A preview’s own copies of the app’s databases (preview_databases fork), by database id.' })),
  },
  { description: 'One branch and what its app serves.' },
);

const ContextVariables = Type.Unsafe<Record<string, string>>({ type: 'object', additionalProperties: { type: 'string' }, description: 'Plain variables, by name.' });

export const AppSourceView = Type.Object(
  {
    app_id: AppId,
    repository: Type.String({ description: '`owner/name`.' }),
    production_branch: Type.String({ description: 'The branch deployed to the app.' }),
    preview_branches: Type.Array(Type.String(), { description: 'Patterns of the branches that get previews (`["*"]`: every branch; empty: none).' }),
    root_directory: Type.Optional(Type.String({ description: 'Where the app lives in the repository; absent: its root.' })),
    build_command: Type.Optional(Type.String({ description: 'The build command; absent: nothing is built, the output directory is packed as `cw deploy` packs one.' })),
    output_directory: Type.Optional(Type.String({ description: 'What is packed, relative to the root directory; absent: the root directory.' })),
    environment: Type.Optional(
      Type.Object(
        { production: ContextVariables, preview: ContextVariables },
        { description: 'Plain variables of builds per context (and of the preview apps), over the app’s own; shown only to a token with `env:read`.' },
      ),
    ),
    preview_databases: PreviewDatabases,
    state: Type.Unsafe<'pending' | 'ready' | 'failed'>({
      type: 'string',
      enum: ['pending', 'ready', 'failed'],
      description:
        'ready: the production branch’s head is built and deployed; failed: see reason and message (the repository is missing or unreadable, a build or its deploy failed); pending: the platform is at work, or the production branch has no commit yet (BranchNotFound).',
    }),
    reason: Type.Optional(Type.String({ description: 'In one word: RepositoryNotFound, RepositoryUnavailable, BranchNotFound, Building, BuildFailed, BuildCancelled, DeployFailed, Deployed, …' })),
    message: Type.Optional(Type.String({ description: 'What the platform found, in one line.' })),
    production: Type.Optional(SourceDeployment),
    previews: Type.Array(SourceDeployment, { description: 'The preview branches and their apps.' }),
    created_at: Type.String({ description: 'When the app was connected.' }),
  },
  { description: 'A repository connected to an app: its settings and what is deployed from it.' },
);

export const SourceBuildId = Type.String({
  minLength: 1,
  maxLength: 253,
  pattern: DNS_SUBDOMAIN_PATTERN,
  description: 'Source build id: `<app>-<first 12 hex digits of the commit>`.',
});

export const SourceBuildParams = Type.Object({ projectId: ProjectId, appId: AppId, build: SourceBuildId }, { additionalProperties: false });

export const SourceBuildView = Type.Object(
  {
    source_build_id: Type.String({ description: 'Its id (`<app>-<first 12 hex digits of the commit>`).' }),
    app_id: Type.String({ description: 'The app it deploys to (the app, or one of its previews).' }),
    context: Type.Unsafe<'production' | 'preview'>({ type: 'string', enum: ['production', 'preview'], description: 'production or preview.' }),
    repository: Type.String({ description: '`owner/name`.' }),
    branch: Type.String({ description: 'The branch whose head the commit was.' }),
    commit: Type.String({ description: 'The commit built.' }),
    state: Type.Unsafe<'queued' | 'building' | 'succeeded' | 'failed' | 'cancelled'>({
      type: 'string',
      enum: ['queued', 'building', 'succeeded', 'failed', 'cancelled'],
      description: 'queued, building, succeeded (stored as a build and deployed), failed (reason and message say why) or cancelled (by a newer push, or a user).',
    }),
    cancel_requested: Type.Boolean({ description: 'A cancel was asked for; state says whether it took effect yet.' }),
    reason: Type.Optional(Type.String({ description: 'CamelCase: CommandFailed, DeadlineExceeded, ResourceLimitExceeded, OutputInvalid, SourceUnavailable, Superseded, …' })),
    message: Type.Optional(Type.String({ description: 'One line: what happened, and for a failure why.' })),
    commit_message: Type.Optional(Type.String({ description: 'The first line of the commit message.' })),
    author: Type.Optional(Type.String({ description: 'The commit’s author.' })),
    created_at: Type.String({ description: 'When the platform saw the commit.' }),
    started_at: Type.Optional(Type.String({ description: 'When the build started.' })),
    finished_at: Type.Optional(Type.String({ description: 'When it ended.' })),
    build_id: Type.Optional(Type.String({ description: 'The build (as `GET …/builds` lists it) it was stored as.' })),
  },
  { description: 'One build of an app from one commit of its repository.' },
);

export const SourceBuildQuery = Type.Object(
  {
    branch: Type.Optional(Type.With(BranchName, { description: 'Only the builds of this branch.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SOURCE_BUILD_PAGE_MAX, description: `At most this many (default ${SOURCE_BUILD_PAGE_DEFAULT}).` })),
    cursor: Type.Optional(Type.String({ pattern: '^[0-9]{15}\\.[a-z0-9.-]{1,253}$', maxLength: 270, description: 'The `next` of the previous page: continue after it.' })),
  },
  { additionalProperties: false },
);

export const SourceBuildPage = Type.Object({
  builds: Type.Array(SourceBuildView, { description: 'Newest first.' }),
  next: Type.Unsafe<string | null>({ type: ['string', 'null'], description: 'Pass as `cursor` for the next page; null at the end.' }),
});

export const BuildLogQuery = Type.Object(
  {
    follow: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false')], { description: '`true`: a server-sent event stream that follows the log until the build ends (as `Accept: text/event-stream` asks).' }),
    ),
  },
  { additionalProperties: false },
);
