import type { Registry } from 'prom-client';
import { DATABASE_FINALIZER, DatabaseReasons, type Database } from '../../../src/apis/v1alpha1/database.ts';
import { findCondition, isTrue, statusChanged } from '../../../src/conditions/index.ts';
import { objectClient, type Informer, type KubeConnection } from '../../../src/kube/index.ts';
import { databaseIdFor } from '../../../src/platform/databases/database-token.ts';
import { EngineUnavailableError, LimitOutOfRangeError, RestorePointError, type DatabaseEngine, type EngineTenantRequest } from '../../../src/platform/databases/engine-client.ts';
import { DATABASES } from '../../../src/platform/resources.ts';
import { Controller, type Result } from '../../../src/controller-runtime/controller.ts';
import type { EventRecorder } from '../../../src/controller-runtime/events.ts';
import { addFinalizer, hasFinalizer, removeFinalizer } from '../../../src/controller-runtime/finalizers.ts';
import type { Logger } from '../../../src/logging/log.ts';
import { controllerRateLimiter } from '../../../src/controller-runtime/rate-limiter.ts';
import { desiredStatus, type Identity, type Observation } from './desired-status.ts';
import { AppTokenSecrets } from './app-token-secret.ts';
import { DEFAULT_ROTATION, type RotationPolicy } from './app-token-rotation.ts';
import { restoreInPlace } from './in-place-restore.ts';
import { pendingRestoreRequest } from '../../../src/platform/databases/database-view.ts';
import { TokenSecrets } from './token-secret.ts';
import { TokenClaims } from './token-claims.ts';
import { withStalled } from '../../../src/conditions/stalled.ts';
import type { ProjectAccounts } from '../../../src/platform/project-account.ts';

export interface DatabaseControllerDeps {
  kube: KubeConnection;
  databases: Informer<Database>;
  engine: DatabaseEngine;
  /** cw-db's public URL (`db_url`): a database's url is `{dbUrl}/v1/{database_id}`. */
  dbUrl: string;
  events: EventRecorder;
  registry: Registry;
  log: Logger;
  /** How often a ready database's usage figures are refreshed from the engine (default 30 s). */
  usageRefreshMs?: number;
  /** When the apps' tokens are replaced and how long the replaced ones still work (default: a day, 15 minutes). */
  appTokenRotation?: RotationPolicy;
  /** How often a sample is added to the usage history (default five minutes). */
  usageSampleMs?: number;
  now?: () => Date;
  /** Whom a project's databases count against in cw-db's sharing (`projectAccount`); default: each project its own. */
  accounts?: ProjectAccounts;
}

/** The Ready reasons recorded as Normal Events; every other one needs attention (Warning). */
const NORMAL: ReadonlySet<string> = new Set(['Ready', 'Provisioning', 'Restoring', 'Deleting']);

/**
 * Keeps each Database's tenant in cw-db as its spec says: created (or restored from another Database at a time)
 * with the spec's token hashes and durability, refreshed every `usageRefreshMs` for the usage figures, and deleted
 * with its bucket data before the finalizer goes. A Database without `spec.tokens` gets a minted token in a
 * Secret it owns. The engine is idempotent, so every reconcile simply asks for the whole desired tenant.
 */
