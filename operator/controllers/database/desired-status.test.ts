import { describe, expect, it } from 'vitest';
import type { Database } from '../../../src/apis/v1alpha1/database.ts';
import { statusChanged } from '../../../src/conditions/index.ts';
import type { EngineTenant } from '../../../src/platform/databases/engine-client.ts';
import { desiredStatus, USAGE_SAMPLE_MS, withSample, type Identity, type Observation } from './desired-status.ts';

const t0 = new Date('2030-01-01T00:00:00Z');
const t1 = new Date('2030-01-01T00:05:00Z');
const identity: Identity = { databaseId: 'db-0123', url: 'https://db.example.com/v1/db-0123' };

function db(status?: Database['status'], generation = 3): Database {
  return { apiVersion: 'cloudwright.dev/v1alpha1', kind: 'Database', metadata: { namespace: 'p', name: 'orders', generation }, spec: {}, ...(status ? { status } : {}) } as Database;
}

const tenant: EngineTenant = {
  tenant: 'db-0123',
  created_at: '2030-01-01T00:00:00Z',
  durability: 'async',
  size_bytes: 12_288,
  limits: { statement_timeout_ms: 5000, max_size_bytes: 1024 ** 3, rows_read_per_day: 1000, rows_written_per_day: 100 },
  today: { day: '2030-01-01', rows_read: 40, rows_written: 5 },
  limit_reached: null,
  rows_read: 40,
  rows_written: 5,
  last_write_at: '2030-01-01T00:04:00Z',
  restore_window: { earliest: '2030-01-01T00:00:00Z', latest: '2030-01-01T00:04:00Z' },
};

const condition = (status: Database['status'], type: string) => status?.conditions?.find((c) => c.type === type);

describe('the usage history', () => {
  const sample = (minutes: number, rows = minutes) => ({ at: new Date(t0.getTime() + minutes * 60_000).toISOString(), sizeBytes: 1, rowsRead: rows, rowsWritten: rows });
  it('keeps a sample every five minutes, a day of them, oldest first', () => {
    let history = withSample(undefined, sample(0), t0);
    history = withSample(history, sample(2), new Date(t0.getTime() + 2 * 60_000));
    expect(history.map((s) => s.rowsRead)).toEqual([0]);
    history = withSample(history, sample(5), new Date(t0.getTime() + USAGE_SAMPLE_MS));
    expect(history.map((s) => s.rowsRead)).toEqual([0, 5]);
    const dayLater = new Date(t0.getTime() + 24 * 3600_000 + 60_000);
    expect(withSample(history, sample(24 * 60 + 1), dayLater).map((s) => s.rowsRead)).toEqual([5, 24 * 60 + 1]);
  });

  it('is written with the figures of a served database', () => {
    expect(desiredStatus(db(), identity, { kind: 'served', tenant }, t0).usageHistory).toEqual([{ at: t0.toISOString(), sizeBytes: 12_288, rowsRead: 40, rowsWritten: 5 }]);
  });
});

describe('the owning replica', () => {
  it('follows what cw-db answers: the replica that owns the database, none with a single cw-db', () => {
    const owned = desiredStatus(db(), identity, { kind: 'served', tenant: { ...tenant, replica: 'cw-db-1' } }, t0);
    expect(owned.replica).toBe('cw-db-1');
    const moved = desiredStatus(db({ ...owned }), identity, { kind: 'served', tenant: { ...tenant, replica: 'cw-db-2' } }, t0);
    expect(moved.replica).toBe('cw-db-2');
    expect(desiredStatus(db({ ...owned }), identity, { kind: 'served', tenant }, t0).replica).toBeUndefined();
  });
});

