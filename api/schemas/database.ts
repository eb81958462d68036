import { Type } from 'typebox';
import { DNS_LABEL_PATTERN } from '../../src/apis/v1alpha1/strings.ts';
import { ProjectId } from './project.ts';

// Response schemas avoid `anyOf` (see project.ts): enums, type lists and optional fields instead.
const enumOf = <T extends string>(values: readonly T[], description: string) => Type.Unsafe<T>({ type: 'string', enum: [...values], description });
const nullable = (type: string, description: string) => Type.Unsafe<unknown>({ type: [type, 'null'], description });

const DatabaseRef = Type.String({
  minLength: 1,
  maxLength: 63,
  pattern: DNS_LABEL_PATTERN,
  description: 'The database’s name or its database_id.',
});
export const DatabaseParams = Type.Object({ projectId: ProjectId, database: DatabaseRef }, { additionalProperties: false });

const Status = enumOf(
  ['provisioning', 'restoring', 'ready', 'deleting', 'failed'],
  'provisioning until the engine serves it; restoring while a point-in-time restore copies its source; ready when it answers SQL; deleting while it and its copies are removed; failed when it cannot be provisioned (status_message says why).',
);
const Durability = enumOf(
  ['async', 'sync'],
  'async (default): commits reach the object store within about a second, so losing the engine’s disk loses at most that; sync: a commit is acknowledged only once it is in the object store.',
);

export const Limits = Type.Object(
  {
    statement_timeout_ms: Type.Optional(
      Type.Integer({ minimum: 10, maximum: 3_600_000, description: 'A statement running longer is interrupted (SQLITE_INTERRUPT). Default 5000; at most what the engine allows (30000 by default).' }),
    ),
    max_size_bytes: Type.Optional(
      Type.Integer({
        minimum: 1_048_576,
        maximum: 1_099_511_627_776,
        description: 'The size quota: a write that would grow the database past it fails (SQLITE_FULL). Default 1 GiB; at most what the engine allows (10 GiB by default).',
      }),
    ),
    rows_read_per_day: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1_000_000_000_000,
        description:
          'Rows statements may return per UTC day; once reached, every statement is refused (QUOTA_EXCEEDED) until midnight UTC. Default 100,000,000; at most what the engine allows (10,000,000,000 by default).',
      }),
    ),
    rows_written_per_day: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1_000_000_000_000,
        description:
          'Rows statements may change per UTC day; once reached, writes are refused (QUOTA_EXCEEDED) until midnight UTC while reads still work. Default 10,000,000; at most what the engine allows (1,000,000,000 by default).',
      }),
    ),
  },
  { additionalProperties: false, description: 'Limits of the database; what is left out is the engine’s default. 422 past the engine’s maxima.' },
);

export const DatabaseBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 63,
      pattern: DNS_LABEL_PATTERN,
      description: 'Database name: 1 to 63 lowercase letters, digits and dashes, starting and ending with a letter or digit.',
    }),
    durability: Type.Optional(Durability),
    restore_from: Type.Optional(
      Type.Object(
        {
          database: DatabaseRef,
          timestamp: Type.String({ minLength: 1, maxLength: 64, description: 'ISO 8601 time within the source’s restore_window.' }),
        },
        { additionalProperties: false, description: 'Point-in-time restore: the new database starts as a copy of this project’s database as it was at timestamp.' },
      ),
    ),
    limits: Type.Optional(Limits),
  },
  { additionalProperties: false },
);

export const DatabasePatch = Type.Object({ limits: Limits }, { additionalProperties: false });

export const TokenBody = Type.Object(
  {
    read_only: Type.Optional(Type.Boolean({ description: 'The token can read but not write (default false).' })),
    expires_in_seconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 366 * 24 * 3600, description: 'The token stops working this long from now (default: never).' })),
  },
  { additionalProperties: false },
);

