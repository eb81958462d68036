import { describe, expect, it } from 'vitest';
import { bearerSecretCheck } from './shared-secret.ts';

describe('bearerSecretCheck', () => {
  const secret = 's'.repeat(40);
  const check = bearerSecretCheck(secret);

  it('accepts exactly the shared secret as a bearer token', () => {
    expect(check(`Bearer ${secret}`)).toBe(true);
  });

  it.each([undefined, '', secret, `Bearer ${secret}x`, `Bearer ${secret.slice(1)}`, `bearer ${secret}`, `Basic ${secret}`, `Bearer  ${secret}`, `Bearer ${secret} extra`])('refuses %j', (header) => {
    expect(check(header)).toBe(false);
  });
});
