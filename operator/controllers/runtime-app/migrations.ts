import type { Build } from '../../../src/apis/v1alpha1/build.ts';
import type { Database } from '../../../src/apis/v1alpha1/database.ts';
import type { MigrationsStatus } from '../../../src/apis/v1alpha1/migrations.ts';
import type { RuntimeApp } from '../../../src/apis/v1alpha1/runtime-app.ts';
import { objectClient, SECRETS, secretText, type Informer, type KubeConnection, type SecretObject } from '../../../src/kube/index.ts';
import { buildResourceName } from '../../../src/platform/artifact-keys.ts';
import { APP_TOKEN_KEYS } from '../../../src/platform/databases/app-tokens.ts';
import { MigrationChangedError, MigrationTargetError, Migrator, type MigrationOutcome } from '../../../src/platform/databases/migrations/migrator.ts';
import { DATABASES } from '../../../src/platform/resources.ts';
import { PREVIEW_DATABASE_OF_LABEL, PREVIEW_OF_LABEL } from '../../../src/apis/v1alpha1/app-source.ts';
import { forkName } from '../app-source/preview-databases.ts';
import { setTimeout as delay } from 'node:timers/promises';
import { MigrationRuns } from './migration-runs.ts';

/** Applies a build's migrations to a database reached at `url` with `token` (the Migrator; a port so tests can count calls). */
export type ApplyMigrations = (connection: { url: string; token: string }, files: NonNullable<Build['spec']['migrations']>['files']) => Promise<MigrationOutcome>;

/** The default: the libSQL client over Hrana, one connection per run. */
export const applyWithLibsql: ApplyMigrations = async (connection, files) => {
  const migrator = new Migrator(connection);
  try {
    return await migrator.apply(files);
  } finally {
    migrator.close();
  }
};

/** What the migrations step decided: the status to record (none: the app names no migrations) and when to look again. */
export interface MigrationsStep {
  readonly status?: MigrationsStatus;
  readonly requeueAfter?: number;
}

/** How soon a pending migration whose Database is missing or not ready yet is looked at again (Databases are not watched here). */
const RETRY_MS = 5_000;

/** The database an app's migrations apply to: a branch's preview migrates its own copy, never the production one. */
function migrationTarget(app: RuntimeApp, database: string): string {
  return app.metadata?.labels?.[PREVIEW_OF_LABEL] !== undefined ? forkName(app.metadata?.name ?? '', database) : database;
}

/**
 * The run an app's spec asks for: one per app, build, files and target (none when its active build names no
 * migrations). The database's own record (`_cw_migrations`) makes a run asked for again (after the operator
 * restarted, say) apply only what the last one did not.
 */
function migrationRunKey(app: RuntimeApp): string | undefined {
  const wanted = app.spec.migrations;
  if (!wanted || wanted.buildId !== app.spec.activeBuildId) return undefined;
  const id = app.metadata?.uid ?? `${app.metadata?.namespace ?? ''}/${app.metadata?.name ?? ''}`;
  return `${id}/${wanted.buildId}/${wanted.checksum}/${migrationTarget(app, wanted.database)}`;
}

/** How long a reconcile waits for the run it starts before it records Pending and lets the run go on in the background. */
const QUICK_RUN_MS = 2_000;

/**
 * The migrations step of the RuntimeApp controller: when the active build names migrations (`spec.migrations`)
 * and `status.migrations` does not answer them yet, has the pending ones applied to the Database with its full
 * app token (`<database>-app-tokens`, which the Database controller mints), in the background (`runs`), and
 * answers the status to record: Pending while they run, then their outcome once the run that settled calls the
 * app back. An answered run (Applied or Failed) is not run again: a failed file is fixed by a new deploy (a new
 * build). A database that cannot be reached is tried again after a while; nothing but Pending is recorded then.
 */
