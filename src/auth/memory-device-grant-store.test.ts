import { describe, expect, it } from 'vitest';
import { describeDeviceGrantStoreContract } from './device-grant-store-contract.ts';
import { MemoryDeviceGrantStore } from './memory-device-grant-store.ts';
import type { DeviceGrant } from './ports.ts';

describeDeviceGrantStoreContract('MemoryDeviceGrantStore', () => new MemoryDeviceGrantStore());

describe('MemoryDeviceGrantStore retention', () => {
  const grant = (hash: string, userCode: string, createdAt: Date): DeviceGrant => ({
    deviceCodeHash: hash,
    userCode,
    scopes: ['apps:read'],
    createdAt,
    expiresAt: new Date(createdAt.getTime() + 900_000),
    intervalSeconds: 5,
    state: { kind: 'pending' },
  });
  const start = new Date('2030-01-01T00:00:00Z');
  const after = (ms: number): Date => new Date(start.getTime() + ms);

  it.each([
    { name: 'keeps an expired grant for an hour', createdLater: 900_000 + 3_600_000 - 1, kept: true },
    { name: 'drops it from then on', createdLater: 900_000 + 3_600_000, kept: false },
  ])('$name', async ({ createdLater, kept }) => {
    const store = new MemoryDeviceGrantStore();
    await store.create(grant('a'.repeat(64), 'BBBBBBBB', start));
    await store.create(grant('b'.repeat(64), 'CCCCCCCC', after(createdLater)));
    expect((await store.findByUserCode('BBBBBBBB')) !== undefined).toBe(kept);
  });
});
