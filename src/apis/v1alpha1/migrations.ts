import { Type, type Static } from 'typebox';
import { DnsLabel } from './strings.ts';

// Migrations on deploy (docs/databases.md, Migrations): a build's `migrations/` files, bound to one Database of
// its project, applied by the operator before the build takes traffic. The API records them on the Build and
// names them on the app's spec with its active build; the operator's RuntimeApp controller is the only writer
// of `status.migrations` and `status.served`; the runtime replicas read both (`servingPlan`).

/** Files a build may carry, and what they may come to together (they are stored on the Build). */
export const MAX_MIGRATION_FILES = 200;
export const MAX_MIGRATION_BYTES = 512 * 1024;

/** `0001_init.sql`: a number, a name; they apply in the order of their names. */
export const MIGRATION_FILE_PATTERN = '^[0-9]{1,10}_[A-Za-z0-9_.-]{1,100}\\.sql$';

export const MigrationFile = Type.Object(
  {
    name: Type.String({ minLength: 5, maxLength: 116, pattern: MIGRATION_FILE_PATTERN, description: 'File name, e.g. 0001_init.sql.' }),
    checksum: Type.String({ minLength: 64, maxLength: 64, pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the file, lowercase hex.' }),
    sql: Type.String({ maxLength: MAX_MIGRATION_BYTES, description: 'The statements of the file.' }),
  },
  { additionalProperties: false },
);
export type MigrationFile = Static<typeof MigrationFile>;

/** What a Build carries: its migrations, in order, and the Database they apply to. */
export const BuildMigrations = Type.Object(
  {
    database: DnsLabel({ description: 'The Database of the app’s namespace the migrations apply to.' }),
    files: Type.Array(MigrationFile, {
      maxItems: MAX_MIGRATION_FILES,
      description: 'The files, sorted by name: the order they apply in.',
      // What an upload may carry (MAX_MIGRATION_BYTES, in characters here: never more than its bytes), for a Build
      // written with kubectl too: each file's own bound alone let one object reach etcd's limit.
      'x-kubernetes-validations': [{ rule: `self.map(f, size(f.sql)).sum() <= ${MAX_MIGRATION_BYTES}`, message: `the migration files come to at most ${MAX_MIGRATION_BYTES} characters together` }],
    }),
  },
  { additionalProperties: false, description: 'The migrations folder of the artifact (cloudwright.json’s migrations), applied before the build takes traffic.' },
);
export type BuildMigrations = Static<typeof BuildMigrations>;

/** On the app's spec, beside activeBuildId: which build carries migrations, so the runtime holds it until they are applied. */
export const SpecMigrations = Type.Object(
  {
    buildId: DnsLabel({ description: 'The build whose migrations these are; ignored once activeBuildId names another.' }),
    database: DnsLabel({ description: 'The Database they apply to.' }),
    checksum: Type.String({ minLength: 64, maxLength: 64, pattern: '^[0-9a-f]{64}$', description: 'SHA-256 over the files’ names and checksums.' }),
  },
  {
    additionalProperties: false,
    description:
      'The active build’s migrations, written by a deploy or a rollback with activeBuildId: the runtime serves that build only once status.migrations says they are applied (the previous release, status.served, serves meanwhile).',
  },
);
export type SpecMigrations = Static<typeof SpecMigrations>;

export const MigrationFailure = Type.Object(
  {
    file: Type.String({ maxLength: 116, description: 'The file that failed.' }),
    statement: Type.String({ maxLength: 1024, description: 'The statement that failed (cut at 1 KiB).' }),
    message: Type.String({ maxLength: 1024, description: 'SQLite’s message.' }),
  },
  { additionalProperties: false },
);
export type MigrationFailure = Static<typeof MigrationFailure>;

export const MigrationsStatus = Type.Object(
  {
    buildId: DnsLabel({ description: 'The build whose migrations this is.' }),
    database: DnsLabel({ description: 'The Database.' }),
    checksum: Type.String({ maxLength: 64, description: 'spec.migrations.checksum this answers.' }),
    phase: Type.Union([Type.Literal('Pending'), Type.Literal('Applied'), Type.Literal('Failed')], {
      description: 'Pending: not applied yet (the message says what is awaited); Applied: every file is recorded in the database; Failed: one failed and was rolled back.',
    }),
    applied: Type.Optional(Type.Array(Type.String({ maxLength: 116 }), { maxItems: MAX_MIGRATION_FILES, description: 'Files this deploy applied, in order.' })),
    failed: Type.Optional(MigrationFailure),
    message: Type.Optional(Type.String({ maxLength: 1024, description: 'Why they are pending.' })),
  },
  { additionalProperties: false, description: 'The active build’s migrations, as the operator applied them.' },
);
export type MigrationsStatus = Static<typeof MigrationsStatus>;
