import { describe, expect, it } from 'vitest';
import { appRecords, containingDomain, externalAppRecords, managedAppRecords } from './app-records.ts';

const target = { hostname: 'Edge.Runtime.Example.NET.', ipv4: ['192.0.2.10'], ipv6: ['2001:DB8::10'] };

describe('app hostname records', () => {
  it('routes a subdomain with a CNAME and an apex with A and AAAA records', () => {
    expect(appRecords('Shop.Example.com', target)).toEqual([{ name: 'shop.example.com', type: 'CNAME', values: ['edge.runtime.example.net'] }]);
    expect(appRecords('example.com', target, true)).toEqual([
      { name: 'example.com', type: 'A', values: ['192.0.2.10'] },
      { name: 'example.com', type: 'AAAA', values: ['2001:db8::10'] },
    ]);
    expect(appRecords('shop.example.com', { ipv4: ['192.0.2.10'] })).toEqual([{ name: 'shop.example.com', type: 'A', values: ['192.0.2.10'] }]);
    expect(() => appRecords('example.com', { hostname: 'edge.example.net' }, true)).toThrow(/no addresses/);
  });

  it('lists the records an owner publishes for an external hostname', () => {
    expect(externalAppRecords('shop.customer.test', target)).toEqual([{ recordType: 'CNAME', name: 'shop.customer.test', value: 'edge.runtime.example.net' }]);
  });

  it('lists A and AAAA records, not a CNAME DNS hosts cannot publish, for an external registrable domain', () => {
    for (const apex of ['Customer.com.', 'shop.co.uk']) {
      expect(externalAppRecords(apex, target).map((r) => r.recordType)).toEqual(['A', 'AAAA']);
    }
    expect(() => externalAppRecords('customer.com', { hostname: 'edge.example.net' })).toThrow('no addresses');
  });

  it('writes platform-owned DnsRecord specs for a managed hostname', () => {
    expect(managedAppRecords('www.example.com', 'example.com', 'web', target)).toEqual([
      {
        name: 'www',
        type: 'CNAME',
        values: ['edge.runtime.example.net'],
        ttl: 300,
        owner: { kind: 'platform_app', resourceType: 'runtime_app', resourceId: 'web' },
      },
    ]);
    expect(managedAppRecords('example.com', 'example.com', 'web', target).map((r) => [r.name, r.type])).toEqual([
      ['@', 'A'],
      ['@', 'AAAA'],
    ]);
    expect(() => managedAppRecords('www.example.org', 'example.com', 'web', target)).toThrow(/not inside/);
  });

  it('finds the most specific project domain holding a hostname', () => {
    const domains = [{ domain: 'example.com' }, { domain: 'eu.example.com' }, { domain: 'other.com' }];
    expect(containingDomain('shop.eu.example.com', domains)).toEqual({ domain: 'eu.example.com' });
    expect(containingDomain('EXAMPLE.com.', domains)).toEqual({ domain: 'example.com' });
    expect(containingDomain('notexample.com', domains)).toBeUndefined();
  });
});
