// Password hashing for people's local accounts: Argon2id (RFC 9106, memory-hard) from node:crypto, with
// OWASP's minimum parameters, stored in the PHC string format so parameters can be raised later and old
// hashes still verify.
import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const argon2Async = promisify(argon2);

/** OWASP Password Storage Cheat Sheet: Argon2id, 19 MiB, 2 passes, 1 lane (about 30 ms here). */
export const ARGON2_PARAMETERS = { memory: 19_456, passes: 2, parallelism: 1 } as const;
const TAG_LENGTH = 32;
const SALT_LENGTH = 16;

/** NIST SP 800-63B: at least 8 characters, long passphrases allowed; bounded so hashing stays cheap to refuse. */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_BYTES = 1024;

export class PasswordPolicyError extends Error {}

export function checkPasswordPolicy(password: string): void {
  // Characters as people count them (code points), not UTF-16 units.
  if (Array.from(password).length < PASSWORD_MIN_LENGTH) throw new PasswordPolicyError(`A password needs at least ${PASSWORD_MIN_LENGTH} characters.`);
  if (Buffer.byteLength(password) > PASSWORD_MAX_BYTES) throw new PasswordPolicyError(`A password may be at most ${PASSWORD_MAX_BYTES} bytes.`);
}

/** `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<tag>` (unpadded base64, as the reference implementation writes it). */
export async function hashPassword(password: string): Promise<string> {
  checkPasswordPolicy(password);
  const salt = randomBytes(SALT_LENGTH);
  const { memory, passes, parallelism } = ARGON2_PARAMETERS;
  const tag = await argon2Async('argon2id', { message: password.normalize('NFC'), nonce: salt, memory, passes, parallelism, tagLength: TAG_LENGTH });
  return `$argon2id$v=19$m=${memory},t=${passes},p=${parallelism}$${b64(salt)}$${b64(tag)}`;
}

const PHC = /^\$argon2id\$v=19\$m=(\d{1,7}),t=(\d{1,3}),p=(\d{1,3})\$([A-Za-z0-9+/]{11,86})\$([A-Za-z0-9+/]{22,86})$/;

export function isPasswordHash(value: string): boolean {
  return PHC.test(value);
}

/** Whether `password` matches `encoded`; the tags are compared in constant time. A malformed hash never matches. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const match = PHC.exec(encoded);
  if (!match || Buffer.byteLength(password) > PASSWORD_MAX_BYTES) return false;
  const [, m, t, p, salt, expected] = match as unknown as [string, string, string, string, string, string];
  const tag = Buffer.from(expected, 'base64');
  const actual = await argon2Async('argon2id', {
    message: password.normalize('NFC'),
    nonce: Buffer.from(salt, 'base64'),
    memory: Number(m),
    passes: Number(t),
    parallelism: Number(p),
    tagLength: tag.length,
  });
  return actual.length === tag.length && timingSafeEqual(actual, tag);
}

/**
 * A hash of a password nobody has, verified against when the account does not exist, so a sign-in for an
 * unknown user takes as long as one with a wrong password (no user enumeration by timing).
 */
let decoy: Promise<string> | undefined;
export async function verifyAgainstDecoy(password: string): Promise<false> {
  decoy ??= hashPassword(randomBytes(24).toString('base64'));
  await verifyPassword(password, await decoy);
  return false;
}

function b64(bytes: Buffer): string {
  return bytes.toString('base64').replace(/=+$/, '');
}
