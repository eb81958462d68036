import { Type } from 'typebox';
import { MAX_MIGRATION_BYTES, MAX_MIGRATION_FILES, MigrationFailure } from '../../src/apis/v1alpha1/migrations.ts';

export const MigrateBody = Type.Object(
  {
    files: Type.Array(
      Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: 116, description: 'File name, e.g. 0001_init.sql: they apply in the order of their names.' }),
          sql: Type.String({ maxLength: MAX_MIGRATION_BYTES, description: 'The file’s statements.' }),
        },
        { additionalProperties: false },
      ),
      { maxItems: MAX_MIGRATION_FILES, description: 'The migrations folder, every file (those applied already are skipped by name and checked by checksum).' },
    ),
    dry_run: Type.Optional(Type.Boolean({ description: 'Only list the pending files.' })),
  },
  { additionalProperties: false },
);

export const MigrateAnswer = Type.Object({
  pending: Type.Array(Type.String(), { description: 'Files not applied before this call, in order.' }),
  applied: Type.Array(Type.String(), { description: 'Files this call applied (none in a dry run).' }),
  failed: Type.Optional(MigrationFailure),
});