describe('desiredStatus', () => {
  it.each<[Observation, string, string, string, RegExp]>([
    [{ kind: 'served', tenant }, 'ready', 'True', 'Provisioned', /serves this database/],
    [{ kind: 'provisioning', restoring: false }, 'provisioning', 'False', 'Provisioning', /Creating the database/],
    [{ kind: 'provisioning', restoring: true }, 'restoring', 'False', 'Restoring', /as it was at the restore time/],
    [{ kind: 'deleting' }, 'deleting', 'False', 'Deleting', /Deleting the database and its copies/],
    [{ kind: 'engine-unavailable', detail: 'cw-db is not reachable', deleting: false }, 'provisioning', 'Unknown', 'EngineUnavailable', /^cw-db is not reachable; retrying\.$/],
    [{ kind: 'engine-unavailable', detail: 'cw-db is not reachable', deleting: true }, 'deleting', 'Unknown', 'EngineUnavailable', /^Deleting: cw-db is not reachable; retrying\.$/],
    [{ kind: 'restore-source-missing', source: 'src' }, 'failed', 'False', 'RestoreSourceNotFound', /No Database src with data/],
    [
      { kind: 'restore-point-unavailable', detail: 'The restore time is before the earliest point kept' },
      'failed',
      'False',
      'RestorePointUnavailable',
      /^The restore time is before the earliest point kept$/,
    ],
    [{ kind: 'secret-conflict', secret: 'orders-db' }, 'failed', 'False', 'TokenSecretConflict', /Secret orders-db exists and does not belong/],
    [{ kind: 'token-in-use' }, 'failed', 'False', 'TokenInUse', /is another database’s/],
    [{ kind: 'secret-forbidden', secret: 'orders-db', namespace: 'default' }, 'failed', 'False', 'TokenSecretForbidden', /only in project namespaces, and default is none/],
    [{ kind: 'limit-out-of-range', detail: 'The size quota may be at most 10 GiB', served: false }, 'failed', 'False', 'LimitOutOfRange', /^The size quota may be at most 10 GiB$/],
  ])('%j → %s, Provisioned %s (%s)', (observation, state, status, reason, message) => {
    const result = desiredStatus(db(), identity, observation, t0);
    expect(result.state).toBe(state);
    const provisioned = condition(result, 'Provisioned');
    const ready = condition(result, 'Ready');
    expect(provisioned).toMatchObject({ status, reason, lastTransitionTime: '2030-01-01T00:00:00Z', observedGeneration: 3 });
    expect(provisioned?.message).toMatch(message);
    expect(ready).toMatchObject({ status, reason: observation.kind === 'served' ? 'Ready' : reason });
    if (observation.kind !== 'served') expect(ready?.message).toBe(provisioned?.message);
    expect(result).toMatchObject({ databaseId: 'db-0123', tenantId: 'db-0123', url: identity.url });
  });

  it('answers observedGeneration for every observation but engine-unavailable', () => {
    const observations: Observation[] = [
      { kind: 'served', tenant },
      { kind: 'provisioning', restoring: false },
      { kind: 'deleting' },
      { kind: 'restore-source-missing', source: 'src' },
      { kind: 'restore-point-unavailable', detail: 'x' },
      { kind: 'secret-conflict', secret: 's' },
    ];
    for (const observation of observations) expect(desiredStatus(db(undefined, 4), identity, observation, t0).observedGeneration).toBe(4);
    const before = desiredStatus(db(undefined, 4), identity, { kind: 'served', tenant }, t0);
    const unavailable = desiredStatus(db(before, 5), identity, { kind: 'engine-unavailable', detail: 'down', deleting: false }, t1);
    expect(unavailable.observedGeneration).toBe(4);
    expect(desiredStatus(db(undefined, 5), identity, { kind: 'engine-unavailable', detail: 'down', deleting: false }, t1).observedGeneration).toBeUndefined();
  });

  it('keeps the state it had while the engine is unreachable', () => {
    const served = desiredStatus(db(), identity, { kind: 'served', tenant }, t0);
    const unavailable = desiredStatus(db(served), identity, { kind: 'engine-unavailable', detail: 'down', deleting: false }, t1);
    expect(unavailable.state).toBe('ready');
    expect(condition(unavailable, 'Ready')).toMatchObject({ status: 'Unknown', lastTransitionTime: '2030-01-01T00:05:00Z' });
    // The figures last seen stay.
    expect(unavailable).toMatchObject({ sizeBytes: 12_288, rowsRead: 40 });
  });

  it('keeps a served database ready when the engine refuses new limits, saying so on Provisioned', () => {
    const served = desiredStatus(db(), identity, { kind: 'served', tenant }, t0);
    const refused = desiredStatus(db(served, 4), identity, { kind: 'limit-out-of-range', detail: 'The size quota may be at most 10 GiB', served: true }, t1);
    expect(refused.state).toBe('ready');
    expect(condition(refused, 'Provisioned')).toMatchObject({
      status: 'False',
      reason: 'LimitOutOfRange',
      message: 'The size quota may be at most 10 GiB; the database keeps the limits it had.',
      observedGeneration: 4,
    });
    expect(condition(refused, 'Ready')).toMatchObject({ status: 'True', reason: 'Ready' });
    expect(refused.limits).toEqual({ statementTimeoutMs: 5000, maxSizeBytes: 1024 ** 3, rowsReadPerDay: 1000, rowsWrittenPerDay: 100 });
  });

  it("copies the engine's figures when served, and drops a restore window the engine no longer reports", () => {
    const served = desiredStatus(db(), identity, { kind: 'served', tenant }, t0);
    expect(served).toMatchObject({
      sizeBytes: 12_288,
      rowsRead: 40,
      rowsWritten: 5,
      lastWriteAt: '2030-01-01T00:04:00Z',
      restoreWindow: { earliest: '2030-01-01T00:00:00Z', latest: '2030-01-01T00:04:00Z' },
      limits: { statementTimeoutMs: 5000, maxSizeBytes: 1024 ** 3, rowsReadPerDay: 1000, rowsWrittenPerDay: 100 },
      today: { day: '2030-01-01', rowsRead: 40, rowsWritten: 5 },
    });
    const windowless = desiredStatus(db(served), identity, { kind: 'served', tenant: { ...tenant, restore_window: null, rows_read: 41 } }, t1);
    expect(windowless.restoreWindow).toBeUndefined();
    expect(windowless.rowsRead).toBe(41);
    expect(windowless.lastWriteAt).toBe('2030-01-01T00:04:00Z');
    const fresh = desiredStatus(db(), identity, { kind: 'served', tenant: { ...tenant, last_write_at: null } }, t0);
    expect(fresh).not.toHaveProperty('lastWriteAt');
  });

  it('names the token Secret only when the identity has one', () => {
    const withSecret = desiredStatus(db(), { ...identity, tokenSecretName: 'orders-db-token' }, { kind: 'served', tenant }, t0);
    expect(withSecret.tokenSecretName).toBe('orders-db-token');
    const without = desiredStatus(db(withSecret), identity, { kind: 'served', tenant }, t1);
    expect(without).not.toHaveProperty('tokenSecretName');
  });

  it('writes nothing again for an unchanged database, and moves lastTransitionTime only on a flip', () => {
    const first = desiredStatus(db(), identity, { kind: 'served', tenant }, t0);
    // Within five minutes, so no new usage sample either.
    expect(statusChanged(first, desiredStatus(db(first), identity, { kind: 'served', tenant }, new Date(t0.getTime() + 30_000)))).toBe(false);
    const deleting = desiredStatus(db(first), identity, { kind: 'deleting' }, t1);
    expect(condition(deleting, 'Ready')?.lastTransitionTime).toBe('2030-01-01T00:05:00Z');
  });
});

