import { describe, expect, it } from 'vitest';
import { formatUserCode, generateDeviceCode, generateUserCode, hashDeviceCode, normalizeUserCode, USER_CODE_ALPHABET } from './device-code.ts';

describe('user codes', () => {
  it('are 8 letters of the unambiguous alphabet', () => {
    expect(USER_CODE_ALPHABET).toBe('BCDFGHJKLMNPQRSTVWXZ');
    for (let i = 0; i < 200; i += 1) expect(generateUserCode()).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
  });

  it('are shown as XXXX-XXXX', () => {
    expect(formatUserCode('BCDFGHJK')).toBe('BCDF-GHJK');
  });

  it.each([
    { input: 'BCDF-GHJK', expected: 'BCDFGHJK' },
    { input: 'bcdf-ghjk', expected: 'BCDFGHJK' },
    { input: ' bcdf ghjk ', expected: 'BCDFGHJK' },
    { input: 'BCDFGHJK', expected: 'BCDFGHJK' },
    { input: 'BC-DF-GH-JK', expected: 'BCDFGHJK' },
    { input: 'BCDF-GHJ', expected: undefined },
    { input: 'BCDF-GHJKL', expected: undefined },
    { input: 'ABCD-GHJK', expected: undefined },
    { input: 'BCD0-GHJK', expected: undefined },
    { input: 'BCDF_GHJK', expected: undefined },
    { input: '', expected: undefined },
  ])('normalise $input to $expected', ({ input, expected }) => {
    expect(normalizeUserCode(input)).toBe(expected);
  });
});

describe('device codes', () => {
  it('are 43 base-62 characters and hash to 64 hex characters', () => {
    const code = generateDeviceCode();
    expect(code).toMatch(/^[0-9A-Za-z]{43}$/);
    expect(hashDeviceCode(code)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashDeviceCode(code)).not.toContain(code);
  });
});
