import { describe, expect, it } from 'vitest';
import { trustedPeers } from './trusted-peers.ts';

describe('trustedPeers', () => {
  it('matches single addresses and CIDR ranges of both families', () => {
    const trusted = trustedPeers(['10.0.0.0/8', '192.168.1.7', 'fd00::/8', '::1']);
    expect(trusted('10.200.3.4')).toBe(true);
    expect(trusted('11.0.0.1')).toBe(false);
    expect(trusted('192.168.1.7')).toBe(true);
    expect(trusted('192.168.1.8')).toBe(false);
    expect(trusted('fd12:3456::1')).toBe(true);
    expect(trusted('fe80::1')).toBe(false);
    expect(trusted('::1')).toBe(true);
  });

  it('matches IPv4 peers reported as IPv4-mapped IPv6', () => {
    expect(trustedPeers(['10.0.0.0/8'])('::ffff:10.1.2.3')).toBe(true);
    expect(trustedPeers(['10.0.0.0/8'])('::ffff:11.1.2.3')).toBe(false);
  });

  it('trusts no one when the list is empty, or the peer is unknown', () => {
    expect(trustedPeers([])('127.0.0.1')).toBe(false);
    expect(trustedPeers(['127.0.0.1'])(undefined)).toBe(false);
  });
});
