import { describe, expect, it } from 'vitest';
import type { Database } from '../../apis/v1alpha1/database.ts';
import { databaseDetailView, databaseView } from './database-view.ts';

const SHA = 'a'.repeat(64);

function database(overrides: { status?: Database['status']; deletionTimestamp?: string; spec?: Database['spec'] } = {}): Database {
  return {
    apiVersion: 'cloudwright.dev/v1alpha1',
    kind: 'Database',
    metadata: {
      namespace: 'p',
      name: 'orders',
      uid: 'u-1',
      creationTimestamp: '2030-01-01T00:00:00Z',
      ...(overrides.deletionTimestamp ? { deletionTimestamp: overrides.deletionTimestamp } : {}),
    },
    spec: overrides.spec ?? { durability: 'sync', tokens: [{ id: 'dbt-0123456789abcdef', sha256: SHA }] },
    ...(overrides.status ? { status: overrides.status } : {}),
  } as Database;
}

const readyStatus: Database['status'] = {
  state: 'ready',
  databaseId: 'db-1',
  tenantId: 'db-1',
  url: 'https://db.example.com/v1/db-1',
  tokenSecretName: 'orders-db-token',
  sizeBytes: 8192,
  rowsRead: 7,
  rowsWritten: 3,
  lastWriteAt: '2030-01-01T00:01:00Z',
  restoreWindow: { earliest: '2030-01-01T00:00:00Z', latest: '2030-01-01T00:01:00Z' },
  conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: 'The database answers SQL at its url.', lastTransitionTime: '2030-01-01T00:00:00Z' }],
};

describe('databaseView', () => {
  it('shows the id, name, state, creation time and url of a ready database', () => {
    expect(databaseView(database({ status: readyStatus }))).toEqual({
      database_id: 'db-1',
      name: 'orders',
      status: 'ready',
      created_at: '2030-01-01T00:00:00Z',
      database_url: 'https://db.example.com/v1/db-1',
      database_ws_url: 'wss://db.example.com/v1/db-1',
    });
  });

  it('is provisioning before the controller wrote a status, without a url', () => {
    expect(databaseView(database())).toEqual({ database_id: '', name: 'orders', status: 'provisioning', created_at: '2030-01-01T00:00:00Z' });
  });

  it('is deleting once the object has a deletion timestamp, whatever the status says', () => {
    const deleting = database({ status: readyStatus, deletionTimestamp: '2030-01-02T00:00:00Z' });
    expect(databaseView(deleting).status).toBe('deleting');
    expect(databaseDetailView(deleting).status).toBe('deleting');
  });
});

describe('databaseDetailView', () => {
  it('adds durability, usage, the restore window and the token Secret, and no message when ready', () => {
    expect(databaseDetailView(database({ status: readyStatus, spec: { durability: 'sync', restoreFrom: { database: 'src', timestamp: '2029-12-31T00:00:00Z' } } }))).toEqual({
      database_id: 'db-1',
      name: 'orders',
      status: 'ready',
      created_at: '2030-01-01T00:00:00Z',
      database_url: 'https://db.example.com/v1/db-1',
      database_ws_url: 'wss://db.example.com/v1/db-1',
      durability: 'sync',
      usage: { size_bytes: 8192, rows_read: 7, rows_written: 3, last_write_at: '2030-01-01T00:01:00Z' },
      usage_history: [],
      restore_window: { earliest: '2030-01-01T00:00:00Z', latest: '2030-01-01T00:01:00Z' },
      restored_from: { database: 'src', timestamp: '2029-12-31T00:00:00Z' },
      token_secret: 'orders-db-token',
    });
  });

  it("says why a database is not ready with the Ready condition's message", () => {
    const message = 'No Database src with data to restore from in this namespace.';
    const failed = database({ status: { state: 'failed', conditions: [{ type: 'Ready', status: 'False', reason: 'RestoreSourceNotFound', message, lastTransitionTime: '2030-01-01T00:00:00Z' }] } });
    const view = databaseDetailView(failed);
    expect(view).toMatchObject({ status: 'failed', status_message: message, durability: 'sync', restore_window: null });
    expect(view.usage).toEqual({ size_bytes: 0, rows_read: 0, rows_written: 0, last_write_at: null });
    expect(databaseDetailView(database({ spec: {} })).durability).toBe('async');
  });

  it('gives no status_message from a Ready condition that is True', () => {
    const deleting = databaseDetailView(database({ status: readyStatus, deletionTimestamp: '2030-01-02T00:00:00Z' }));
    expect(deleting.status).toBe('deleting');
    expect(deleting).not.toHaveProperty('status_message');
  });

  it('never carries a token, a token hash or a token id', () => {
    for (const db of [database({ status: readyStatus }), database(), database({ status: readyStatus, deletionTimestamp: '2030-01-02T00:00:00Z' })]) {
      for (const view of [databaseView(db), databaseDetailView(db)]) {
        const text = JSON.stringify(view);
        expect(text).not.toContain(SHA);
        expect(text).not.toContain('dbt-');
        expect(text).not.toMatch(/sha256|"tokens"/);
      }
    }
  });
});

describe('an in-place restore in the detail view', () => {
  const lastRestore = {
    request: '2030-01-01T00:00:30.000Z#a',
    outcome: 'Restored' as const,
    message: 'Restored.',
    restoredTo: '2030-01-01T00:00:30.000Z',
    undoPoint: '2030-01-01T00:01:00.000Z',
    handledAt: '2030-01-01T00:01:01Z',
  };
  const annotated = (request: string, status: Database['status']): Database => {
    const db = database({ status });
    db.metadata = { ...db.metadata, annotations: { 'cloudwright.dev/restore-request': request } };
    return db;
  };

  it('shows the last restore with its undo point, and no restore pending once the request is answered', () => {
    const view = databaseDetailView(annotated(lastRestore.request, { ...readyStatus, lastRestore }));
    expect(view.last_restore).toEqual({ outcome: 'Restored', message: 'Restored.', restored_to: lastRestore.restoredTo, undo_point: lastRestore.undoPoint, handled_at: lastRestore.handledAt });
    expect(view.restore_pending).toBeUndefined();
  });

  it('shows a restore pending while the annotation asks for one the status has not answered', () => {
    expect(databaseDetailView(annotated('2030-01-01T00:00:40.000Z#b', { ...readyStatus, lastRestore })).restore_pending).toBe(true);
    expect(databaseDetailView(annotated('2030-01-01T00:00:40.000Z#b', readyStatus)).restore_pending).toBe(true);
    expect(databaseDetailView(database({ status: readyStatus })).restore_pending).toBeUndefined();
  });
});
