import { describe, expect, it } from 'vitest';
import { clientAddressKey } from './client-address.ts';

describe('clientAddressKey', () => {
  it.each([
    ['192.0.2.1', '192.0.2.1'],
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['::FFFF:192.0.2.1', '192.0.2.1'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:db8:0:0:1::', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['2001:db8:1:2::1.2.3.4', '2001:db8:1:2::/64'],
    ['not an address', 'not an address'],
    // A port a proxy appended to the address it forwards (found in review: each connection was a client of its own).
    ['192.0.2.1:5678', '192.0.2.1'],
    ['[2001:db8:1:2::7]:5678', '2001:db8:1:2::/64'],
    ['[::ffff:192.0.2.1]', '192.0.2.1'],
  ])('keys %s as %s', (address, key) => {
    expect(clientAddressKey(address)).toBe(key);
  });

  it('gives every address of one /64 the same key, and neighbouring /64s different ones', () => {
    expect(clientAddressKey('2001:db8:a:b::1')).toBe(clientAddressKey('2001:db8:a:b:ffff:1234:5678:9abc'));
    expect(clientAddressKey('2001:db8:a:b::1')).not.toBe(clientAddressKey('2001:db8:a:c::1'));
  });
});
