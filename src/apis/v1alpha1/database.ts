import { Type, type Static } from 'typebox';
import type { CustomResource, KindDescriptor } from '../kind-descriptor.ts';
import { Conditions, ObservedGeneration } from './conditions.ts';
import { CATEGORY } from './group-version.ts';
import { DisplayName, DnsLabel, DnsSubdomain, immutable, Timestamp } from './strings.ts';

/** How commits reach the bucket: within a second (async, the default), or before each commit is acknowledged (sync). */
export const DatabaseDurability = Type.Union([Type.Literal('async'), Type.Literal('sync')], {
  default: 'async',
  description:
    'async: committed transactions are shipped to the object store at least every second, so a lost disk loses at most the last second; sync: a commit is acknowledged only once it is in the object store (slower commits, nothing acknowledged is ever lost).',
});
export type DatabaseDurability = Static<typeof DatabaseDurability>;

/** A connection token the database accepts, by its hash: the token itself is never stored. */
export const DatabaseTokenGrant = Type.Object(
  {
    id: Type.String({ pattern: '^dbt-[0-9a-f]{16}$', maxLength: 20, description: 'Token id (not secret), for listings and audit.' }),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$', maxLength: 64, description: 'Lowercase hex SHA-256 of the token.' }),
    readOnly: Type.Optional(Type.Boolean({ description: 'The token can read but not write.' })),
    expiresAt: Type.Optional(Timestamp({ description: 'After this time the token is refused.' })),
    mintedBy: Type.Optional(DnsSubdomain({ description: 'The User who made this query token (a further token, not the database’s own): removed from the project, their query tokens go.' })),
  },
  { additionalProperties: false },
);
export type DatabaseTokenGrant = Static<typeof DatabaseTokenGrant>;

/** The bounds a database's statements run under (docs/databases.md, "Limits and isolation"). */
const StatementTimeoutMs = Type.Integer({ minimum: 10, maximum: 3_600_000, description: 'A statement running longer is interrupted (SQLITE_INTERRUPT), in milliseconds.' });
const MaxSizeBytes = Type.Integer({
  minimum: 1_048_576,
  maximum: 1_099_511_627_776,
  format: 'int64',
  description: 'The size quota: a write that would grow the database past it fails (SQLITE_FULL), in bytes.',
});

const RowsReadPerDay = Type.Integer({
  minimum: 1,
  maximum: 1_000_000_000_000,
  format: 'int64',
  description: 'Rows statements may return per UTC day; once reached every statement is refused (QUOTA_EXCEEDED) until midnight UTC.',
});
const RowsWrittenPerDay = Type.Integer({
  minimum: 1,
  maximum: 1_000_000_000_000,
  format: 'int64',
  description: 'Rows statements may change per UTC day; once reached writes are refused (QUOTA_EXCEEDED) until midnight UTC, reads still work.',
});

export const DatabaseLimitsSpec = Type.Object(
  {
    statementTimeoutMs: Type.Optional(StatementTimeoutMs),
    maxSizeBytes: Type.Optional(MaxSizeBytes),
    rowsReadPerDay: Type.Optional(RowsReadPerDay),
    rowsWrittenPerDay: Type.Optional(RowsWrittenPerDay),
  },
  {
    additionalProperties: false,
    description: "Limits this database asks for; what it leaves out is the engine's default. The engine refuses more than its maxima (condition Provisioned, reason LimitOutOfRange).",
  },
);
export type DatabaseLimitsSpec = Static<typeof DatabaseLimitsSpec>;

export const DatabaseSpec = Type.Object({
  displayName: Type.Optional(DisplayName({ description: 'The name the database was created with.' })),
  durability: Type.Optional(DatabaseDurability),
  tokens: Type.Optional(
    Type.Array(DatabaseTokenGrant, {
      maxItems: 32,
      description:
        'The connection tokens the database accepts, by hash (the API writes these: one database token, plus query tokens). Absent: the controller mints one token and keeps it in the Secret named in status.tokenSecretName (delete that Secret to rotate it).',
    }),
  ),
  limits: Type.Optional(DatabaseLimitsSpec),
  restoreFrom: Type.Optional(
    Type.Object(
      {
        database: DnsLabel({ description: 'The Database (in this namespace) whose data this one starts from.' }),
        timestamp: Timestamp({ description: "The point in time of the source's data to start from, within its restore window." }),
      },
      {
        description: 'Point-in-time restore: the database starts as a copy of another at a past time (a fork). Set at creation only.',
        ...immutable('restoreFrom'),
      },
    ),
  ),
});
export type DatabaseSpec = Static<typeof DatabaseSpec>;

