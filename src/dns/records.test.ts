import { describe, expect, it } from 'vitest';
import { checkExclusivity, InvalidRecordError, parseRecord, recordName, TTL_DEFAULT, validateRecord, type RecordInput } from './records.ts';

const domain = 'example.com';

describe('recordName', () => {
  it.each([
    ['@', '@', 'example.com'],
    ['example.com', '@', 'example.com'],
    ['Example.COM.', '@', 'example.com'],
    ['www', 'www', 'www.example.com'],
    ['WWW', 'www', 'www.example.com'],
    ['www.example.com', 'www', 'www.example.com'],
    ['www.example.com.', 'www', 'www.example.com'],
    ['_acme-challenge.app', '_acme-challenge.app', '_acme-challenge.app.example.com'],
    ['*', '*', '*.example.com'],
    ['*.preview', '*.preview', '*.preview.example.com'],
    // Relative unless it ends in the domain: this is www.other.com.example.com, not a foreign name.
    ['www.other.com', 'www.other.com', 'www.other.com.example.com'],
    // Outside ASCII: the punycode form, as DNS stores it.
    ['Bücher', 'xn--bcher-kva', 'xn--bcher-kva.example.com'],
  ])('%j → %j (%s)', (input, relative, fqdn) => {
    expect(recordName(input, domain)).toEqual({ relative, fqdn });
  });

  it.each([
    ['', 'name is required (use @ for the apex)'],
    ['www.other.com.', 'name www.other.com. is not inside example.com'],
    ['notexample.com.', 'is not inside example.com'],
    ['a.*.b', '"*" may only be the first label'],
    ['a..b', 'empty label'],
    ['-a', 'invalid label "-a"'],
    ['a b', 'invalid label "a b"'],
    [`${'x'.repeat(64)}`, 'longer than 63'],
    ['_cw-a.www', 'reserved for Cloudwright'],
    [`${'abcdefghi.'.repeat(23)}x`, 'too long: at most 236'],
  ])('refuses %j', (input, message) => {
    const got = recordName(input, domain);
    expect(got).toMatchObject({ field: 'name' });
    expect('message' in got ? got.message : '').toContain(message);
  });
});

