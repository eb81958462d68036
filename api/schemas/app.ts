import { Type, type Static } from 'typebox';
import { DISPLAY_TEXT_PATTERN, DISPLAY_TEXT_RULE } from './display-text.ts';
import { shape } from './one-of.ts';
import { MAX_DATABASE_ENVIRONMENT_KEYS } from '../../src/apis/v1alpha1/runtime-app.ts';
import { DEFAULT_HSTS_MAX_AGE_SECONDS, MAX_HSTS_MAX_AGE_SECONDS, MIN_PRELOAD_MAX_AGE_SECONDS } from '../../src/apis/v1alpha1/app-https.ts';
import { DNS_LABEL_PATTERN } from '../../src/apis/v1alpha1/strings.ts';
import { DEPLOY_HOSTNAMES_PATTERN, MAX_DEPLOY_HOSTNAMES } from '../../src/platform/deploy-hostnames.ts';
import { MAX_ENVIRONMENT_KEYS } from '../../src/platform/app-environment.ts';
import { DEFAULT_ARTIFACT_LIMITS } from '../../src/app-artifacts/artifact.ts';
import { ProjectId } from './project.ts';
import { RolloutSummary } from './app-rollout.ts';

// Response schemas avoid `anyOf` (see project.ts): optional fields are simply absent.

const dnsLabel = (description: string) => Type.String({ minLength: 1, maxLength: 63, pattern: DNS_LABEL_PATTERN, description });

export const AppId = dnsLabel('App id, as `POST …/apps` assigned it (a DNS label).');
export const BuildId = dnsLabel('Build id: `b-` and the first 16 hex digits of the artifact’s SHA-256.');
export const EnvironmentKey = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
  description: 'Variable name: letters, digits and `_`, not starting with a digit.',
});

export const AppParams = Type.Object({ projectId: ProjectId, appId: AppId }, { additionalProperties: false });
export const VariableParams = Type.Object({ projectId: ProjectId, appId: AppId, key: EnvironmentKey }, { additionalProperties: false });

const MAX_AGE_DESCRIPTION = `How long browsers keep to HTTPS after seeing the header, in seconds (default ${DEFAULT_HSTS_MAX_AGE_SECONDS}, one year; at most two years). 0 tells browsers to forget the policy.`;
const HSTS_DESCRIPTION = 'Send `Strict-Transport-Security` with the app’s answers over HTTPS. Given, it replaces the app’s HSTS settings whole.';

/** HSTS without `preload`. */
const HstsPlain = Type.Object(
  {
    max_age_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_HSTS_MAX_AGE_SECONDS, description: MAX_AGE_DESCRIPTION })),
    include_subdomains: Type.Optional(Type.Boolean({ description: 'Cover every subdomain of each of the app’s hosts too (`includeSubDomains`; default false).' })),
    preload: Type.Optional(Type.Literal(false, { description: 'No `preload` (the default).' })),
  },
  { additionalProperties: false, description: HSTS_DESCRIPTION },
);

/** HSTS with `preload`: the schema itself holds hstspreload.org's requirements, so a client sees them before it asks. */
const HstsPreload = Type.Object(
  {
    max_age_seconds: Type.Optional(
      Type.Integer({ minimum: MIN_PRELOAD_MAX_AGE_SECONDS, maximum: MAX_HSTS_MAX_AGE_SECONDS, description: `${MAX_AGE_DESCRIPTION} With preload, at least ${MIN_PRELOAD_MAX_AGE_SECONDS}.` }),
    ),
    include_subdomains: Type.Literal(true, { description: 'Preload needs `includeSubDomains`.' }),
    preload: Type.Literal(true, { description: 'Consent to browsers’ built-in HSTS lists. Hard to undo: see docs/tls.md.' }),
  },
  { additionalProperties: false, description: `${HSTS_DESCRIPTION} With preload: include_subdomains true and max_age_seconds of at least ${MIN_PRELOAD_MAX_AGE_SECONDS}.` },
);

const HstsBody = Type.Union([HstsPlain, HstsPreload], {
  description: `HSTS settings (max_age_seconds 0 to ${MAX_HSTS_MAX_AGE_SECONDS}, include_subdomains, preload); preload needs include_subdomains true and a max_age_seconds of at least ${MIN_PRELOAD_MAX_AGE_SECONDS} (hstspreload.org's requirements).`,
});

/** The HTTPS settings a create or an update takes: fields left out are kept (off for a new app). */
export const HttpsBody = Type.Object(
  {
    redirect_http: Type.Optional(
      Type.Boolean({
        description: 'Answer plain-HTTP requests to the app with `308` to the same URL over HTTPS, on each host the platform serves a certificate for (ACME challenges excepted). Default false.',
      }),
    ),
    hsts: Type.Optional(Type.Union([HstsBody, Type.Null()], { description: 'HSTS settings; `null` removes them (no header).' })),
  },
  { additionalProperties: false, description: 'Redirect to HTTPS and HSTS (docs/tls.md, "Redirect and HSTS").' },
);

