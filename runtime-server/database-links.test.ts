import { describe, expect, it } from 'vitest';
import type { Database } from '../src/apis/v1alpha1/database.ts';
import { linkedValues, linkSignature, type LinkedValue } from './database-links.ts';

const ready: Database = {
  metadata: { name: 'orders', namespace: 'p1', uid: 'u-1' },
  spec: {},
  status: { appTokenSecretName: 'orders-app-tokens', appTokenGeneration: 'g1', databaseId: 'd-1', url: 'https://db.example/v1/d-1' },
};
/** The Databases of namespace p1 only: what the runtime looks a name up in. */
const inP1 = (dbs: Database[]) => (name: string) => dbs.find((d) => d.metadata?.name === name);

describe('linkedValues', () => {
  it('reads each variable from its Database’s app-token Secret, read-only unless full', () => {
    expect(linkedValues({ W: { database: 'orders', access: 'full' }, R: { database: 'orders' } }, inP1([ready]))).toEqual([
      { kind: 'token', variable: 'R', database: 'orders', uid: 'u-1', secret: 'orders-app-tokens', key: 'READ_ONLY_TOKEN', generation: 'g1' },
      { kind: 'token', variable: 'W', database: 'orders', uid: 'u-1', secret: 'orders-app-tokens', key: 'FULL_TOKEN', generation: 'g1' },
    ]);
    expect(linkedValues(undefined, inP1([]))).toEqual([]);
  });

  it('says which variable names a Database the namespace does not have, or one without app tokens yet', () => {
    expect(linkedValues({ B: { database: 'theirs' }, A: { database: 'orders' } }, inP1([ready]))).toEqual({
      reason: 'DatabaseNotFound',
      message: "Variable B names Database theirs, which does not exist in the app's namespace.",
    });
    const deleting = { ...ready, metadata: { ...ready.metadata, deletionTimestamp: '2030-01-01T00:00:00Z' } };
    expect(linkedValues({ A: { database: 'orders' } }, inP1([deleting]))).toMatchObject({ reason: 'DatabaseNotFound' });
    const fresh = { ...ready, status: {} };
    expect(linkedValues({ A: { database: 'orders' } }, inP1([fresh]))).toEqual({
      reason: 'DatabaseNotReady',
      message: 'Variable A names Database orders, which has no app tokens yet (it is not ready).',
    });
  });

  it('gives a URL on the runtime’s endpoint (else the public one), and waits for the database id', () => {
    const entries = { DB_URL: { database: 'orders', provides: 'url' as const } };
    expect(linkedValues(entries, inP1([ready]), 'http://cloudwright-db.system.svc/')).toEqual([
      { kind: 'url', variable: 'DB_URL', database: 'orders', url: 'http://cloudwright-db.system.svc/v1/d-1' },
    ]);
    expect(linkedValues(entries, inP1([ready]))).toEqual([{ kind: 'url', variable: 'DB_URL', database: 'orders', url: 'https://db.example/v1/d-1' }]);
    expect(linkedValues(entries, inP1([{ ...ready, status: {} }]), 'http://db')).toMatchObject({ reason: 'DatabaseNotReady' });
    expect(linkSignature(linkedValues(entries, inP1([ready])) as LinkedValue[])).toBe('DB_URL=https://db.example/v1/d-1');
  });

  it('has a signature that changes with a rotation (the generation), and names no token', () => {
    const values = linkedValues({ A: { database: 'orders' } }, inP1([ready])) as LinkedValue[];
    const rotated = linkedValues({ A: { database: 'orders' } }, inP1([{ ...ready, status: { ...ready.status, appTokenGeneration: 'g2' } }])) as LinkedValue[];
    expect(linkSignature(values)).toBe('A=orders/READ_ONLY_TOKEN@g1');
    expect(linkSignature(rotated)).not.toBe(linkSignature(values));
  });
});
