import { BlockList } from 'node:net';
import { describe, expect, it } from 'vitest';
import { capnpStringList } from '../capnp-text.ts';
import { internetService, renderDispatcherConfig, TRANSLATED_PRIVATE_DENY, type DispatcherConfigInput } from './config.ts';

const input: DispatcherConfigInput = {
  assets: [],
  table: { hosts: {}, apps: {}, retryAfter: '1' },
  entrySocket: 'unix:/run/e.sock',
  controlSocket: 'unix:/run/c.sock',
  runtimeService: 'unix:/run/r.sock',
  affinityKey: '00'.repeat(32),
};

/** The deny list every internet service has, as the config writes it. */
const TRANSLATED = capnpStringList(TRANSLATED_PRIVATE_DENY).slice(1, -1);

describe("apps' outbound network", () => {
  it("is workerd's default when nothing else is allowed: public addresses, browsers' CAs, less the IPv6 forms of private IPv4 addresses", () => {
    expect(internetService()).toBe(`    (name = "internet", network = (allow = ["public"], deny = [${TRANSLATED}], tlsOptions = (trustBrowserCas = true)))`);
  });

  it('denies the NAT64, 6to4, IPv4-compatible and IPv4-translated forms of private IPv4 addresses, and not NAT64 to public ones', () => {
    const denied = new BlockList();
    for (const cidr of TRANSLATED_PRIVATE_DENY) {
      const [address = '', bits = ''] = cidr.split('/');
      denied.addSubnet(address, Number(bits), 'ipv6');
    }
    // workerd's `public` filter let each of these through (review-183 F4).
    for (const address of [
      '64:ff9b::7f00:1', // 127.0.0.1
      '64:ff9b::a00:5', // 10.0.0.5
      '64:ff9b::ac1f:ffff', // 172.31.255.255
      '64:ff9b::c0a8:101', // 192.168.1.1
      '64:ff9b::6440:1', // 100.64.0.1
      '64:ff9b::a9fe:a9fe', // 169.254.169.254
      '64:ff9b::1', // 0.0.0.1
      '64:ff9b:1::7f00:1',
      '64:ff9b:1:a00:0:500::',
      '2002:7f00:1::1',
      '2002:a9fe:a9fe::1',
      '::7f00:1',
      '::a9fe:a9fe',
      '::ffff:0:7f00:1',
    ]) {
      expect(denied.check(address, 'ipv6'), address).toBe(true);
    }
    // NAT64 to a public IPv4 address is how an IPv6-only cluster with DNS64 reaches IPv4-only hosts; public IPv6 and
    // the IPv4-mapped form (which workerd judges by its IPv4 address) are workerd's to judge.
    for (const address of ['64:ff9b::808:808', '64:ff9b::c633:6407', '64:ff9b::ac20:1', '64:ff9b::6480:1', '2606:4700::1111', '::ffff:808:808']) {
      expect(denied.check(address, 'ipv6'), address).toBe(false);
    }
  });

  it('adds exactly the addresses given to the public ones, and denies those given besides', () => {
    expect(internetService(['127.0.0.2/32', 'fd00::5/128'])).toBe(
      `    (name = "internet", network = (allow = ["public", "127.0.0.2/32", "fd00::5/128"], deny = [${TRANSLATED}], tlsOptions = (trustBrowserCas = true)))`,
    );
    // Denied wins over allowed in workerd's filter (tried: an allowed address also denied is refused).
    expect(internetService(['127.0.0.2/32'], ['64:ff9b:2::/48'])).toBe(
      `    (name = "internet", network = (allow = ["public", "127.0.0.2/32"], deny = [${TRANSLATED}, "64:ff9b:2::/48"], tlsOptions = (trustBrowserCas = true)))`,
    );
    // A bare address is one workerd refuses (and then serves nothing: found in review): it is given its one-address prefix.
    expect(internetService([], ['198.51.100.7', '2001:db8::7'])).toBe(
      `    (name = "internet", network = (allow = ["public"], deny = [${TRANSLATED}, "198.51.100.7/32", "2001:db8::7/128"], tlsOptions = (trustBrowserCas = true)))`,
    );
  });

  it('is the one internet service of the generated config, which no worker overrides with a globalOutbound of its own', () => {
    const { text } = renderDispatcherConfig({ ...input, outboundAllow: ['10.96.0.20/32'] });
    expect(text.match(/name = "internet"/g)).toHaveLength(1);
    expect(text).toContain('allow = ["public", "10.96.0.20/32"]');
    expect(text).not.toContain('globalOutbound');
    expect(renderDispatcherConfig(input).text).toContain('allow = ["public"]');
  });
});