export const AppUpdateBody = Type.Object({ https: Type.Optional(HttpsBody) }, { additionalProperties: false, description: 'The settings to change; what is left out stays as it is.' });

export const AppBody = Type.Object(
  {
    https: Type.Optional(HttpsBody),
    name: Type.String({
      minLength: 1,
      maxLength: 128,
      pattern: DISPLAY_TEXT_PATTERN,
      description:
        'The app’s name (' +
        DISPLAY_TEXT_RULE +
        '), unique within the project. A name that is a DNS label (`web`) is also the app id; ' +
        'any other name gets a slug of it plus six hex digits as its id (`My Shop` → `my-shop-b14e76`).',
    }),
  },
  { additionalProperties: false },
);

export const App = Type.Object(
  {
    app_id: Type.String({ description: 'Identifier, unique within the project; part of the default host.' }),
    name: Type.String({ description: 'Name chosen at creation.' }),
    active_build_id: Type.String({ description: 'Build currently selected for serving; empty until the first deploy.' }),
    builds: Type.Array(Type.Object({ build_id: Type.String() }), { description: 'Builds uploaded for the app, newest first.' }),
    hosts: Type.Array(Type.String(), {
      description:
        'Host names the app is bound to: its default host `<app_id>.<project>.<runtime base domain>` first, then the deploy’s host names and the custom domains attached and finalized for it.',
    }),
    url: Type.Optional(Type.String({ description: 'URL of the default host, once the runtime reports serving it.' })),
    ready: Type.Boolean({ description: 'The runtime serves the active build with the current environment and host names (false while a deploy rolls out).' }),
    status_reason: Type.Optional(
      Type.String({
        description:
          'Why, in one word: Serving, RollingOut, BuildFailed, BuildNotFound, InsufficientStorage, QuotaExceeded, RuntimeUnavailable, NoBuild, CPULimitExceeded or MemoryLimitExceeded (the Ready condition’s reason; the last two: the runtime stopped the app for a while, see docs/runtime.md).',
      }),
    ),
    status_message: Type.Optional(Type.String({ description: 'Why the app is or is not ready, as the runtime reports it.' })),
    serving_build_id: Type.Optional(Type.String({ description: 'The build the runtime serves now; it differs from active_build_id while a deploy or rollback rolls out.' })),
    preview_of: Type.Optional(Type.String({ description: 'A preview app: the app whose repository’s branch it serves (docs/push-to-deploy.md).' })),
    branch: Type.Optional(Type.String({ description: 'A preview app’s branch.' })),
    source: Type.Optional(Type.String({ description: 'The repository (`owner/name`) connected to the app, when one is: pushes deploy it (`…/source`).' })),
    source_message: Type.Optional(
      Type.String({
        description:
          'Why the connected repository’s latest push to the production branch is not served, when it is not: its build failed (and why), or its deploy was refused (`…/source` has the details).',
      }),
    ),
    rollout: Type.Optional(RolloutSummary),
    https: Type.Object(
      {
        redirect_http: Type.Boolean({ description: 'Plain-HTTP requests are redirected (308) to HTTPS on each host with a certificate.' }),
        hsts: Type.Optional(
          Type.Object(
            { max_age_seconds: Type.Integer(), include_subdomains: Type.Boolean(), preload: Type.Boolean() },
            { description: 'The `Strict-Transport-Security` sent over HTTPS; absent: none.' },
          ),
        ),
      },
      { description: 'Redirect to HTTPS and HSTS.' },
    ),
    created_at: Type.String({ format: 'date-time', description: 'ISO 8601 UTC timestamp.' }),
  },
  { description: 'A runtime app.' },
);

