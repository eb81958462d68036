import { DatabaseReasons as R, type Database, type DatabaseLastRestore, type DatabaseState, type DatabaseStatus } from '../../../src/apis/v1alpha1/database.ts';
import { setCondition, type ConditionUpdate } from '../../../src/conditions/index.ts';
import type { EngineTenant } from '../../../src/platform/databases/engine-client.ts';
import { limitReachedCondition } from './limit-reached.ts';

/** What one reconcile found out, from which the status follows. */
export type Observation =
  /** The engine serves the tenant with this generation's tokens and durability. */
  | { readonly kind: 'served'; readonly tenant: EngineTenant; readonly lastRestore?: DatabaseLastRestore }
  /** About to ask the engine (a restore can take a while: the status says so meanwhile). */
  | { readonly kind: 'provisioning'; readonly restoring: boolean }
  | { readonly kind: 'deleting' }
  | { readonly kind: 'engine-unavailable'; readonly detail: string; readonly deleting: boolean }
  | { readonly kind: 'restore-source-missing'; readonly source: string }
  | { readonly kind: 'restore-point-unavailable'; readonly detail: string }
  /** The engine refused spec.limits; `served`: the tenant exists and keeps serving under the limits it had. */
  | { readonly kind: 'limit-out-of-range'; readonly detail: string; readonly served: boolean }
  | { readonly kind: 'secret-conflict'; readonly secret: string }
  /** A hash of spec.tokens another Database named first: the engine is not told this Database's tokens. */
  | { readonly kind: 'token-in-use' }
  /** The operator may not read or write Secrets in the Database's namespace (no project's: no binding there). */
  | { readonly kind: 'secret-forbidden'; readonly secret: string; readonly namespace: string };

/** The ids and endpoint of a database, known from its uid before the engine is asked. */
export interface Identity {
  databaseId: string;
  url: string;
  tokenSecretName?: string;
  /** The app tokens' Secret and generation; absent where the controller may not write Secrets. */
  appTokenSecretName?: string;
  appTokenGeneration?: string;
}

function stateOf(db: Database, observation: Observation): DatabaseState {
  switch (observation.kind) {
    case 'served':
      return 'ready';
    case 'provisioning':
      return observation.restoring ? 'restoring' : 'provisioning';
    case 'deleting':
      return 'deleting';
    case 'engine-unavailable':
      // Unreachable for a while is not a failure of the database: it keeps the state it had.
      return observation.deleting ? 'deleting' : (db.status?.state ?? 'provisioning');
    case 'limit-out-of-range':
      return observation.served ? 'ready' : 'failed';
    default:
      return 'failed';
  }
}

function conditionsOf(observation: Observation): [ConditionUpdate, ConditionUpdate] {
  const both = (status: ConditionUpdate['status'], reason: string, message: string): [ConditionUpdate, ConditionUpdate] => [
    { type: 'Provisioned', status, reason, message },
    { type: 'Ready', status, reason, message },
  ];
  switch (observation.kind) {
    case 'served':
      return [
        { type: 'Provisioned', status: 'True', reason: R.Provisioned, message: 'The database engine serves this database with the current tokens and durability.' },
        { type: 'Ready', status: 'True', reason: R.Ready, message: 'The database answers SQL at its url.' },
      ];
    case 'provisioning':
      return observation.restoring ? both('False', R.Restoring, 'Copying the source database as it was at the restore time.') : both('False', R.Provisioning, 'Creating the database in the engine.');
    case 'deleting':
      return both('False', R.Deleting, 'Deleting the database and its copies in the object store.');
    case 'engine-unavailable':
      return both('Unknown', R.EngineUnavailable, `${observation.deleting ? 'Deleting: ' : ''}${observation.detail}; retrying.`);
    case 'restore-source-missing':
      return both('False', R.RestoreSourceNotFound, `No Database ${observation.source} with data to restore from in this namespace.`);
    case 'restore-point-unavailable':
      return both('False', R.RestorePointUnavailable, observation.detail);
    case 'limit-out-of-range':
      return observation.served
        ? [
            { type: 'Provisioned', status: 'False', reason: R.LimitOutOfRange, message: `${observation.detail}; the database keeps the limits it had.` },
            { type: 'Ready', status: 'True', reason: R.Ready, message: 'The database answers SQL at its url.' },
          ]
        : both('False', R.LimitOutOfRange, observation.detail);
    case 'token-in-use':
      return both('False', R.TokenInUse, 'A token of spec.tokens is another database’s (its SHA-256 is named there first); tokens are random, so mint a new one for this database.');
    case 'secret-conflict':
      return both('False', R.TokenSecretConflict, `Secret ${observation.secret} exists and does not belong to this Database; delete it or set spec.tokens.`);
    case 'secret-forbidden':
      return both(
        'False',
        R.TokenSecretForbidden,
        `The operator may not write Secret ${observation.secret}: it writes Secrets only in project namespaces, and ${observation.namespace} is none; create the Database in a project's namespace or set spec.tokens.`,
      );
  }
}

