import { describe, expect, it } from 'vitest';
import { MemoryDnsProvider } from '../src/dns/memory-provider.ts';
import { Route53Provider } from '../src/dns/route53-provider.ts';
import { DEFAULT_RECHECK_INTERVAL_MS, dnsSettingsFromEnv } from './dns-settings.ts';

describe('dnsSettingsFromEnv', () => {
  it('defaults: Route 53, the system resolver, hourly re-checks, CNAMEs to runtime.<base domain>', () => {
    const s = dnsSettingsFromEnv({}, 'apps.example.net');
    expect(s.provider).toBeInstanceOf(Route53Provider);
    expect(s).toMatchObject({ ownerId: 'cloudwright', resolver: undefined, timeoutMs: 3000, recheckIntervalMs: DEFAULT_RECHECK_INTERVAL_MS });
    expect(s.runtimeTarget).toEqual({ hostname: 'runtime.apps.example.net', ipv4: [], ipv6: [] });
    s.close();
  });

  it('reads every setting', () => {
    const s = dnsSettingsFromEnv(
      {
        CW_DNS_PROVIDER: 'memory',
        CW_DNS_OWNER_ID: 'prod-eu',
        CW_DNS_PARENT_SERVER: '127.0.0.1:5300',
        CW_DNS_TIMEOUT_MS: '500',
        CW_DNS_RECHECK_INTERVAL_SECONDS: '30',
        CW_RUNTIME_DNS_TARGET: 'edge.example.net',
        CW_RUNTIME_DNS_IPV4: '192.0.2.1, 192.0.2.2',
      },
      'apps.example.net',
    );
    expect(s.provider).toBeInstanceOf(MemoryDnsProvider);
    expect(s).toMatchObject({ ownerId: 'prod-eu', resolver: '127.0.0.1:5300', timeoutMs: 500, recheckIntervalMs: 30_000 });
    expect(s.delegation).toMatchObject({ parentServer: '127.0.0.1:5300', timeoutMs: 500 });
    // Parent nameservers found through a resolver are asked only at public addresses, unless allowed.
    expect(s.delegation.nameservers?.refusal('10.0.0.53')).toMatch(/\(private\); set CW_DNS_ALLOW_PRIVATE_NAMESERVERS=true/);
    expect(s.delegation.nameservers?.refusal('192.0.1.53')).toBeUndefined();
    expect(dnsSettingsFromEnv({ CW_DNS_PROVIDER: 'memory', CW_DNS_ALLOW_PRIVATE_NAMESERVERS: 'true' }, 'a.b').delegation.nameservers?.refusal('10.0.0.53')).toBeUndefined();
    expect(s.runtimeTarget).toEqual({ hostname: 'edge.example.net', ipv4: ['192.0.2.1', '192.0.2.2'], ipv6: [] });
  });

  it('refuses invalid values in one line', () => {
    expect(() => dnsSettingsFromEnv({ CW_DNS_PROVIDER: 'bind' }, 'a.b')).toThrow('CW_DNS_PROVIDER must be route53 or memory');
    expect(() => dnsSettingsFromEnv({ CW_DNS_RECHECK_INTERVAL_SECONDS: '0' }, 'a.b')).toThrow('CW_DNS_RECHECK_INTERVAL_SECONDS must be a positive number');
    expect(() => dnsSettingsFromEnv({ CW_DNS_OWNER_ID: 'Bad Owner', CW_DNS_PROVIDER: 'memory' }, 'a.b')).toThrow('DNS owner id');
  });
});
