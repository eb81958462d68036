import { describe, expect, it } from 'vitest';
import { trustsPeer } from './forwarded-trust.ts';

describe('trustsPeer', () => {
  it('trusts every peer or none as told', () => {
    expect(trustsPeer(true)('203.0.113.9')).toBe(true);
    expect(trustsPeer(false)('10.0.0.1')).toBe(false);
  });

  it.each([
    ['10.1.2.3', true],
    ['::ffff:10.1.2.3', true], // an IPv4 peer of a dual-stack listener
    ['192.168.0.7', true],
    ['192.168.0.8', false],
    ['fd00::1', true],
    ['203.0.113.9', false],
    ['::ffff:203.0.113.9', false],
    [undefined, false],
  ])('trusts %s: %s, by the ingress addresses and ranges given', (address, trusted) => {
    expect(trustsPeer(['10.0.0.0/8', '192.168.0.7', 'fd00::/8'])(address)).toBe(trusted);
  });
});
