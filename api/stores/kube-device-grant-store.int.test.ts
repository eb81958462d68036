import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateDeviceCode, generateUserCode, hashDeviceCode } from '../../src/auth/device-code.ts';
import { describeDeviceGrantStoreContract } from '../../src/auth/device-grant-store-contract.ts';
import type { DeviceGrant } from '../../src/auth/ports.ts';
import { NAMESPACES, objectClient, SECRETS, type KubeConnection, type ObjectClient, type SecretObject } from '../../src/kube/index.ts';
import { testConnection } from '../../src/kube/testing/test-kube.ts';
import { DEVICE_GRANT_SECRET_TYPE, USER_CODE_LABEL } from './device-grant-secret.ts';
import { KubeDeviceGrantStore, type KubeDeviceGrantStoreOptions } from './kube-device-grant-store.ts';

let conn: KubeConnection;
let secrets: ObjectClient<SecretObject>;
const namespaces: string[] = [];

beforeAll(() => {
  conn = testConnection();
  secrets = objectClient<SecretObject>(conn, SECRETS);
});

afterAll(async () => {
  const client = objectClient(conn, NAMESPACES);
  await Promise.all(namespaces.map((name) => client.delete('', name)));
});

/** A store on a namespace of its own that does not exist yet: the store must create it. */
function freshStore(options: KubeDeviceGrantStoreOptions = {}): KubeDeviceGrantStore {
  const namespace = `grants-${randomBytes(4).toString('hex')}`;
  namespaces.push(namespace);
  return new KubeDeviceGrantStore(conn, { namespace, ...options });
}

describeDeviceGrantStoreContract('KubeDeviceGrantStore', () => freshStore());

const START = new Date('2030-01-01T00:00:00Z');
function grant(overrides: Partial<DeviceGrant> = {}): DeviceGrant {
  return {
    deviceCodeHash: hashDeviceCode(generateDeviceCode()),
    userCode: generateUserCode(),
    scopes: ['apps:read'],
    createdAt: START,
    expiresAt: new Date(START.getTime() + 900_000),
    intervalSeconds: 5,
    state: { kind: 'pending' },
    ...overrides,
  };
}

describe('KubeDeviceGrantStore', () => {
  it('keeps one Secret per grant: typed, named by hash, labelled by user code, no device code', async () => {
    const store = freshStore();
    const deviceCode = generateDeviceCode();
    const stored = grant({ deviceCodeHash: hashDeviceCode(deviceCode) });
    expect(await store.create(stored)).toBe(true);
    const { items } = await secrets.list(store.namespace);
    const mine = items.filter((s) => s.type === DEVICE_GRANT_SECRET_TYPE);
    expect(mine).toHaveLength(1);
    expect(mine[0]?.metadata?.name).toBe(`device-grant-${stored.deviceCodeHash}`);
    expect(mine[0]?.metadata?.labels?.[USER_CODE_LABEL]).toBe(stored.userCode);
    expect(JSON.stringify(mine[0])).not.toContain(deviceCode);
    const decoded = Buffer.from(mine[0]?.data?.grant ?? '', 'base64').toString();
    expect(decoded).not.toContain(deviceCode);
  });

  it('lets two replicas race on one revision: exactly one wins', async () => {
    const first = freshStore();
    const second = new KubeDeviceGrantStore(conn, { namespace: first.namespace });
    const created = grant();
    await first.create(created);
    const { revision } = (await second.findByUserCode(created.userCode)) ?? { revision: '' };
    const results = await Promise.all([
      first.update({ ...created, state: { kind: 'redeemed', userId: 'alice', tokenId: 'tok-0000000000000001' } }, revision),
      second.update({ ...created, state: { kind: 'redeemed', userId: 'alice', tokenId: 'tok-0000000000000002' } }, revision),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await first.update(created, '')).toBe(false); // an empty revision is never unconditional
  });

  it('never lets two grants keep one user code, even when created at the same moment', async () => {
    const store = freshStore();
    const userCode = generateUserCode();
    const racing = [grant({ userCode }), grant({ userCode }), grant({ userCode })];
    const results = await Promise.all(racing.map((g) => store.create(g)));
    expect(results.filter(Boolean).length).toBeLessThanOrEqual(1);
    const winner = racing[results.indexOf(true)];
    expect((await store.findByUserCode(userCode))?.grant).toEqual(winner);
  });

  it('treats grants past expiry plus retention as gone, and deletes them when creating others', async () => {
    let now = START;
    const store = freshStore({ retentionMs: 60_000, gcIntervalMs: 0, now: () => now });
    const [old, recent] = [grant(), grant({ createdAt: new Date(START.getTime() + 120_000), expiresAt: new Date(START.getTime() + 1_020_000) })];
    await store.create(old);
    await store.create(recent);
    now = new Date(old.expiresAt.getTime() + 59_000); // expired, still retained: a late poll hears "expired"
    expect((await store.findByDeviceCodeHash(old.deviceCodeHash))?.grant).toEqual(old);
    now = new Date(old.expiresAt.getTime() + 60_000);
    expect(await store.findByDeviceCodeHash(old.deviceCodeHash)).toBeUndefined();
    expect(await store.findByUserCode(old.userCode)).toBeUndefined();
    const reuse = grant({ userCode: old.userCode, createdAt: now, expiresAt: new Date(now.getTime() + 900_000) });
    expect(await store.create(reuse)).toBe(true); // its code is free again

    const names = async () => (await secrets.list(store.namespace)).items.map((s) => s.metadata?.name);
    await vi.waitFor(async () => expect(await names()).not.toContain(`device-grant-${old.deviceCodeHash}`));
    expect(await names()).toEqual(expect.arrayContaining([recent, reuse].map((g) => `device-grant-${g.deviceCodeHash}`)));
    expect(await store.collectGarbage()).toBe(0);
  });
});