/** Where the database stands; mirrors the REST `status` field. */
export const DatabaseState = Type.Union([Type.Literal('provisioning'), Type.Literal('restoring'), Type.Literal('ready'), Type.Literal('deleting'), Type.Literal('failed')], {
  description:
    'provisioning until the engine serves it; restoring while a point-in-time restore copies the source; ready when it answers SQL; deleting while its data is removed; failed when it cannot be provisioned (the Ready condition says why).',
});
export type DatabaseState = Static<typeof DatabaseState>;

/** How an in-place restore request ended. */
export const DatabaseRestoreOutcome = Type.Union([Type.Literal('Restored'), Type.Literal('RestorePointUnavailable'), Type.Literal('InvalidRequest')], {
  description:
    'Restored: the database holds its data as of restoredTo; RestorePointUnavailable: the time is outside the restore window (nothing changed); InvalidRequest: the annotation is not a time.',
});
export type DatabaseRestoreOutcome = Static<typeof DatabaseRestoreOutcome>;

/** The last in-place restore request the controller answered (the RESTORE_ANNOTATION it echoes). */
export const DatabaseLastRestore = Type.Object(
  {
    request: Type.String({ maxLength: 64, description: 'The value of the cloudwright.dev/restore-request annotation this answers.' }),
    outcome: DatabaseRestoreOutcome,
    message: Type.String({ maxLength: 1024, description: 'What happened, for people.' }),
    restoredTo: Type.Optional(Timestamp({ description: 'The time whose data the database now holds.' })),
    undoPoint: Type.Optional(Timestamp({ description: 'The state just before the restore, as a restore point: restore in place to it to undo the restore.' })),
    handledAt: Timestamp({ description: 'When the controller answered.' }),
  },
  { description: 'The last in-place restore asked with the cloudwright.dev/restore-request annotation, and its outcome.' },
);
export type DatabaseLastRestore = Static<typeof DatabaseLastRestore>;