export const Database = Type.Object({
  database_id: Type.String({ description: 'Stable identifier (also the tenant of the database_url).' }),
  name: Type.String({ description: 'Name given at creation.' }),
  status: Status,
  created_at: Type.String({ description: 'ISO 8601 UTC timestamp.' }),
  database_url: Type.Optional(Type.String({ description: 'SQL data endpoint {db_url}/v1/<tenant_id>, for @libsql/client with a database token.' })),
  database_ws_url: Type.Optional(
    Type.String({ description: 'The same endpoint over Hrana over WebSocket (ws:// or wss://): what @libsql/client needs for interactive transactions that idle between statements.' }),
  ),
});

export const DatabaseDetail = Type.Object({
  ...Database.properties,
  durability: Durability,
  status_message: Type.Optional(Type.String({ description: 'Why the database is not ready.' })),
  usage: Type.Object({
    size_bytes: Type.Integer({ description: 'Bytes on the engine’s disk (database and write-ahead log).' }),
    size_quota_bytes: Type.Optional(Type.Integer({ description: 'The size quota: writes past it fail (SQLITE_FULL).' })),
    rows_read: Type.Integer({ description: 'Rows returned by statements since creation.' }),
    rows_written: Type.Integer({ description: 'Rows changed by statements since creation.' }),
    last_write_at: nullable('string', 'When a statement last changed rows; null before any.'),
    today: Type.Optional(
      Type.Object(
        {
          day: Type.String({ description: 'The UTC day, YYYY-MM-DD.' }),
          rows_read: Type.Integer({ description: 'Rows returned by statements since midnight UTC (the rows_read_per_day quota counts these).' }),
          rows_written: Type.Integer({ description: 'Rows changed by statements since midnight UTC (the rows_written_per_day quota counts these).' }),
        },
        { description: 'The current UTC day’s counts, as the engine last reported them.' },
      ),
    ),
  }),
  usage_history: Type.Array(
    Type.Object({
      at: Type.String({ format: 'date-time' }),
      size_bytes: Type.Integer(),
      rows_read: Type.Integer(),
      rows_written: Type.Integer(),
    }),
    { description: 'The usage figures every five minutes over the last day, oldest first (rows are totals since creation).' },
  ),
  limits: Type.Optional(
    Type.Object(
      {
        statement_timeout_ms: Type.Integer(),
        max_size_bytes: Type.Integer(),
        rows_read_per_day: Type.Optional(Type.Integer()),
        rows_written_per_day: Type.Optional(Type.Integer()),
      },
      { description: 'The limits the engine applies (those asked for, else its defaults); absent until it serves the database.' },
    ),
  ),
  limit_reached: Type.Optional(
    Type.Object(
      {
        quota: enumOf(
          ['max_size_bytes', 'rows_read_per_day', 'rows_written_per_day', 'project_storage_quota', 'disk_reserve'],
          "The quota reached: the database's own, or the storage its project's databases may hold together on their cw-db server (project_storage_quota), or the free space that server keeps (disk_reserve).",
        ),
        message: Type.String({ description: 'What is refused, with the figures, and until when.' }),
      },
      { description: 'Present while a quota refuses statements (the Database’s LimitReached condition).' },
    ),
  ),
  restore_window: Type.Unsafe<{ earliest: string; latest: string } | null>({
    type: ['object', 'null'],
    properties: { earliest: { type: 'string' }, latest: { type: 'string' } },
    description: 'The times point-in-time restore can reach (earliest: the oldest copy kept; latest: the newest commit shipped); null before the first copy.',
  }),
  restored_from: Type.Optional(Type.Object({ database: Type.String(), timestamp: Type.String() })),
  last_restore: Type.Optional(
    Type.Object(
      {
        outcome: Type.String({ description: 'Restored, RestorePointUnavailable or InvalidRequest.' }),
        message: Type.String(),
        restored_to: Type.Optional(Type.String({ format: 'date-time', description: 'The time whose data the database holds since.' })),
        undo_point: Type.Optional(Type.String({ format: 'date-time', description: 'The state just before the restore: restore in place to it to undo the restore.' })),
        handled_at: Type.String({ format: 'date-time' }),
      },
      { description: 'The last in-place restore and its outcome.' },
    ),
  ),
  restore_pending: Type.Optional(Type.Boolean({ description: 'An in-place restore is under way.' })),
  token_secret: Type.Optional(Type.String({ description: 'The Secret with the minted token, for a database declared without tokens (kubectl, GitOps).' })),
});

