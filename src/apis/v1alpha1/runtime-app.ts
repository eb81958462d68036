import { Type, type Static, type TString } from 'typebox';
import type { CustomResource, KindDescriptor } from '../kind-descriptor.ts';
import { AppHttps } from './app-https.ts';
import { Conditions, ObservedGeneration } from './conditions.ts';
import { CATEGORY } from './group-version.ts';
import { MapOf } from './map-of.ts';
import { Activation, MAX_HISTORY } from './activation.ts';
import { MigrationsStatus, SpecMigrations } from './migrations.ts';
import { RolloutPolicy, RolloutRelease, RolloutStatus } from './rollout.ts';
import { DisplayName, DnsLabel, Hostname } from './strings.ts';

/** A build id: a DNS label, assigned by the API server when an artifact is uploaded. */
export function BuildId(description: string): TString {
  return DnsLabel({ description });
}

/** An environment variable name. */
export const EnvironmentKey = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
  description: 'Environment variable name.',
});

/** How much a linked database's token may do: `full` reads and writes, `read-only` only reads. */
export const DatabaseAccess = Type.Union([Type.Literal('full'), Type.Literal('read-only')], {
  description: 'full: the token reads and writes; read-only: it only reads (cw-db refuses writes).',
});
export type DatabaseAccess = Static<typeof DatabaseAccess>;

/** Entries of spec.databaseEnvironment an app may have. */
export const MAX_DATABASE_ENVIRONMENT_KEYS = 32;

/** What a linked variable holds: the Database's app token (the default) or the URL apps reach it at. */
export const DatabaseValue = Type.Union([Type.Literal('token'), Type.Literal('url')], {
  description: "token (the default): the Database's app token of the access asked; url: the SQL URL apps reach the Database at (the runtime's endpoint and the database id).",
});
export type DatabaseValue = Static<typeof DatabaseValue>;

/**
 * A variable whose value the runtime resolves from a Database: its app token, minted and rotated by the platform
 * (the spec never holds it), or its URL. A binding `DB` is the pair `DB_URL` + `DB_TOKEN`.
 */
export const DatabaseEnvironmentEntry = Type.Object(
  {
    database: DnsLabel({ description: 'A Database in the app’s namespace.' }),
    access: Type.Optional(DatabaseAccess),
    provides: Type.Optional(DatabaseValue),
  },
  { additionalProperties: false },
);
export type DatabaseEnvironmentEntry = Static<typeof DatabaseEnvironmentEntry>;

/** Host names an app is served on besides its default host: deploy host names and attached custom domains. */
export const MAX_APP_HOSTNAMES = 32;

/** Variables an app may have. */
export const MAX_ENVIRONMENT_KEYS = 128;
/**
 * Bytes (UTF-8) of all names and values of an app together, as Vercel bounds a deployment's environment at
 * 64 KB: 128 values of 4096 characters could otherwise exceed what the apiserver stores in one object, and every
 * runtime replica keeps every app's environment in memory.
 */
export const MAX_ENVIRONMENT_BYTES = 64 * 1024;

export const RuntimeAppSpec = Type.Object(
  {
    displayName: DisplayName({ description: 'The name the app was created with.' }),
    activeBuildId: Type.Optional(BuildId('The build to serve; absent until the first deploy. A deploy or a rollback changes it.')),
    environment: Type.Optional(
      MapOf(Type.String({ maxLength: 4096, description: 'Plain configuration value.' }), {
        maxProperties: MAX_ENVIRONMENT_KEYS,
        keys: EnvironmentKey,
        // However the app is written (kubectl, GitOps), as the API bounds it.
        rules: [
          {
            rule: `self.map(k, size(bytes(k)) + size(bytes(self[k]))).sum() <= ${MAX_ENVIRONMENT_BYTES}`,
            message: `the environment may take at most ${MAX_ENVIRONMENT_BYTES} bytes (names and values, UTF-8)`,
          },
        ],
        description: 'Plain environment of the app, by variable name (stored here and shown by the API: no secrets).',
      }),
    ),
    databaseEnvironment: Type.Optional(
      MapOf(DatabaseEnvironmentEntry, {
        maxProperties: MAX_DATABASE_ENVIRONMENT_KEYS,
        keys: EnvironmentKey,
        description:
          "Variables whose value comes from a Database in the app's namespace, by variable name: its app token (access: read-only unless full), or its URL (provides: url). The runtime reads the token from the Database's app-token Secret, which the platform rotates; neither this object nor the API ever holds it.",
      }),
    ),
    hostnames: Type.Optional(
      Type.Array(Hostname({ description: 'Host name.' }), {
        maxItems: MAX_APP_HOSTNAMES,
        uniqueItems: true,
        description: 'Host names to serve the app on besides its default host (the deploy hostnames option); custom domains are attached with AppHostname.',
      }),
    ),
    maxConcurrentRequests: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10000,
        format: 'int32',
        description: 'Requests served at once before new ones queue; absent: the runtime default.',
      }),
    ),
    https: Type.Optional(AppHttps),
    rollout: Type.Optional(RolloutPolicy),
    migrations: Type.Optional(SpecMigrations),
  },
  {
    'x-kubernetes-validations': [
      {
        rule: '!has(self.environment) || !has(self.databaseEnvironment) || self.databaseEnvironment.all(k, !(k in self.environment))',
        message: 'a variable is in environment or in databaseEnvironment, not both',
      },
    ],
  },
);
export type RuntimeAppSpec = Static<typeof RuntimeAppSpec>;

