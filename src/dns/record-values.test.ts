import { describe, expect, it } from 'vitest';
import type { DnsRecordType } from '../apis/v1alpha1/dns-record.ts';
import { canonicalValue, canonicalValueOrRaw } from './record-values.ts';
import { cpuTimeMs } from '../testing/cpu-time.ts';

describe('canonicalValue', () => {
  it.each<[DnsRecordType, string, string]>([
    ['A', '192.0.2.1', '192.0.2.1'],
    ['A', ' 0.0.0.0 ', '0.0.0.0'],
    ['AAAA', '2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['AAAA', '2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['AAAA', '::ffff:192.0.2.1', '::ffff:c000:201'],
    ['CNAME', 'App.Runtime.Example.NET.', 'app.runtime.example.net'],
    ['CNAME', 's1._domainkey.mail.example.net', 's1._domainkey.mail.example.net'],
    ['CNAME', 'bücher.example', 'xn--bcher-kva.example'],
    ['NS', 'ns1.example.net.', 'ns1.example.net'],
    ['MX', '10   Mail.Example.net.', '10 mail.example.net'],
    ['MX', '0 .', '0 .'],
    ['SRV', '10 5 5060 sip.example.net.', '10 5 5060 sip.example.net'],
    ['SRV', '0 0 0 .', '0 0 0 .'],
    ['CAA', '0 issue "letsencrypt.org"', '0 issue "letsencrypt.org"'],
    ['CAA', '0 ISSUE letsencrypt.org', '0 issue "letsencrypt.org"'],
    ['CAA', '128 issuewild ";"', '128 issuewild ";"'],
    ['CAA', '0 issue "letsencrypt.org; validationmethods=dns-01"', '0 issue "letsencrypt.org; validationmethods=dns-01"'],
    ['CAA', '0 iodef "mailto:security@example.com"', '0 iodef "mailto:security@example.com"'],
    ['TXT', 'v=spf1 include:_spf.example.net ~all', 'v=spf1 include:_spf.example.net ~all'],
    ['TXT', '"v=spf1 -all"', 'v=spf1 -all'],
    ['TXT', '"part one " "part two"', 'part one part two'],
    ['TXT', 'say "hi"', 'say "hi"'],
    ['TXT', '"a"b', '"a"b'],
  ])('%s %j → %j', (type, raw, canonical) => {
    expect(canonicalValue(type, raw)).toEqual({ ok: true, value: canonical });
  });

  it.each<[DnsRecordType, string, string]>([
    ['A', '256.0.0.1', 'not an IPv4 address'],
    ['A', '010.0.0.1', 'not an IPv4 address'],
    ['A', '192.0.2', 'not an IPv4 address'],
    ['A', '2001:db8::1', 'not an IPv4 address'],
    ['AAAA', '192.0.2.1', 'not an IPv6 address'],
    ['AAAA', 'fe80::1%eth0', 'not an IPv6 address'],
    ['CNAME', '192.0.2.1', 'is an IP address'],
    ['CNAME', 'app', 'fully qualified host name'],
    ['CNAME', 'exa mple.com', 'not a valid host name'],
    ['CNAME', '-bad.example.com', 'not a valid host name'],
    ['CNAME', '.', 'not a valid host name'],
    ['MX', 'mail.example.net', 'not an MX value'],
    ['MX', '70000 mail.example.net', 'not an MX value'],
    ['MX', '10 192.0.2.1', 'MX mail server'],
    ['SRV', '10 5 sip.example.net', 'not an SRV value'],
    ['SRV', '10 5 99999 sip.example.net', 'not an SRV value'],
    ['CAA', 'issue letsencrypt.org', 'not a CAA value'],
    ['CAA', '0 policy "x"', 'CAA tag "policy"'],
    ['CAA', '256 issue "x.org"', 'not a CAA value'],
    ['CAA', '0 issue lets encrypt', 'must be quoted'],
    ['CAA', '0 issue "not a domain"', 'must start with the certificate authority'],
    ['CAA', '0 iodef "security@example.com"', 'mailto: or http(s)'],
    ['TXT', 'tab\there', 'printable ASCII'],
    ['TXT', 'naïve', 'printable ASCII'],
    ['TXT', 'x'.repeat(4000), 'too long'],
  ])('refuses %s %j', (type, raw, message) => {
    const check = canonicalValue(type, raw);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.message).toContain(message);
  });

  it('refuses a CAA value of many spaces in no time (the pattern it replaced took seconds for 2,000)', () => {
    const ms = cpuTimeMs(() => {
      expect(canonicalValue('CAA', `0 issue${' '.repeat(4000)}a\nb`)).toMatchObject({ ok: false });
      expect(canonicalValue('CAA', `0 issue "letsencrypt.org"${' '.repeat(4000)}`)).toEqual({ ok: true, value: '0 issue "letsencrypt.org"' });
    });
    expect(ms).toBeLessThan(100);
  });

  it('leaves what it cannot parse, unknown types and TXT text alone when reading a provider', () => {
    expect(canonicalValueOrRaw('CNAME', 'Target.Example.NET.')).toBe('target.example.net');
    expect(canonicalValueOrRaw('CNAME', 'not a host')).toBe('not a host');
    expect(canonicalValueOrRaw('SOA', 'ns. host. 1 2 3 4 5')).toBe('ns. host. 1 2 3 4 5');
    expect(canonicalValueOrRaw('TXT', '"quoted"')).toBe('"quoted"');
  });
});