export const Deployment = Type.Object(
  {
    build_id: BuildId,
    kind: Type.Union([Type.Literal('deploy'), Type.Literal('rollback')], { description: 'rollback: the build had been active before.' }),
    activated_at: Type.String({ format: 'date-time', description: 'When it became the app’s active build (as the operator saw the change).' }),
    served_at: Type.Optional(
      Type.String({ format: 'date-time', description: 'When every live runtime replica first served it to all traffic (with a rollout: when the rollout succeeded). Absent until then.' }),
    ),
    seconds_to_serve: Type.Optional(Type.Number({ description: 'From activated_at to served_at, in seconds.' })),
    by: Type.Optional(
      Type.String({
        description: 'Who activated it: `user:<id>` (a deploy or rollback through the API) or `push:<owner>/<repository>@<commit>` (push to deploy). Absent for a change made another way (kubectl).',
      }),
    ),
    commit: Type.Optional(Type.String({ description: 'The commit it was built from (push to deploy).' })),
    rollout_steps: Type.Optional(
      Type.Array(Type.Object({ weight: Type.Integer({ description: 'Percent of traffic.' }), at: Type.String({ format: 'date-time' }) }), {
        description: 'The weights its rollout went through, in order (docs/rollouts.md).',
      }),
    ),
    aborted_at: Type.Optional(Type.String({ format: 'date-time', description: 'When its rollout was aborted.' })),
    active: Type.Boolean({ description: 'It is the latest activation and still the app’s active build.' }),
  },
  { description: 'One activation of a build (a change of the app’s active build, whoever made it).' },
);

export const Build = Type.Object(
  {
    build_id: Type.String(),
    created_at: Type.String({ format: 'date-time', description: 'When it was uploaded (ISO 8601 UTC).' }),
    size: Type.Integer({ description: 'Size of the uploaded `.tar.zst` in bytes.' }),
    digest: Type.String({ description: '`sha256:` and the hex SHA-256 of the uploaded `.tar.zst`.' }),
    active: Type.Boolean({ description: 'It is the app’s `active_build_id`.' }),
    deploy_options: Type.Optional(
      Type.Object(
        {
          hostnames: Type.Array(Type.String(), { description: 'The deploy’s host names (besides the default host); empty when it named none.' }),
          max_concurrent_requests: Type.Optional(Type.Integer({ description: 'The deploy’s concurrency bound; absent when it left the runtime default (100).' })),
        },
        {
          description:
            'The options the build was last deployed with: a rollback to it applies them again. Absent for a build deployed before builds recorded their options (a rollback to it keeps the app’s current ones).',
        },
      ),
    ),
  },
  { description: 'An uploaded, durably stored build of an app.' },
);

export const DeployResult = Type.Object(
  {
    app_id: Type.String({ description: 'App deployed to.' }),
    build_id: Type.String({ description: 'The build; it is now the app’s `active_build_id`.' }),
    hosts: Type.Array(Type.String(), {
      description: 'Host names the app is bound to after this deploy: the default host first, then the deploy’s host names and the attached custom domains it keeps.',
    }),
    uploaded: Type.Boolean({ description: 'True when this request uploaded the artifact; false for a rollback.' }),
  },
  { description: 'The deploy result.' },
);

const MIB = 1024 * 1024;

/**
 * The raw artifact. Validation of the body is `parseArtifact`'s (400/413 with the reason), not the schema's:
 * this schema only documents the bytes.
 */
export const ArtifactBody = Type.Unsafe<AsyncIterable<Uint8Array> | undefined>({
  contentMediaType: 'application/zstd',
  description:
    `The build artifact: a zstd-compressed tar archive (\`.tar.zst\`), sent raw as \`application/octet-stream\`, at most ` +
    `${DEFAULT_ARTIFACT_LIMITS.maxCompressedBytes / MIB} MiB (${DEFAULT_ARTIFACT_LIMITS.maxUncompressedBytes / MIB} MiB unpacked, ` +
    `${DEFAULT_ARTIFACT_LIMITS.maxFileBytes / MIB} MiB per file, ${DEFAULT_ARTIFACT_LIMITS.maxFiles} files). Layout: see docs/runtime.md.`,
});

export const DeployQuery = Type.Object(
  {
    hostnames: Type.Optional(
      Type.String({
        maxLength: 8192,
        pattern: DEPLOY_HOSTNAMES_PATTERN,
        description:
          `Host names to serve the app on besides its default host, comma-separated (at most ${MAX_DEPLOY_HOSTNAMES}). A per-deployment ` +
          'option: they replace the app’s current deploy host names, and absent or empty means none (not the previous deploy’s); custom ' +
          'domains attached through `…/domains` are served either way. Recorded on the build, so a rollback to it binds them again. Case ' +
          'and a trailing dot are ignored. Names under the runtime’s base domain must end in `.<projectId>.<base domain>`; a name another ' +
          'app is bound to is a 409. Where a GitOps tool applies the app’s `hostnames`, absent keeps its value and another is a 409.',
      }),
    ),
    environment: Type.Optional(
      Type.Literal('production', {
        description:
          'The environment the build runs with. An app has one environment, `production` (the variables of `…/environment`), so this is ' +
          'the only value; it is accepted so that clients may name it.',
      }),
    ),
    max_concurrent_requests: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10000,
        description:
          'Requests the app serves at once before new ones queue. A per-deployment option: absent means the runtime default (100), not the ' +
          'previous deploy’s bound. Recorded on the build, so a rollback to it applies it again. Where a GitOps tool applies the app’s ' +
          '`maxConcurrentRequests`, absent keeps its value and another is a 409.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const RollbackBody = Type.Object({ build_id: BuildId }, { additionalProperties: false });

export const VariableBody = Type.Object(
  {
    value: Type.Optional(Type.String({ maxLength: 4096, description: 'A plain configuration value (stored in the app and shown by GET). Give this or `database`.' })),
    secret: Type.Optional(
      Type.Literal(false, { description: 'With `value`: `false` (the default); `true` is refused with 400, since secret values are not enabled (link a database token instead).' }),
    ),
    database: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 63,
        pattern: DNS_LABEL_PATTERN,
        description: "Link the variable to this database of the project: its value is the database's app token, which the runtime binds and no response ever shows. Give this or `value`.",
      }),
    ),
    access: Type.Optional(Type.Union([Type.Literal('full'), Type.Literal('read-only')], { description: 'With `database`: `read-only` (the default) or `full` (reads and writes).' })),
  },
  // A plain value (with `secret`), or a link (with `access`): never both, never neither.
  { additionalProperties: false, oneOf: [shape('value', 'database', 'access'), shape('database', 'value', 'secret')] },
);