/** One sample of the usage history every five minutes, a day of them: 288 at most, oldest first. */
export const USAGE_SAMPLE_MS = 5 * 60_000;
const USAGE_HISTORY_MS = 24 * 3600_000;
type UsageSample = NonNullable<DatabaseStatus['usageHistory']>[number];

/** The history with `sample` added when the last one is `everyMs` old, samples older than a day dropped. */
export function withSample(history: readonly UsageSample[] | undefined, sample: UsageSample, now: Date, everyMs = USAGE_SAMPLE_MS): UsageSample[] {
  const kept = (history ?? []).filter((s) => now.getTime() - Date.parse(s.at) < USAGE_HISTORY_MS);
  const last = kept.at(-1);
  if (last && now.getTime() - Date.parse(last.at) < everyMs) return kept;
  return [...kept, sample].slice(-288);
}

/** The status a reconcile writes: ids, state, conditions at this generation, and the engine's figures when served. */
export function desiredStatus(db: Database, identity: Identity, observation: Observation, now: Date, usageSampleMs = USAGE_SAMPLE_MS): DatabaseStatus {
  const generation = db.metadata?.generation;
  let conditions = db.status?.conditions;
  for (const update of conditionsOf(observation)) conditions = setCondition(conditions, update, generation, now).conditions;
  // Only what cw-db reports says whether a quota is reached: otherwise the condition stays as it was.
  if (observation.kind === 'served') conditions = setCondition(conditions, limitReachedCondition(observation.tenant), generation, now).conditions;
  const status: DatabaseStatus = {
    ...db.status,
    conditions,
    state: stateOf(db, observation),
    databaseId: identity.databaseId,
    tenantId: identity.databaseId,
    url: identity.url,
    ...(identity.tokenSecretName ? { tokenSecretName: identity.tokenSecretName } : {}),
  };
  if (!identity.tokenSecretName) delete status.tokenSecretName;
  // The generation is published only once the engine accepts the tokens it stands for, so the runtime never
  // binds a token cw-db would refuse yet.
  if (identity.appTokenSecretName && observation.kind === 'served') {
    status.appTokenSecretName = identity.appTokenSecretName;
    if (identity.appTokenGeneration) status.appTokenGeneration = identity.appTokenGeneration;
  } else if (!identity.appTokenSecretName) {
    delete status.appTokenSecretName;
    delete status.appTokenGeneration;
  }
  if (observation.kind === 'served') {
    const t = observation.tenant;
    status.observedGeneration = generation;
    status.sizeBytes = t.size_bytes;
    // Several cw-db replicas: the one that owns it now (it answered the describe); moves with a failover.
    if (t.replica) status.replica = t.replica;
    else delete status.replica;
    status.rowsRead = t.rows_read;
    status.rowsWritten = t.rows_written;
    if (t.last_write_at) status.lastWriteAt = t.last_write_at;
    status.usageHistory = withSample(db.status?.usageHistory, { at: now.toISOString(), sizeBytes: t.size_bytes, rowsRead: t.rows_read, rowsWritten: t.rows_written }, now, usageSampleMs);
    if (t.restore_window) status.restoreWindow = t.restore_window;
    else delete status.restoreWindow;
    status.limits = {
      statementTimeoutMs: t.limits.statement_timeout_ms,
      maxSizeBytes: t.limits.max_size_bytes,
      rowsReadPerDay: t.limits.rows_read_per_day,
      rowsWrittenPerDay: t.limits.rows_written_per_day,
    };
    status.today = { day: t.today.day, rowsRead: t.today.rows_read, rowsWritten: t.today.rows_written };
    if (observation.lastRestore) status.lastRestore = observation.lastRestore;
  } else if (observation.kind !== 'engine-unavailable') {
    status.observedGeneration = generation;
  }
  return status;
}
