import { describe, expect, it } from 'vitest';
import type { DeviceGrant } from '../../src/auth/ports.ts';
import { DEVICE_GRANT_SECRET_TYPE, fromGrantSecret, grantSecretName, toGrantSecret, USER_CODE_LABEL } from './device-grant-secret.ts';

const grant: DeviceGrant = {
  deviceCodeHash: 'c'.repeat(64),
  userCode: 'BCDFGHJK',
  scopes: ['apps:read'],
  createdAt: new Date('2030-01-02T03:04:05.123Z'),
  expiresAt: new Date('2030-01-02T03:19:05.123Z'),
  intervalSeconds: 5,
  state: { kind: 'pending' },
};

describe('device grant Secrets', () => {
  it('round-trips a grant, milliseconds included', () => {
    const redeemed: DeviceGrant = {
      ...grant,
      lastPolledAt: new Date('2030-01-02T03:05:00.5Z'),
      state: { kind: 'redeemed', userId: 'alice', tokenId: 'tok-0123456789abcdef' },
    };
    expect(fromGrantSecret(toGrantSecret('ns', grant))).toEqual(grant);
    expect(fromGrantSecret(toGrantSecret('ns', redeemed))).toEqual(redeemed);
  });

  it('names the Secret after the hash, labels it with the user code, and makes replacements conditional', () => {
    const secret = toGrantSecret('ns', grant, '42');
    expect(secret.metadata).toEqual({
      name: `device-grant-${grant.deviceCodeHash}`,
      namespace: 'ns',
      labels: { [USER_CODE_LABEL]: 'BCDFGHJK' },
      resourceVersion: '42',
    });
    expect(secret.type).toBe(DEVICE_GRANT_SECRET_TYPE);
  });

  it('refuses hashes that are not lowercase hex SHA-256', () => {
    expect(grantSecretName('C'.repeat(64))).toBeUndefined();
    expect(grantSecretName('c'.repeat(63))).toBeUndefined();
    expect(grantSecretName('../secrets')).toBeUndefined();
    expect(() => toGrantSecret('ns', { ...grant, deviceCodeHash: 'x' })).toThrow();
    expect(() => toGrantSecret('ns', { ...grant, userCode: 'BCDF,x=y' })).toThrow();
  });

  it('reads nothing from foreign or damaged Secrets', () => {
    const secret = toGrantSecret('ns', grant);
    expect(fromGrantSecret({ ...secret, type: 'Opaque' })).toBeUndefined();
    expect(fromGrantSecret({ ...secret, data: { grant: Buffer.from('{"nope":1}').toString('base64') } })).toBeUndefined();
    expect(fromGrantSecret({ ...secret, data: { grant: 'not base64 json' } })).toBeUndefined();
    expect(fromGrantSecret({ ...secret, data: {} })).toBeUndefined();
  });
});