export function migrationsStep(deps: {
  kube: KubeConnection;
  apps: Informer<RuntimeApp>;
  builds?: Informer<Build>;
  apply?: ApplyMigrations;
  runs: MigrationRuns<MigrationOutcome>;
  /** Whose turn a project's runs take (`projectAccount`); default: the project's own. */
  accountOf?: (project: string) => string;
}): (app: RuntimeApp) => Promise<MigrationsStep> {
  const databases = objectClient<Database>(deps.kube, DATABASES);
  const secrets = objectClient<SecretObject>(deps.kube, SECRETS);
  const apply = deps.apply ?? applyWithLibsql;
  const runs = deps.runs;
  return async (app) => {
    const namespace = app.metadata?.namespace ?? '';
    const appName = app.metadata?.name ?? '';
    const appKey = `${namespace}/${appName}`;
    const wanted = app.spec.migrations;
    const runKey = migrationRunKey(app);
    if (!wanted || runKey === undefined) {
      // Rolled back or redeployed without migrations: a run still waiting for its turn applies nothing.
      runs.supersede(appKey);
      return {};
    }
    runs.supersede(appKey, runKey);
    const preview = app.metadata?.labels?.[PREVIEW_OF_LABEL] !== undefined;
    const target = migrationTarget(app, wanted.database);
    const current = app.status?.migrations;
    const same = current?.buildId === wanted.buildId && current.checksum === wanted.checksum && current.database === wanted.database;
    if (same && current.phase !== 'Pending') {
      runs.forget(runKey);
      return { status: current };
    }
    const base = { buildId: wanted.buildId, database: wanted.database, checksum: wanted.checksum };
    const pending = (message: string, requeueAfter?: number): MigrationsStep => ({ status: { ...base, phase: 'Pending', message }, ...(requeueAfter ? { requeueAfter } : {}) });
    // A Build appearing re-checks its app (the controller owns Builds): no retry needed.
    const build = deps.builds?.get(`${namespace}/${buildResourceName(appName, wanted.buildId)}`);
    const files = build?.spec.migrations?.files;
    if (!files) return pending(`Build ${wanted.buildId} and its migrations are not there yet.`);
    let run = runs.state(runKey);
    if (run === undefined) {
      const database = await databases.get(namespace, target);
      if (preview && database?.metadata?.labels?.[PREVIEW_DATABASE_OF_LABEL] !== appName) {
        return pending(`A preview applies its migrations only to its own copy of database ${wanted.database} (previewDatabases: Fork), and it has none yet.`, RETRY_MS);
      }
      if (!database) return pending(`The build's migrations apply to database ${wanted.database}, which the project does not have: create it, and they are applied.`, RETRY_MS);
      const url = database.status?.url;
      const secretName = database.status?.appTokenSecretName;
      const secret = secretName ? await secrets.get(namespace, secretName) : undefined;
      const token = secret ? secretText(secret, APP_TOKEN_KEYS.full) : undefined;
      if (!url || !token) return pending(`Database ${wanted.database} is not ready yet.`, RETRY_MS);
      // Checked again when the run's turn comes, which may be long after: the app may have moved on meanwhile.
      const stillWanted = () => {
        const now = deps.apps.get(appKey);
        return now !== undefined && !now.metadata?.deletionTimestamp && migrationRunKey(now) === runKey;
      };
      const settled = runs.start(runKey, deps.accountOf?.(namespace) ?? namespace, appKey, () => apply({ url, token }, files), stillWanted);
      // Most runs take a moment: waited for that long, their outcome is recorded at once, with no Pending in
      // between (the replicas hold the build back while it is pending). A worker is held this long at most.
      await Promise.race([settled, delay(QUICK_RUN_MS, undefined, { ref: false })]);
      run = runs.state(runKey);
    }
    if (run === undefined || run.kind === 'running') return pending(`Applying ${files.length} migration file${files.length === 1 ? '' : 's'} to database ${target}.`);
    if (run.kind === 'done') {
      const outcome = run.value;
      return { status: { ...base, phase: outcome.failed ? 'Failed' : 'Applied', applied: outcome.applied, ...(outcome.failed ? { failed: outcome.failed } : {}) } };
    }
    if (run.error instanceof MigrationChangedError) return { status: { ...base, phase: 'Failed', applied: [], failed: { file: run.error.file, statement: '', message: run.error.message } } };
    // Unreachable, or the token refused: the same answer until the run may be tried again.
    const why = run.error instanceof MigrationTargetError && run.error.refused ? 'refused the app token' : 'could not be reached';
    return pending(`Database ${target} ${why} when applying the build's migrations; trying again shortly.`, run.retryInMs);
  };
}