export const CreatedDatabase = Type.Object({
  database_id: Type.String(),
  database_url: Type.Optional(Type.String()),
  database_ws_url: Type.Optional(Type.String({ description: 'The same endpoint over Hrana over WebSocket.' })),
  created: Type.Boolean({ description: 'True when this request provisioned it; false when a database of this name existed (no token then).' }),
  status: Status,
  database_token: Type.Optional(Type.String({ description: 'The connection token (Authorization: Bearer). Shown here once; only on creation and rotation.' })),
  database_token_expires_at: Type.Optional(
    Type.String({ format: 'date-time', description: 'When database_token expires: never, unless the API token that created the database expires (then at the same time).' }),
  ),
});

export const RotatedToken = Type.Object({
  database_token: Type.String({ description: 'The new connection token. Every earlier token of the database (query tokens too) is refused from now on.' }),
  token_id: Type.String(),
  read_only: Type.Boolean(),
  expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'As asked, but never later than the API token that made it expires.' })),
});

export const QueryToken = Type.Object({
  query_token: Type.String({ description: 'A token for the query route (and for @libsql/client); shown once. Revoked with every other by a rotation.' }),
  token_id: Type.String(),
  read_only: Type.Boolean(),
  expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'As asked, but never later than the API token that made it expires.' })),
});

const SqlValue = Type.Unsafe<unknown>({
  description: 'A number, a string, a boolean (stored 0/1), null, or {"base64": "…"} for a blob.',
});
const Params = Type.Union([Type.Array(SqlValue, { maxItems: 1000 }), Type.Record(Type.String({ maxLength: 128 }), SqlValue, { maxProperties: 1000 })], {
  description: 'Positional ([…]) or named ({"name": …}) parameters.',
});
const Statement = Type.Object(
  {
    sql: Type.String({ minLength: 1, maxLength: 100_000 }),
    params: Type.Optional(Params),
  },
  { additionalProperties: false },
);

export const QueryBody = Type.Object(
  {
    sql: Type.Optional(Type.String({ minLength: 1, maxLength: 100_000, description: 'One statement.' })),
    params: Type.Optional(Params),
    statements: Type.Optional(Type.Array(Statement, { minItems: 1, maxItems: 100, description: 'Several statements, run as one transaction (all or nothing).' })),
  },
  { additionalProperties: false },
);

export const QueryResults = Type.Object({
  results: Type.Array(
    Type.Object({
      columns: Type.Array(Type.String()),
      rows: Type.Array(Type.Array(SqlValue)),
      rows_read: Type.Integer(),
      rows_written: Type.Integer(),
      changes: Type.Integer(),
      last_insert_id: Type.Unsafe<unknown>({ type: ['integer', 'string', 'null'] }),
    }),
  ),
});

export const RestoreBody = Type.Object(
  { timestamp: Type.String({ format: 'date-time', description: 'Restore the data as it was at this time (RFC 3339), within the database’s restore_window.' }) },
  { additionalProperties: false },
);

export const RestoredDatabase = Type.Object({
  database: DatabaseDetail,
  restored_to: Type.Optional(Type.String({ format: 'date-time', description: 'The time whose data the database now holds (absent in a 202: still restoring).' })),
  undo_point: Type.Optional(Type.String({ format: 'date-time', description: 'The state just before this restore, as a restore point: restore in place to it to undo the restore.' })),
});
