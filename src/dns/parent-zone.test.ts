import { describe, expect, it } from 'vitest';
import { RCODE } from './dns-wire.ts';
import { ParentZone } from './parent-zone.ts';

function zone(): ParentZone {
  const z = new ParentZone({ suffix: 'test', nameserverAddress: '127.0.0.1' });
  z.delegate('example.test', ['NS1.Other.NET.', 'ns2.other.net']);
  z.setRecord('www.customer.test', 'CNAME', ['edge.runtime.test']);
  z.setRecord('edge.runtime.test', 'A', ['192.0.2.10']);
  z.setRecord('_acme-challenge.shop.customer.test', 'TXT', ['token-123']);
  return z;
}
const summary = (a: ReturnType<ParentZone['answer']>) => ({
  rcode: a.rcode,
  aa: a.authoritative,
  answers: a.answers.map((r) => `${r.name} ${r.type} ${JSON.stringify('data' in r ? r.data : '')}`),
  authorities: a.authorities.map((r) => `${r.name} ${r.type}`),
});

describe('ParentZone answers', () => {
  it('refers a delegated domain, and every name below it, to its nameservers (no answer, AA=0)', () => {
    for (const name of ['example.test', 'www.Example.TEST.', 'a.b.example.test']) {
      const a = zone().answer(name, 'A');
      expect(a.rcode).toBe(RCODE.NOERROR);
      expect(a.authoritative).toBe(false);
      expect(a.answers).toEqual([]);
      expect(a.authorities).toEqual([
        { type: 'NS', name: 'example.test', ttl: 60, data: 'ns1.other.net' },
        { type: 'NS', name: 'example.test', ttl: 60, data: 'ns2.other.net' },
      ]);
    }
  });

  it('answers NXDOMAIN with its SOA for an unknown name, and refuses names outside the zone', () => {
    expect(summary(zone().answer('nothing.test', 'NS'))).toEqual({ rcode: RCODE.NXDOMAIN, aa: true, answers: [], authorities: ['test SOA'] });
    expect(zone().answer('example.com', 'A').rcode).toBe(RCODE.REFUSED);
  });

  it('answers the records it was given, following CNAMEs inside the zone', () => {
    expect(summary(zone().answer('www.customer.test', 'A')).answers).toEqual(['www.customer.test CNAME "edge.runtime.test"', 'edge.runtime.test A "192.0.2.10"']);
    expect(summary(zone().answer('www.customer.test', 'CNAME')).answers).toEqual(['www.customer.test CNAME "edge.runtime.test"']);
    const txt = zone().answer('_acme-challenge.shop.customer.test', 'TXT');
    expect(txt.answers[0]).toMatchObject({ type: 'TXT', data: [Buffer.from('token-123')] });
  });

  it('answers NODATA for a name that exists with other types or only has names below it', () => {
    expect(summary(zone().answer('edge.runtime.test', 'AAAA'))).toMatchObject({ rcode: RCODE.NOERROR, aa: true, answers: [], authorities: ['test SOA'] });
    expect(summary(zone().answer('customer.test', 'A'))).toMatchObject({ rcode: RCODE.NOERROR, answers: [] });
  });

  it('answers for its own apex and nameserver, so a resolver can find it', () => {
    expect(summary(zone().answer('test', 'SOA')).answers).toEqual([expect.stringMatching(/^test SOA /)]);
    expect(summary(zone().answer('test', 'NS')).answers).toEqual(['test NS "ns.test"']);
    expect(summary(zone().answer('ns.test', 'A')).answers).toEqual(['ns.test A "127.0.0.1"']);
  });

  it('forgets a delegation and removes records on request', () => {
    const z = zone();
    z.undelegate('example.test');
    expect(z.answer('example.test', 'NS').rcode).toBe(RCODE.NXDOMAIN);
    z.setRecord('edge.runtime.test', 'A', []);
    expect(z.answer('edge.runtime.test', 'A').rcode).toBe(RCODE.NXDOMAIN);
  });

  it('refuses delegations and records it cannot serve', () => {
    const z = zone();
    expect(() => z.delegate('test', ['ns1.other.net'])).toThrow(/not below test/);
    expect(() => z.delegate('example.com', ['ns1.other.net'])).toThrow(/not below test/);
    expect(() => z.delegate('x.test', [])).toThrow(/at least one/);
    expect(() => z.setRecord('www.customer.test', 'TXT', ['x'])).toThrow(/CNAME must be the only record/);
    expect(() => z.setRecord('a.test', 'A', ['not-an-ip'])).toThrow(/IPv4/);
  });
});