export const DatabaseStatus = Type.Object({
  conditions: Type.Optional(Conditions),
  observedGeneration: Type.Optional(ObservedGeneration),
  state: Type.Optional(DatabaseState),
  databaseId: Type.Optional(DnsLabel({ description: 'Public database id (REST database_id).' })),
  tenantId: Type.Optional(DnsLabel({ description: 'Tenant of the database engine; the last segment of url.' })),
  url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, description: 'SQL data endpoint, {db_url}/v1/<tenantId>.' })),
  tokenSecretName: Type.Optional(DnsSubdomain({ description: 'The Secret holding the minted token (url and token), when spec.tokens is absent.' })),
  appTokenSecretName: Type.Optional(
    DnsSubdomain({
      description:
        'The Secret holding the tokens apps get through RuntimeApp spec.databaseEnvironment (FULL_TOKEN, READ_ONLY_TOKEN); read by the runtime, never by the API. The operator replaces them when they are a day old (CW_DB_APP_TOKEN_ROTATION_SECONDS) or the annotation cloudwright.dev/rotate-app-tokens takes a new value, and accepts the replaced ones for an overlap (CW_DB_APP_TOKEN_OVERLAP_SECONDS); deleting it revokes both at once.',
    }),
  ),
  appTokenGeneration: Type.Optional(
    Type.String({ maxLength: 64, description: 'Changes whenever the app tokens change (a digest of their hashes, not a token): the runtime re-reads the Secret then.' }),
  ),
  sizeBytes: Type.Optional(Type.Integer({ minimum: 0, format: 'int64', description: 'Bytes on the engine’s disk (database and WAL).' })),
  replica: Type.Optional(Type.String({ maxLength: 63, description: 'The cw-db replica that owns the database (holds its lease) when cw-db runs as several replicas; absent with one.' })),
  rowsRead: Type.Optional(Type.Integer({ minimum: 0, format: 'int64', description: 'Rows returned by statements since creation.' })),
  rowsWritten: Type.Optional(Type.Integer({ minimum: 0, format: 'int64', description: 'Rows changed by statements since creation.' })),
  lastWriteAt: Type.Optional(Timestamp({ description: 'When a statement last changed rows.' })),
  usageHistory: Type.Optional(
    Type.Array(
      Type.Object({
        at: Timestamp({ description: 'When the figures were read.' }),
        sizeBytes: Type.Integer({ minimum: 0, format: 'int64' }),
        rowsRead: Type.Integer({ minimum: 0, format: 'int64' }),
        rowsWritten: Type.Integer({ minimum: 0, format: 'int64' }),
      }),
      { maxItems: 288, description: 'The usage figures every five minutes over the last day, oldest first (the console charts them).' },
    ),
  ),
  limits: Type.Optional(
    Type.Object(
      {
        statementTimeoutMs: StatementTimeoutMs,
        maxSizeBytes: MaxSizeBytes,
        rowsReadPerDay: Type.Optional(RowsReadPerDay),
        rowsWrittenPerDay: Type.Optional(RowsWrittenPerDay),
      },
      { description: 'The limits the engine applies to this database (spec.limits, else its defaults).' },
    ),
  ),
  today: Type.Optional(
    Type.Object(
      {
        day: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', maxLength: 10, description: 'The UTC day (YYYY-MM-DD).' }),
        rowsRead: Type.Integer({ minimum: 0, format: 'int64' }),
        rowsWritten: Type.Integer({ minimum: 0, format: 'int64' }),
      },
      { description: 'Rows read and written during the current UTC day, as the daily quotas count them (from midnight UTC).' },
    ),
  ),
  restoreWindow: Type.Optional(
    Type.Object(
      {
        earliest: Timestamp({ description: 'The earliest time a restore can start from.' }),
        latest: Timestamp({ description: 'The latest commit in the object store.' }),
      },
      { description: 'The times point-in-time restore can reach.' },
    ),
  ),
  lastRestore: Type.Optional(DatabaseLastRestore),
});
export type DatabaseStatus = Static<typeof DatabaseStatus>;

/** Condition types of a Database. */
export const DatabaseConditions = {
  /** The engine has the tenant with the tokens and durability of this generation. */
  Provisioned: 'Provisioned',
  /** Provisioned, and url answers SQL. */
  Ready: 'Ready',
  /** True while a quota refuses statements: the size quota, or a daily row quota until midnight UTC. */
  LimitReached: 'LimitReached',
} as const;

/** Reasons of a Database's conditions. */
export const DatabaseReasons = {
  Provisioning: 'Provisioning',
  Restoring: 'Restoring',
  Provisioned: 'Provisioned',
  Ready: 'Ready',
  Deleting: 'Deleting',
  EngineUnavailable: 'EngineUnavailable',
  RestoreSourceNotFound: 'RestoreSourceNotFound',
  RestorePointUnavailable: 'RestorePointUnavailable',
  /** A Secret of the token's name exists and is not this Database's. */
  TokenSecretConflict: 'TokenSecretConflict',
  /** The operator may not write the token's Secret here: the namespace is no project's (it has no binding there). */
  TokenSecretForbidden: 'TokenSecretForbidden',
  /** A hash of spec.tokens is another Database's, named there first: this one is refused it. */
  TokenInUse: 'TokenInUse',
  /** The app tokens were replaced (their period was over, or a rotation was asked); the replaced ones are accepted for the overlap. */
  AppTokensRotated: 'AppTokensRotated',
  /** spec.limits asks for more than the engine allows; the database keeps the limits it had. */
  LimitOutOfRange: 'LimitOutOfRange',
  /** LimitReached: a write failed on the size quota (and none succeeded since). */
  SizeQuotaReached: 'SizeQuotaReached',
  /** LimitReached: the day's written rows reached the quota; writes are refused until midnight UTC. */
  RowsWrittenQuotaReached: 'RowsWrittenQuotaReached',
  /** LimitReached: the day's read rows reached the quota; every statement is refused until midnight UTC. */
  RowsReadQuotaReached: 'RowsReadQuotaReached',
  /** LimitReached: a write failed because the project's databases on its cw-db replica hold their storage quota. */
  ProjectStorageQuotaReached: 'ProjectStorageQuotaReached',
  /** LimitReached: a write failed because the cw-db replica's disk is down to its reserve (the heaviest projects stop growing first). */
  DiskReserveReached: 'DiskReserveReached',
  /** LimitReached False: under every quota. */
  WithinLimits: 'WithinLimits',
  /** Event reasons of an in-place restore (the outcome is in status.lastRestore). */
  RestoredInPlace: 'RestoredInPlace',
  RestoreRefused: 'RestoreRefused',
} as const;

