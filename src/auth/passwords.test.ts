import { argon2Sync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkPasswordPolicy, hashPassword, isPasswordHash, PasswordPolicyError, verifyAgainstDecoy, verifyPassword } from './passwords.ts';

describe('password hashes', () => {
  it('hashes with Argon2id in the PHC format, salted, and verifies only the same password', async () => {
    const [a, b] = await Promise.all([hashPassword('correct horse battery'), hashPassword('correct horse battery')]);
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(a).not.toBe(b);
    expect(isPasswordHash(a)).toBe(true);
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterY', a)).toBe(false);
    expect(await verifyPassword('correct horse battery', b)).toBe(true);
  });

  it('treats composed and decomposed accents alike (NFC), and never matches a malformed hash', async () => {
    const hash = await hashPassword('café au lait 1234');
    expect(await verifyPassword('cafe\u0301 au lait 1234', hash)).toBe(true);
    expect(await verifyPassword('anything at all', '$argon2id$v=19$m=19456,t=2,p=1$short$x')).toBe(false);
    expect(await verifyPassword('anything at all', 'plaintext')).toBe(false);
    expect(isPasswordHash('$2b$10$abcdefghijklmnopqrstuv')).toBe(false);
  });

  it('verifies hashes made with other parameters, read from the string (so they can be raised later)', async () => {
    const salt = Buffer.from('somesaltsomesalt');
    const tag = argon2Sync('argon2id', { message: 'password1234', nonce: salt, memory: 4096, passes: 3, parallelism: 2, tagLength: 32 });
    const encoded = `$argon2id$v=19$m=4096,t=3,p=2$${salt.toString('base64').replace(/=+$/, '')}$${tag.toString('base64').replace(/=+$/, '')}`;
    expect(isPasswordHash(encoded)).toBe(true);
    expect(await verifyPassword('password1234', encoded)).toBe(true);
    expect(await verifyPassword('password1235', encoded)).toBe(false);
  });

  it('computes RFC 9106’s Argon2id test vector (node:crypto is the reference implementation’s algorithm)', () => {
    const tag = argon2Sync('argon2id', {
      message: Buffer.alloc(32, 1),
      nonce: Buffer.alloc(16, 2),
      secret: Buffer.alloc(8, 3),
      associatedData: Buffer.alloc(12, 4),
      memory: 32,
      passes: 3,
      parallelism: 4,
      tagLength: 32,
    });
    expect(tag.toString('hex')).toBe('0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659');
  });

  it('refuses passwords too short or too long, and the decoy matches nothing', async () => {
    expect(() => checkPasswordPolicy('short')).toThrow(PasswordPolicyError);
    expect(() => checkPasswordPolicy('x'.repeat(1025))).toThrow(/at most 1024 bytes/);
    expect(() => checkPasswordPolicy('twelve chars')).not.toThrow();
    expect(await verifyAgainstDecoy('correct horse battery')).toBe(false);
  });
});
