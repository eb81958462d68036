import { createHash } from 'node:crypto';
import type { BuildMigrations, SpecMigrations } from '../apis/v1alpha1/migrations.ts';
import type { RuntimeAppSpec } from '../apis/v1alpha1/runtime-app.ts';

/** A digest of the files' names and checksums: equal exactly when the migrations are. */
export function migrationsChecksum(migrations: BuildMigrations): string {
  return createHash('sha256')
    .update(JSON.stringify([migrations.database, migrations.files.map((f) => [f.name, f.checksum])]))
    .digest('hex');
}

/**
 * The spec with `buildId` active and its migrations named beside it (or none named, for a build without), so
 * the runtime holds the build back until the operator has applied them. Every writer of activeBuildId in the
 * API goes through here.
 */
export function withActiveBuild(spec: RuntimeAppSpec, buildId: string, migrations: BuildMigrations | undefined): RuntimeAppSpec {
  const { migrations: _old, ...rest } = spec;
  const named: SpecMigrations | undefined = migrations && migrations.files.length > 0 ? { buildId, database: migrations.database, checksum: migrationsChecksum(migrations) } : undefined;
  return { ...rest, activeBuildId: buildId, ...(named ? { migrations: named } : {}) };
}