/**
 * Asks for an in-place restore: `<time>` or `<time>#<request id>` (any new value asks again, so the same time can be
 * asked twice). The controller restores the database to its state at that time, keeping its id, URL and tokens, and
 * echoes the value in `status.lastRestore.request` with the outcome and the undo point. Set by the API's restore
 * route, or by hand: `kubectl annotate database NAME cloudwright.dev/restore-request=2026-01-02T03:04:05Z#1 --overwrite`.
 */
export const RESTORE_ANNOTATION = 'cloudwright.dev/restore-request';

/** The time a restore request names, or undefined when it names none. */
export function restoreRequestTime(request: string): number | undefined {
  const time = request.split('#', 1)[0] ?? '';
  const ms = /^\d{4}-\d{2}-\d{2}T/.test(time) ? Date.parse(time) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms;
}

/** Label on the Secrets the controller mints tokens into, naming their Database. */
export const DATABASE_LABEL = 'cloudwright.dev/database';

/** On Databases whose tenant may exist in the engine: removed by the controller once the tenant and its bucket data are gone. */
export const DATABASE_FINALIZER = 'cloudwright.dev/database-tenant';

export type Database = CustomResource<'Database', DatabaseSpec, DatabaseStatus>;

/**
 * A SQL (libSQL) database of a project, in the project's namespace, served by cw-db over Hrana. Connection
 * tokens never appear in the object: the API shows them once and writes only their hashes here; without any,
 * the controller mints one into a Secret (how a workload gets a credential in Kubernetes).
 */
export const DatabaseKind: KindDescriptor<'Database', typeof DatabaseSpec, typeof DatabaseStatus> = {
  kind: 'Database',
  plural: 'databases',
  singular: 'database',
  shortNames: ['cwdb'],
  scope: 'Namespaced',
  categories: [CATEGORY],
  description: 'A Cloudwright SQL database served over Hrana (libSQL).',
  name: DnsLabel({ description: 'Database name.' }),
  spec: DatabaseSpec,
  status: DatabaseStatus,
  objectRules: [{ rule: 'has(self.spec.restoreFrom) == has(oldSelf.spec.restoreFrom)', message: 'restoreFrom is set at creation only' }],
  printerColumns: [
    { name: 'Status', type: 'string', jsonPath: '.status.state', description: 'provisioning, restoring, ready, deleting or failed.' },
    { name: 'Size', type: 'integer', jsonPath: '.status.sizeBytes', description: 'Bytes on disk.' },
    { name: 'Replica', type: 'string', jsonPath: '.status.replica', description: 'The cw-db replica that owns the database (several replicas only).' },
    { name: 'Quota', type: 'integer', jsonPath: '.status.limits.maxSizeBytes', description: 'The size quota in bytes.', priority: 1 },
    {
      name: 'Limit',
      type: 'string',
      jsonPath: '.status.conditions[?(@.type=="LimitReached")].reason',
      description: 'WithinLimits, or the quota reached (SizeQuotaReached, RowsWrittenQuotaReached, RowsReadQuotaReached, ProjectStorageQuotaReached, DiskReserveReached).',
      priority: 1,
    },
    { name: 'Database ID', type: 'string', jsonPath: '.status.databaseId', description: 'Public database id.', priority: 1 },
    { name: 'URL', type: 'string', jsonPath: '.status.url', description: 'SQL data endpoint.', priority: 1 },
  ],
};
