import { describe, expect, it } from 'vitest';
import { isAddressOrRange } from './address-range.ts';
import { INTERNAL_RANGES, TargetPolicy, TargetRefusedError } from './target-policy.ts';

describe('TargetPolicy', () => {
  const policy = new TargetPolicy();

  it('lists only valid ranges', () => {
    expect(INTERNAL_RANGES.filter((r) => !isAddressOrRange(r.range))).toEqual([]);
  });

  it.each([
    ['127.0.0.1', '127.0.0.0/8 (loopback)'],
    ['10.1.2.3', '10.0.0.0/8 (private)'],
    ['172.31.255.255', '172.16.0.0/12'],
    ['192.168.1.1', '192.168.0.0/16'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', '0.0.0.0/8'],
    ['224.0.0.1', 'multicast'],
    ['::1', '::/96'],
    ['::', '::/96'],
    ['fd00::1', 'fc00::/7'],
    ['fe80::1', 'fe80::/10'],
    ['::ffff:127.0.0.1', '127.0.0.0/8'],
    ['::ffff:a00:1', '10.0.0.0/8'],
    ['64:ff9b::a9fe:a9fe', '169.254.0.0/16'],
    ['64:ff9b::10.0.0.1', '10.0.0.0/8'],
    ['2002:c0a8:101::1', '192.168.0.0/16'],
    ['64:ff9b:1::a9fe:a9fe', 'local-use NAT64'],
    ['::ffff:0:a9fe:a9fe', '169.254.0.0/16'],
    ['::ffff:0:10.0.0.1', '10.0.0.0/8'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['fec0::1', 'site-local'],
  ])('refuses %s (%s)', (address, what) => {
    expect(policy.refusal(address)).toContain(what);
    expect(policy.refusal(address)).toContain('events.allow_private_targets');
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111', '64:ff9b::808:808', '::ffff:8.8.8.8', '::ffff:0:808:808', '172.32.0.1', '2001:4860:4860::8888'])(
    'allows the public address %s',
    (address) => {
      expect(policy.refusal(address)).toBeUndefined();
    },
  );

  it('checks every address a host resolves to', () => {
    expect(() => policy.check('hooks.example.com', ['93.184.216.34', '10.0.0.5'])).toThrow(TargetRefusedError);
    expect(() => policy.check('hooks.example.com', ['93.184.216.34', '10.0.0.5'])).toThrow('the webhook host hooks.example.com resolves to 10.0.0.5, in 10.0.0.0/8 (private)');
    expect(() => policy.check('hooks.example.com', [])).toThrow(/resolves to no address/);
    expect(() => policy.check('hooks.example.com', ['93.184.216.34'])).not.toThrow();
  });

  it('allows internal addresses when told to, and refuses configured ranges either way', () => {
    const open = new TargetPolicy({ allowPrivate: true, denied: ['10.9.0.0/16', '192.0.2.7'] });
    expect(open.refusal('127.0.0.1')).toBeUndefined();
    expect(open.refusal('10.1.0.1')).toBeUndefined();
    expect(open.refusal('10.9.3.4')).toBe('10.9.3.4, in 10.9.0.0/16 (in events.denied_target_ranges)');
    expect(open.refusal('192.0.2.7')).toContain('192.0.2.7');
    expect(new TargetPolicy({ denied: ['203.0.114.0/24'] }).refusal('203.0.114.9')).toContain('denied_target_ranges');
  });
});
