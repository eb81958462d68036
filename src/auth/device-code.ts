import { createHash } from 'node:crypto';
import { BASE62_ALPHABET, randomString } from './random-string.ts';

/**
 * Consonants only, as RFC 8628 §6.1 suggests: no vowels (no accidental words), no digits, and none of the
 * letters read alike (no I/O versus 1/0, no U/V, no Y). 20⁸ ≈ 2.6 × 10¹⁰ codes.
 */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;
const USER_CODE_SHAPE = /^[BCDFGHJKLMNPQRSTVWXZ]{8}$/;

/** A new user code in normal form: 8 letters, no dash. Display it with {@link formatUserCode}. */
export function generateUserCode(): string {
  return randomString(USER_CODE_ALPHABET, USER_CODE_LENGTH);
}

/** `BCDFGHJK` → `BCDF-GHJK`, the form shown to people. */
export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * The normal form of a code a person typed, or `undefined` if it cannot be one. Case, dashes and spaces
 * are ignored (RFC 8628 §6.1: be lenient with what people type).
 */
export function normalizeUserCode(input: string): string | undefined {
  const code = input.toUpperCase().replace(/[-\s]/g, '');
  return USER_CODE_SHAPE.test(code) ? code : undefined;
}

/** A device code: 43 base-62 characters (~256 bits); the device keeps it, we keep its hash. */
export function generateDeviceCode(): string {
  return randomString(BASE62_ALPHABET, 43);
}

/** Lowercase hex SHA-256 of a device code: what `DeviceGrant.deviceCodeHash` holds. */
export function hashDeviceCode(deviceCode: string): string {
  return createHash('sha256').update(deviceCode, 'utf8').digest('hex');
}