describe("the app tokens' Secret and generation in the status", () => {
  const withApp: Identity = { ...identity, appTokenSecretName: 'orders-app-tokens', appTokenGeneration: 'aaaa' };
  it('are published once the engine serves the tokens, and a new generation only then', () => {
    expect(desiredStatus(db(), withApp, { kind: 'provisioning', restoring: false }, t0).appTokenSecretName).toBeUndefined();
    const served = desiredStatus(db(), withApp, { kind: 'served', tenant }, t0);
    expect(served).toMatchObject({ appTokenSecretName: 'orders-app-tokens', appTokenGeneration: 'aaaa' });
    // Rotated (the Secret deleted and minted again): the engine is asked first, the generation follows.
    const rotated: Identity = { ...withApp, appTokenGeneration: 'bbbb' };
    expect(desiredStatus(db(served), rotated, { kind: 'engine-unavailable', detail: 'down', deleting: false }, t1).appTokenGeneration).toBe('aaaa');
    expect(desiredStatus(db(served), rotated, { kind: 'served', tenant }, t1).appTokenGeneration).toBe('bbbb');
  });

  it('are removed where the controller may not write them', () => {
    const served = desiredStatus(db(), withApp, { kind: 'served', tenant }, t0);
    const status = desiredStatus(db(served), identity, { kind: 'served', tenant }, t1);
    expect(status).not.toHaveProperty('appTokenSecretName');
    expect(status).not.toHaveProperty('appTokenGeneration');
  });
});