export function databaseController(deps: DatabaseControllerDeps): Controller<Database> {
  const client = objectClient<Database>(deps.kube, DATABASES);
  const secrets = new TokenSecrets(deps.kube);
  const appSecrets = new AppTokenSecrets(deps.kube, deps.appTokenRotation ?? DEFAULT_ROTATION);
  const claims = new TokenClaims(deps.databases);
  const now = deps.now ?? (() => new Date());
  const usageRefreshMs = deps.usageRefreshMs ?? 30_000;
  const dbUrl = deps.dbUrl.replace(/\/+$/, '');

  /** Writes the status if it changed; answers the object as written, for the next write of this reconcile. */
  const writeStatus = async (db: Database, identity: Identity, observation: Observation): Promise<Database> => {
    const at = now();
    const computed = desiredStatus(db, identity, observation, at, deps.usageSampleMs);
    const status = { ...computed, conditions: withStalled('Database', computed.conditions, db.metadata?.generation, at) };
    if (!statusChanged(db.status, status)) return db;
    const { namespace = '', name = '', resourceVersion } = db.metadata ?? {};
    const written = await client.patchStatus(namespace, name, { metadata: { resourceVersion }, status });
    const [before, after] = [findCondition(db.status?.conditions, 'Ready'), findCondition(written.status?.conditions, 'Ready')];
    if (after && (before?.status !== after.status || before.reason !== after.reason)) {
      void deps.events.event(written, NORMAL.has(after.reason) ? 'Normal' : 'Warning', after.reason, after.message);
    }
    return written;
  };

  const reconcile = async (key: string, log: Logger): Promise<Result> => {
    let db = deps.databases.get(key);
    if (!db?.metadata?.uid) return;
    const databaseId = databaseIdFor(db.metadata.uid);
    const identity: Identity = { databaseId, url: `${dbUrl}/v1/${databaseId}` };

    if (db.metadata.deletionTimestamp) {
      if (!hasFinalizer(db, DATABASE_FINALIZER)) return;
      db = await writeStatus(db, identity, { kind: 'deleting' });
      try {
        await deps.engine.delete(databaseId);
      } catch (err) {
        if (!(err instanceof EngineUnavailableError)) throw err;
        await writeStatus(db, identity, { kind: 'engine-unavailable', detail: err.message, deleting: true });
        return { requeue: true };
      }
      log.info('database deleted from the engine and the bucket', { databaseId });
      await removeFinalizer(client, db, DATABASE_FINALIZER);
      return;
    }

    // Before the engine has anything, so a delete from now on always cleans up.
    db = await addFinalizer(client, db, DATABASE_FINALIZER);
    // The apps' tokens, accepted besides any other. Outside a project's namespace (no right to Secrets there)
    // the database has none: no app can be there to use them, as the runtime reads Secrets in projects only.
    const appTokens = await appSecrets.ensure(db, now());
    if (appTokens.kind === 'conflict') {
      await writeStatus(db, identity, { kind: 'secret-conflict', secret: appTokens.name });
      return { requeueAfter: usageRefreshMs };
    }
    const appTokenHashes: EngineTenantRequest['tokens'] = [];
    if (appTokens.kind === 'minted') {
      Object.assign(identity, { appTokenSecretName: appTokens.name, appTokenGeneration: appTokens.generation });
      appTokenHashes.push({ sha256: appTokens.full }, { sha256: appTokens.readOnly, read_only: true });
      // The replaced tokens until their overlap ends (cw-db refuses them from then on, whatever it was last told).
      const previous = appTokens.previous;
      if (previous) appTokenHashes.push({ sha256: previous.full, expires_at: previous.until }, { sha256: previous.readOnly, read_only: true, expires_at: previous.until });
      if (appTokens.rotated) {
        const why = appTokens.rotated === 'period' ? 'they were due' : 'a rotation was asked';
        log.info('app tokens rotated', { reason: appTokens.rotated, previousUntil: previous?.until });
        void deps.events.event(db, 'Normal', DatabaseReasons.AppTokensRotated, `App tokens replaced (${why}); the replaced ones are accepted until ${previous?.until ?? 'now'}.`);
      }
    }
    let tokens: EngineTenantRequest['tokens'];
    const taken = claims.takenFrom(db);
    if (taken) {
      // cw-db keeps what it was last told (the tokens it had, or no tenant): never another database's token.
      log.warn('a token of spec.tokens is another database’s', { other: taken.by });
      await writeStatus(db, identity, { kind: 'token-in-use' });
      return { requeueAfter: usageRefreshMs };
    }
    if (db.spec.tokens) {
      // Tokens given in the spec (by the API's rotation, say) replace a minted one: its Secret would only mislead.
      await secrets.removeMinted(db);
      tokens = db.spec.tokens.map((t) => ({ sha256: t.sha256, ...(t.readOnly ? { read_only: true } : {}), ...(t.expiresAt ? { expires_at: t.expiresAt } : {}) }));
    } else {
      const minted = await secrets.ensure(db, identity.url);
      identity.tokenSecretName = minted.name;
      if (minted.kind !== 'minted') {
        await writeStatus(
          db,
          identity,
          minted.kind === 'conflict' ? { kind: 'secret-conflict', secret: minted.name } : { kind: 'secret-forbidden', secret: minted.name, namespace: db.metadata?.namespace ?? '' },
        );
        // The Secret is not watched (token-secret.ts): look again whether it was removed, or the binding made.
        return { requeueAfter: usageRefreshMs };
      }
      tokens = [{ sha256: minted.sha256 }];
    }

    const request: EngineTenantRequest = {
      tokens: [...tokens, ...appTokenHashes],
      durability: db.spec.durability ?? 'async',
      ...(db.metadata?.namespace ? { project: deps.accounts?.of(db.metadata.namespace) ?? db.metadata.namespace } : {}),
      ...engineLimits(db),
    };
    const restore = db.spec.restoreFrom;
    // A restore happens once, when the tenant is created; afterwards the source may go.
    if (restore && !isTrue(db.status?.conditions, 'Provisioned') && db.status?.state !== 'ready') {
      const source = deps.databases.get(`${db.metadata?.namespace ?? ''}/${restore.database}`);
      if (!source?.metadata?.uid || source.metadata.deletionTimestamp) {
        await writeStatus(db, identity, { kind: 'restore-source-missing', source: restore.database });
        return { requeueAfter: usageRefreshMs };
      }
      request.restore_from = { tenant: databaseIdFor(source.metadata.uid), at: restore.timestamp };
    }
    if (db.status?.state !== 'ready') db = await writeStatus(db, identity, { kind: 'provisioning', restoring: request.restore_from !== undefined });

    let observation: Observation;
    try {
      observation = { kind: 'served', tenant: await deps.engine.ensure(databaseId, request) };
      // An in-place restore asked by annotation, once the tenant is served; its answer goes into the status.
      const asked = pendingRestoreRequest(db);
      if (asked !== undefined) {
        const lastRestore = await restoreInPlace(deps.engine, databaseId, asked, now());
        log.info('in-place restore answered', { request: asked, outcome: lastRestore.outcome, undoPoint: lastRestore.undoPoint });
        const tenant = (await deps.engine.describe(databaseId)) ?? observation.tenant;
        observation = { kind: 'served', tenant, lastRestore };
        const restored = lastRestore.outcome === 'Restored';
        void deps.events.event(db, restored ? 'Normal' : 'Warning', restored ? DatabaseReasons.RestoredInPlace : DatabaseReasons.RestoreRefused, lastRestore.message);
      }
    } catch (err) {
      if (err instanceof RestorePointError) observation = { kind: 'restore-point-unavailable', detail: err.message };
      else if (err instanceof LimitOutOfRangeError) observation = { kind: 'limit-out-of-range', detail: err.message, served: db.status?.state === 'ready' };
      else if (err instanceof EngineUnavailableError) observation = { kind: 'engine-unavailable', detail: err.message, deleting: false };
      else throw err;
    }
    await writeStatus(db, identity, observation);
    if (observation.kind === 'engine-unavailable') return { requeue: true };
    if (observation.kind === 'served') return { requeueAfter: usageRefreshMs };
    return;
  };

  return new Controller<Database>({
    name: 'database',
    kind: 'Database',
    source: deps.databases,
    // cw-db keeps each database's share: the account sent must be the project's, not a stand-in before the list.
    ...(deps.accounts ? { caches: [deps.accounts] } : {}),
    registry: deps.registry,
    log: deps.log,
    workers: 4,
    // Its status is its own, refreshed every usageRefreshMs: a write of it must not wake it again (a database
    // written to all the time would have its lastWriteAt rewritten back to back, and the API's restore annotation
    // meet a new resourceVersion on each try).
    ignoreStatusOnlyChanges: true,
    // While the engine is unreachable, retry with client-go's default backoff, capped at a minute per item.
    rateLimiter: controllerRateLimiter<string>({ maxMs: 60_000 }),
    reconcile: (key, { log }) => reconcile(key, log),
  });
}

/** spec.limits as cw-db's admin API takes them (absent: the engine's defaults). */
function engineLimits(db: Database): Pick<EngineTenantRequest, 'limits'> {
  const limits = db.spec.limits;
  if (limits === undefined || Object.values(limits).every((v) => v === undefined)) return {};
  return {
    limits: {
      ...(limits.statementTimeoutMs === undefined ? {} : { statement_timeout_ms: limits.statementTimeoutMs }),
      ...(limits.maxSizeBytes === undefined ? {} : { max_size_bytes: limits.maxSizeBytes }),
      ...(limits.rowsReadPerDay === undefined ? {} : { rows_read_per_day: limits.rowsReadPerDay }),
      ...(limits.rowsWrittenPerDay === undefined ? {} : { rows_written_per_day: limits.rowsWrittenPerDay }),
    },
  };
}