export const RuntimeAppStatus = Type.Object({
  conditions: Type.Optional(Conditions),
  observedGeneration: Type.Optional(ObservedGeneration),
  servingBuildId: Type.Optional(BuildId('The build the runtime serves now.')),
  url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, description: 'URL of the default host, for example https://app.example.' })),
  hosts: Type.Optional(
    Type.Array(Hostname({ description: 'Host name.' }), {
      maxItems: 64,
      description: 'Every host name the runtime routes to the app, the default host first.',
    }),
  ),
  rollout: Type.Optional(RolloutStatus),
  history: Type.Optional(
    Type.Array(Activation, {
      maxItems: MAX_HISTORY,
      description: `The latest activations of a build (changes of spec.activeBuildId), newest first, at most ${MAX_HISTORY} (docs/console.md, "Deploy history").`,
    }),
  ),
  migrations: Type.Optional(MigrationsStatus),
  served: Type.Optional({
    ...RolloutRelease,
    description:
      'The release served last with nothing held back (the spec’s, once its build’s migrations, if any, were applied): what keeps serving while the active build’s migrations are pending or failed.',
  }),
});
export type RuntimeAppStatus = Static<typeof RuntimeAppStatus>;

/** Condition types of a RuntimeApp. */
export const RuntimeAppConditions = {
  Ready: 'Ready',
  /** The runtime serves spec.activeBuildId (False while rolling out or when the build cannot load). */
  Deployed: 'Deployed',
  /** A rollout is under way (True while Progressing or Paused; False once it Succeeded or was Aborted). */
  RolloutProgressing: 'RolloutProgressing',
} as const;

export type RuntimeApp = CustomResource<'RuntimeApp', RuntimeAppSpec, RuntimeAppStatus>;

/**
 * On RuntimeApps while the operator has the artifact bucket: removed by the RuntimeApp controller once every
 * stored build artifact under the app's prefix is deleted, so no deletion (the API's, kubectl's, a GitOps
 * prune's) leaves them behind.
 */
export const RUNTIME_APP_FINALIZER = 'cloudwright.dev/runtime-app-artifacts';

/**
 * Annotation asking the RuntimeApp controller to act now (as Flux's `reconcile.fluxcd.io/requestedAt`: any new
 * value asks again): a repeated DELETE of an app still being deleted sets it, so the artifacts' teardown is retried
 * at once rather than when its back-off, grown during an object store outage, runs out.
 */
export const RECONCILE_REQUEST_ANNOTATION = 'cloudwright.dev/reconcile-requested-at';

/**
 * A deployable V8-isolate app (Next.js among them) in a project's namespace. The name is the app id
 * (a DNS label, used in its default host). Build history is kept with the build artifacts, not in the
 * spec: the spec only points at the build to serve.
 */
export const RuntimeAppKind: KindDescriptor<'RuntimeApp', typeof RuntimeAppSpec, typeof RuntimeAppStatus> = {
  kind: 'RuntimeApp',
  plural: 'runtimeapps',
  singular: 'runtimeapp',
  shortNames: ['cwapp'],
  scope: 'Namespaced',
  categories: [CATEGORY],
  description: 'A Cloudwright runtime app: builds served by the V8-isolate runtime.',
  name: DnsLabel({ description: 'App id.' }),
  spec: RuntimeAppSpec,
  status: RuntimeAppStatus,
  printerColumns: [
    { name: 'Build', type: 'string', jsonPath: '.status.servingBuildId', description: 'Build being served.' },
    { name: 'URL', type: 'string', jsonPath: '.status.url', description: 'URL of the default host.' },
    { name: 'Rollout', type: 'string', jsonPath: '.status.rollout.phase', description: 'Phase of the latest rollout.' },
    { name: 'Weight', type: 'integer', jsonPath: '.status.rollout.weight', description: 'Percent of traffic on the new release during a rollout.' },
    {
      name: 'Active Build',
      type: 'string',
      jsonPath: '.spec.activeBuildId',
      description: 'Build requested by the spec.',
      priority: 1,
    },
  ],
};