describe('an in-place restore in the status', () => {
  const lastRestore = {
    request: '2030-01-01T00:01:00.000Z#a1',
    outcome: 'Restored' as const,
    message: 'Restored.',
    restoredTo: '2030-01-01T00:01:00.000Z',
    undoPoint: '2030-01-01T00:04:59.000Z',
    handledAt: t1.toISOString(),
  };

  it('records the answer of a restore request, and keeps it through the later refreshes and failures', () => {
    const answered = desiredStatus(db(), identity, { kind: 'served', tenant, lastRestore }, t1);
    expect(answered.lastRestore).toEqual(lastRestore);
    expect(condition(answered, 'Ready')?.status).toBe('True');
    expect(desiredStatus(db(answered), identity, { kind: 'served', tenant }, t1).lastRestore).toEqual(lastRestore);
    expect(desiredStatus(db(answered), identity, { kind: 'engine-unavailable', detail: 'down', deleting: false }, t1).lastRestore).toEqual(lastRestore);
  });

  it('says which quota is reached on LimitReached, with the figures, and clears it once under', () => {
    const reached = desiredStatus(db(), identity, { kind: 'served', tenant: { ...tenant, today: { ...tenant.today, rows_written: 100 }, limit_reached: 'rows_written_per_day' } }, t0);
    expect(condition(reached, 'LimitReached')).toMatchObject({
      status: 'True',
      reason: 'RowsWrittenQuotaReached',
      message: '100 rows written on 2030-01-01 (UTC) reached the quota of 100 rows written per day: writes are refused until 2030-01-02T00:00:00Z, or until the quota is raised; reads still work.',
    });
    const read = desiredStatus(db(reached), identity, { kind: 'served', tenant: { ...tenant, today: { ...tenant.today, rows_read: 1000 }, limit_reached: 'rows_read_per_day' } }, t1);
    expect(condition(read, 'LimitReached')).toMatchObject({ status: 'True', reason: 'RowsReadQuotaReached' });
    expect(condition(read, 'LimitReached')?.message).toMatch(/^1,000 rows read on 2030-01-01 \(UTC\) reached the quota of 1,000 rows read per day: every statement is refused/);
    const full = desiredStatus(db(read), identity, { kind: 'served', tenant: { ...tenant, limit_reached: 'max_size_bytes' } }, t1);
    expect(condition(full, 'LimitReached')).toMatchObject({ status: 'True', reason: 'SizeQuotaReached', message: expect.stringContaining('size quota of 1 GiB') });
    const frozen = {
      reason: 'project_storage_quota' as const,
      message: 'The database cannot grow: the databases of the project (and of the other projects of the user who created it) on this server hold 10 GiB',
    };
    const project = desiredStatus(db(full), identity, { kind: 'served', tenant: { ...tenant, limit_reached: 'project_storage_quota', growth_frozen: frozen } }, t1);
    expect(condition(project, 'LimitReached')).toMatchObject({ status: 'True', reason: 'ProjectStorageQuotaReached', message: `${frozen.message} (writes that need room fail with SQLITE_FULL).` });
    const disk = desiredStatus(db(project), identity, { kind: 'served', tenant: { ...tenant, limit_reached: 'disk_reserve', growth_frozen: { ...frozen, reason: 'disk_reserve' } } }, t1);
    expect(condition(disk, 'LimitReached')).toMatchObject({ status: 'True', reason: 'DiskReserveReached' });
    const under = desiredStatus(db(full), identity, { kind: 'served', tenant }, t1);
    expect(condition(under, 'LimitReached')).toMatchObject({ status: 'False', reason: 'WithinLimits' });
    // Not served: the condition stays as cw-db last reported it.
    const unavailable = desiredStatus(db(reached), identity, { kind: 'engine-unavailable', detail: 'down', deleting: false }, t1);
    expect(condition(unavailable, 'LimitReached')).toMatchObject({ status: 'True', reason: 'RowsWrittenQuotaReached' });
  });
});