/** What to send when a body is neither of the two shapes {@link VariableBody} allows. */
export const VARIABLE_SHAPE_RULE = 'Give either "value" (a plain value, with "secret" if any) or "database" (a link to a database’s token, with "access" if any), not both or neither.';

const VariableValue = Type.Object({
  value: Type.Optional(Type.String({ description: 'A plain variable’s value; absent for a linked one.' })),
  database: Type.Optional(Type.String({ description: 'A linked variable’s database; its token is never shown.' })),
  access: Type.Optional(Type.String({ description: 'A linked token’s access: `read-only` or `full`.' })),
  provides: Type.Optional(Type.Literal('url', { description: 'Present on the `_URL` variable of a database binding: the runtime gives the database’s URL.' })),
  secret: Type.Boolean({ description: 'false for a plain value or a database’s URL; true for a database’s token (no value shown).' }),
});

export const Environment = Type.Unsafe<Record<string, Static<typeof VariableValue>>>({
  type: 'object',
  additionalProperties: VariableValue,
  description: `The app’s variables by name (at most ${MAX_ENVIRONMENT_KEYS} plain ones and ${MAX_DATABASE_ENVIRONMENT_KEYS} database links).`,
});

export const Variable = Type.Object(
  {
    key: Type.String(),
    value: Type.Optional(Type.String({ description: 'A plain variable’s value; absent for a linked one.' })),
    database: Type.Optional(Type.String({ description: 'A linked variable’s database.' })),
    access: Type.Optional(Type.String({ description: 'A linked variable’s access: `read-only` or `full`.' })),
    secret: Type.Boolean({ description: 'false for a plain value; true for a database link (no value shown).' }),
  },
  { description: 'A stored environment variable.' },
);

const PendingRecord = Type.Object({ record_type: Type.String(), name: Type.String(), value: Type.String() });

export const AppDeletion = Type.Object(
  {
    app_id: Type.String(),
    status: Type.Union([Type.Literal('deleted'), Type.Literal('deleting')], {
      description:
        'deleted: the app is gone, its stored artifacts with it (200). deleting: the platform had not finished deleting its stored artifacts within 10 s (202); it carries on, and the same DELETE answers again (200 once gone).',
    }),
    deleted: Type.Object(
      {
        routing_pointer: Type.Boolean({
          description: 'The app had an active build and the pointer to it is gone: the runtime no longer routes to it.',
        }),
        runtime_resources: Type.Integer({ description: 'Control-plane objects removed: the app itself (once gone), its build records and its hostname bindings.' }),
        build_artifacts: Type.Integer({ description: 'Stored build artifacts removed (0 while the app is still being deleted).' }),
        environment_keys: Type.Integer({ description: 'Environment variables removed.' }),
        dns_records: Type.Integer({ description: 'Platform-owned DNS records of the app’s host names removed from managed project domains.' }),
        hostnames: Type.Array(Type.String(), { description: 'Host names the app was bound to, now unbound.' }),
      },
      { description: 'What was cleaned up.' },
    ),
    dns_cleanup_pending: Type.Array(
      Type.Object({
        hostname: Type.String(),
        records: Type.Array(PendingRecord, {
          description: 'The records published for it, as the attach returned them; empty when the platform never listed any (deploy host names).',
        }),
      }),
      {
        description: 'Host names whose DNS lives at the owner’s DNS provider and still points at the runtime: remove those records there, or another app could later claim the name.',
      },
    ),
  },
  { description: 'Report of an app deletion.' },
);
