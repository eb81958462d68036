import { describe, expect, it } from 'vitest';
import { generateDeviceCode, generateUserCode, hashDeviceCode } from './device-code.ts';
import type { DeviceGrant, DeviceGrantStore } from './ports.ts';

/** Builds an empty store, or one shared with other tests: the suite only uses fresh random codes. */
export type DeviceGrantStoreFactory = () => DeviceGrantStore | Promise<DeviceGrantStore>;

// Whole seconds: Kubernetes timestamps (metav1.Time) keep no more.
const CREATED = new Date('2030-01-02T03:04:05Z');

function newGrant(overrides: Partial<DeviceGrant> = {}): DeviceGrant {
  return {
    deviceCodeHash: hashDeviceCode(generateDeviceCode()),
    userCode: generateUserCode(),
    scopes: ['apps:read'],
    createdAt: CREATED,
    expiresAt: new Date(CREATED.getTime() + 900_000),
    intervalSeconds: 5,
    state: { kind: 'pending' },
    ...overrides,
  };
}

/**
 * The behaviour every {@link DeviceGrantStore} must show, above all compare-and-swap updates: the device
 * flow relies on them so that an approved grant yields one token however many polls race.
 */
export function describeDeviceGrantStoreContract(name: string, makeStore: DeviceGrantStoreFactory): void {
  describe(`DeviceGrantStore contract: ${name}`, () => {
    it('finds a created grant by device code hash and by user code', async () => {
      const store = await makeStore();
      const grant = newGrant();
      expect(await store.create(grant)).toBe(true);
      expect((await store.findByDeviceCodeHash(grant.deviceCodeHash))?.grant).toEqual(grant);
      expect((await store.findByUserCode(grant.userCode))?.grant).toEqual(grant);
    });

    it('answers undefined for unknown codes', async () => {
      const store = await makeStore();
      expect(await store.findByDeviceCodeHash(hashDeviceCode(generateDeviceCode()))).toBeUndefined();
      expect(await store.findByUserCode(generateUserCode())).toBeUndefined();
    });

    it('refuses a second grant with a taken device code hash or user code', async () => {
      const store = await makeStore();
      const grant = newGrant();
      await store.create(grant);
      expect(await store.create(newGrant({ deviceCodeHash: grant.deviceCodeHash }))).toBe(false);
      expect(await store.create(newGrant({ userCode: grant.userCode }))).toBe(false);
    });

    it('updates with the current revision and changes the revision', async () => {
      const store = await makeStore();
      const grant = newGrant();
      await store.create(grant);
      const before = await store.findByDeviceCodeHash(grant.deviceCodeHash);
      const next: DeviceGrant = {
        ...grant,
        intervalSeconds: 10,
        lastPolledAt: new Date(CREATED.getTime() + 5_000),
        state: { kind: 'redeemed', userId: 'alice', tokenId: 'tok-0123456789abcdef' },
      };
      expect(await store.update(next, before?.revision ?? '')).toBe(true);
      const after = await store.findByDeviceCodeHash(grant.deviceCodeHash);
      expect(after?.grant).toEqual(next);
      expect(after?.revision).not.toBe(before?.revision);
      expect((await store.findByUserCode(grant.userCode))?.grant).toEqual(next);
    });

    it("keeps the approving token's expiry with an approval", async () => {
      const store = await makeStore();
      const grant = newGrant();
      await store.create(grant);
      const { revision } = (await store.findByDeviceCodeHash(grant.deviceCodeHash)) ?? { revision: '' };
      const approved: DeviceGrant = { ...grant, state: { kind: 'approved', userId: 'alice', notAfter: new Date(CREATED.getTime() + 3_600_000) } };
      expect(await store.update(approved, revision)).toBe(true);
      expect((await store.findByUserCode(grant.userCode))?.grant).toEqual(approved);
    });

    it('refuses an update from a stale revision and keeps the winner', async () => {
      const store = await makeStore();
      const grant = newGrant();
      await store.create(grant);
      const { revision } = (await store.findByDeviceCodeHash(grant.deviceCodeHash)) ?? { revision: '' };
      const approved: DeviceGrant = { ...grant, state: { kind: 'approved', userId: 'alice' } };
      const denied: DeviceGrant = { ...grant, state: { kind: 'denied', userId: 'bob' } };
      const results = await Promise.all([store.update(approved, revision), store.update(denied, revision)]);
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results[0] ? approved : denied;
      expect((await store.findByDeviceCodeHash(grant.deviceCodeHash))?.grant).toEqual(winner);
    });

    it('refuses to update a grant that does not exist', async () => {
      const store = await makeStore();
      expect(await store.update(newGrant(), '1')).toBe(false);
    });
  });
}
