import { describe, expect, it } from 'vitest';
import { dnsEnv } from './dns-env.ts';
import { EnvReader } from './env.ts';
import { configFailure } from './testing/config-failure.ts';

describe('dnsEnv', () => {
  it('answers the DNS variables that are set, frozen, and nothing else', () => {
    const env = dnsEnv(
      new EnvReader({
        CW_DNS_PROVIDER: 'route53',
        CW_ROUTE53_ENDPOINT: 'http://127.0.0.1:5000',
        CW_ROUTE53_ACCESS_KEY_ID: 'id',
        CW_ROUTE53_SECRET_ACCESS_KEY: 'secret',
        CW_DNS_PARENT_SERVER: '127.0.0.1:5353',
        CW_DNS_RESOLVER: '[::1]:53',
        CW_DNS_TIMEOUT_MS: '300',
        CW_DNS_RECHECK_INTERVAL_SECONDS: '0.5',
        CW_RUNTIME_DNS_TARGET: 'runtime.example.com',
        CW_RUNTIME_DNS_IPV4: '192.0.2.1, 192.0.2.2',
        CW_RUNTIME_DNS_IPV6: '2001:db8::1',
        CW_DNS_OWNER_ID: '',
        CW_API_PORT: '8080',
      }),
    );
    expect(env).toEqual({
      CW_DNS_PROVIDER: 'route53',
      CW_ROUTE53_ENDPOINT: 'http://127.0.0.1:5000',
      CW_ROUTE53_ACCESS_KEY_ID: 'id',
      CW_ROUTE53_SECRET_ACCESS_KEY: 'secret',
      CW_DNS_PARENT_SERVER: '127.0.0.1:5353',
      CW_DNS_RESOLVER: '[::1]:53',
      CW_DNS_TIMEOUT_MS: '300',
      CW_DNS_RECHECK_INTERVAL_SECONDS: '0.5',
      CW_RUNTIME_DNS_TARGET: 'runtime.example.com',
      CW_RUNTIME_DNS_IPV4: '192.0.2.1, 192.0.2.2',
      CW_RUNTIME_DNS_IPV6: '2001:db8::1',
    });
    expect(Object.isFrozen(env)).toBe(true);
  });

  it.each([
    [{ CW_DNS_PROVIDER: 'cloudflare' }, 'CW_DNS_PROVIDER must be one of route53, memory, got "cloudflare"'],
    [{ CW_ROUTE53_ENDPOINT: '127.0.0.1:5000' }, 'CW_ROUTE53_ENDPOINT must be an http:// or https:// URL, got "127.0.0.1:5000"'],
    [{ CW_ROUTE53_SECRET_ACCESS_KEY: 'hunter2' }, 'CW_ROUTE53_ACCESS_KEY_ID and CW_ROUTE53_SECRET_ACCESS_KEY go together (or neither: the default AWS credential chain)'],
    [{ CW_DNS_PARENT_SERVER: '127.0.0.1:99999' }, 'CW_DNS_PARENT_SERVER must be host:port of a DNS server (such as 127.0.0.1:5353), got "127.0.0.1:99999"'],
    [{ CW_DNS_RESOLVER: 'a:b:c' }, 'CW_DNS_RESOLVER must be host:port of a DNS server (such as 127.0.0.1:53), got "a:b:c"'],
    [{ CW_DNS_TIMEOUT_MS: '3s' }, 'CW_DNS_TIMEOUT_MS must be a number greater than 0, got "3s"'],
    [{ CW_DNS_RECHECK_INTERVAL_SECONDS: '-1' }, 'CW_DNS_RECHECK_INTERVAL_SECONDS must be a number greater than 0, got "-1"'],
    [{ CW_RUNTIME_DNS_TARGET: 'runtime' }, 'CW_RUNTIME_DNS_TARGET must be a host name, got "runtime"'],
    [{ CW_RUNTIME_DNS_IPV4: '192.0.2.1,2001:db8::1' }, 'CW_RUNTIME_DNS_IPV4 must be a comma-separated list of IPv4 addresses, got "192.0.2.1,2001:db8::1"'],
    [{ CW_RUNTIME_DNS_IPV6: '192.0.2.1' }, 'CW_RUNTIME_DNS_IPV6 must be a comma-separated list of IPv6 addresses, got "192.0.2.1"'],
  ])('refuses %j in one line naming the variable', (env, message) => {
    expect(configFailure(() => dnsEnv(new EnvReader(env)))).toBe(message);
  });
});
