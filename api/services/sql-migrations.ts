import type { MigrationOutcome } from '../../src/platform/databases/migrations/migrator.ts';
import { MigrationChangedError, Migrator, MigrationTargetError, pendingOf } from '../../src/platform/databases/migrations/migrator.ts';
import { checkedMigrations } from '../../src/app-artifacts/migration-files.ts';
import { ConflictError, PublicError, UnavailableError } from '../../src/errors.ts';
import { INVALID_QUERY_TOKEN } from './sql-query.ts';

/** What `cw db migrate` gets: the files pending before the call, those applied, and the one that failed. */
export interface MigrateResult extends MigrationOutcome {
  pending: string[];
}

/**
 * Applies (or, in a dry run, lists) the pending files of a migrations folder with the caller's query token, through
 * the same Migrator and `_cw_migrations` table as deploys, so neither applies what the other did.
 * @throws ArtifactError (400: a misnamed file), ConflictError (409: an applied file changed), PublicError (401), UnavailableError
 */
export async function runMigrations(options: { dbUrl: string; tenantId: string; token: string; files: { name: string; sql: string }[]; dryRun: boolean }): Promise<MigrateResult> {
  const files = checkedMigrations(options.files.map((f) => ({ path: f.name, name: f.name, bytes: Buffer.from(f.sql) })));
  // The trailing slash keeps the tenant in the path the client resolves `v2/pipeline` against, so cw-db checks
  // the token is this database's (without it the token alone picks the database).
  const migrator = new Migrator({ url: `${options.dbUrl.replace(/\/+$/, '')}/v1/${options.tenantId}/`, token: options.token });
  try {
    const pending = pendingOf(files, await migrator.applied()).map((f) => f.name);
    if (options.dryRun) return { pending, applied: [] };
    return { pending, ...(await migrator.apply(files)) };
  } catch (err) {
    if (err instanceof MigrationChangedError) throw new ConflictError(err.message);
    if (err instanceof MigrationTargetError) {
      if (err.refused) throw new PublicError(401, INVALID_QUERY_TOKEN, { 'www-authenticate': 'Bearer' });
      throw new UnavailableError('The database engine cannot be reached; retry later.');
    }
    throw err;
  } finally {
    migrator.close();
  }
}