describe('validateRecord', () => {
  it.each<[RecordInput, { name: string; fqdn: string; type: string; values: string[]; ttl: number }]>([
    [
      { name: 'www', type: 'cname', values: ['App.Runtime.example.net.'] },
      { name: 'www', fqdn: 'www.example.com', type: 'CNAME', values: ['app.runtime.example.net'], ttl: TTL_DEFAULT },
    ],
    [
      { name: '@', type: 'A', values: ['192.0.2.1', '192.0.2.2'], ttl: 60 },
      { name: '@', fqdn: 'example.com', type: 'A', values: ['192.0.2.1', '192.0.2.2'], ttl: 60 },
    ],
    [
      { name: '@', type: 'TXT', values: ['"v=spf1 -all"'], ttl: 86400 },
      { name: '@', fqdn: 'example.com', type: 'TXT', values: ['v=spf1 -all'], ttl: 86400 },
    ],
    [
      { name: '@', type: 'MX', values: ['10 mail.example.com', '20 mail2.example.com'] },
      { name: '@', fqdn: 'example.com', type: 'MX', values: ['10 mail.example.com', '20 mail2.example.com'], ttl: 300 },
    ],
    [
      { name: '@', type: 'CAA', values: ['0 issue letsencrypt.org'] },
      { name: '@', fqdn: 'example.com', type: 'CAA', values: ['0 issue "letsencrypt.org"'], ttl: 300 },
    ],
    [
      { name: 'sub', type: 'NS', values: ['ns1.other.net'] },
      { name: 'sub', fqdn: 'sub.example.com', type: 'NS', values: ['ns1.other.net'], ttl: 300 },
    ],
    [
      { name: '_sip._tcp', type: 'SRV', values: ['10 5 5060 sip.example.com'] },
      { name: '_sip._tcp', fqdn: '_sip._tcp.example.com', type: 'SRV', values: ['10 5 5060 sip.example.com'], ttl: 300 },
    ],
    [
      { name: '*.preview', type: 'AAAA', values: ['2001:DB8::1'] },
      { name: '*.preview', fqdn: '*.preview.example.com', type: 'AAAA', values: ['2001:db8::1'], ttl: 300 },
    ],
  ])('accepts %j', (input, record) => {
    expect(validateRecord(input, domain)).toEqual({ ok: true, record });
  });

  it.each<[RecordInput, string, string]>([
    [{ name: 'www', type: 'PTR', values: ['x.example.net'] }, 'type', 'type "PTR" is not supported; use one of A, AAAA, CAA, CNAME, MX, NS, SRV, TXT'],
    [{ name: 'www', type: 'A', values: ['192.0.2.1'], ttl: 59 }, 'ttl', 'ttl must be a whole number of seconds from 60 to 86400'],
    [{ name: 'www', type: 'A', values: ['192.0.2.1'], ttl: 86401 }, 'ttl', 'from 60 to 86400'],
    [{ name: 'www', type: 'A', values: ['192.0.2.1'], ttl: 300.5 }, 'ttl', 'whole number'],
    [{ name: 'www', type: 'A', values: [] }, 'values', 'at least one value is required'],
    [{ name: 'www', type: 'A', values: Array.from({ length: 101 }, (_, i) => `192.0.2.${i % 250}`) }, 'values', 'at most 100 values'],
    [{ name: 'www', type: 'CNAME', values: ['a.example.net', 'b.example.net'] }, 'values', 'a CNAME record has exactly one value'],
    [{ name: 'www', type: 'A', values: ['192.0.2.1', 'nope'] }, 'values[1]', 'values[1]: "nope" is not an IPv4 address'],
    [{ name: 'www', type: 'A', values: ['192.0.2.1', ' 192.0.2.1'] }, 'values[1]', 'values[1] repeats values[0]'],
    [{ name: '@', type: 'CNAME', values: ['app.example.net'] }, 'type', 'a CNAME record cannot be at the apex of example.com'],
    [{ name: 'example.com.', type: 'NS', values: ['ns1.other.net'] }, 'type', 'NS records at the apex of example.com belong to the hosted zone'],
    [{ name: '*', type: 'NS', values: ['ns1.other.net'] }, 'name', 'an NS record cannot have a wildcard name'],
    [{ name: 'sip', type: 'SRV', values: ['10 5 5060 sip.example.com'] }, 'name', "an SRV record's name must start with _service._proto"],
    [{ name: 'x.y.', type: 'A', values: ['192.0.2.1'] }, 'name', 'is not inside example.com'],
  ])('refuses %j: %s', (input, field, message) => {
    const check = validateRecord(input, domain);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.errors).toContainEqual({ field, message: expect.stringContaining(message) });
  });

  it("bounds a record set by the provider's 32000 characters of values, TXT counted as sent (quoted, in 255-character strings)", () => {
    // 3600 characters are 15 quoted strings of at most 255 and 14 spaces between: 3644 as sent.
    const txt = (count: number) => Array.from({ length: count }, (_, i) => `${i}`.repeat(3600));
    expect(validateRecord({ name: 'big', type: 'TXT', values: txt(8) }, domain).ok).toBe(true);
    expect(validateRecord({ name: 'big', type: 'TXT', values: txt(9) }, domain)).toEqual({
      ok: false,
      errors: [{ field: 'values', message: 'the values come to 32796 characters; a record set holds at most 32000' }],
    });
  });

  it('reports every problem at once', () => {
    const check = validateRecord({ name: 'a..b', type: 'BOGUS', values: [], ttl: 1 }, domain);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.errors.map((e) => e.field).sort()).toEqual(['name', 'ttl', 'type', 'values']);
  });

  it('parseRecord throws a 400 whose message lists the problems', () => {
    expect(parseRecord({ name: 'www', type: 'a', values: ['192.0.2.1'] }, domain).type).toBe('A');
    let err: unknown;
    try {
      parseRecord({ name: 'www', type: 'A', values: ['x'], ttl: 1 }, domain);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidRecordError);
    expect(err).toMatchObject({ status: 400 });
    expect((err as Error).message).toBe('ttl must be a whole number of seconds from 60 to 86400; values[0]: "x" is not an IPv4 address');
  });
});

describe('checkExclusivity', () => {
  const existing = [
    { fqdn: 'www.example.com', type: 'CNAME', id: 'rec-www' },
    { fqdn: 'example.com', type: 'A', id: 'rec-apex' },
    { fqdn: 'example.com', type: 'TXT', id: 'rec-spf' },
    { fqdn: 'app.example.com', type: 'CNAME', id: 'app-web-1', ownerApp: 'web' },
  ];
  it.each([
    [{ fqdn: 'www.example.com', type: 'TXT' }, 'a CNAME record must be the only record at its name, and www already has a CNAME record (rec-www)'],
    [{ fqdn: 'www.example.com', type: 'CNAME' }, 'a CNAME record (rec-www) already exists at www; change its values instead'],
    [{ fqdn: 'example.com', type: 'A' }, 'an A record (rec-apex) already exists at @; change its values instead'],
    [{ fqdn: 'app.example.com', type: 'A' }, 'a CNAME record must be the only record at its name, and app already has a CNAME record (app-web-1, written by the platform for app web)'],
  ])('refuses %j', (candidate, message) => {
    expect(checkExclusivity(candidate, existing, 'example.com')).toEqual({ field: 'name', message });
  });

  it.each([
    { fqdn: 'example.com', type: 'MX' },
    { fqdn: 'api.example.com', type: 'CNAME' },
    { fqdn: 'sub.www.example.com', type: 'A' },
  ])('accepts %j', (candidate) => {
    expect(checkExclusivity(candidate, existing, 'example.com')).toBeUndefined();
  });
});
