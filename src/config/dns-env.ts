import { isIPv4, isIPv6 } from 'node:net';
import { parseServerAddress } from '../dns/dns-client.ts';
import { isHostname } from './checks.ts';
import { ConfigError, type EnvReader } from './env.ts';

/** The variables `dnsSettingsFromEnv` (operator/dns-settings.ts, docs/dns.md) reads. */
export const DNS_VARIABLES = [
  'CW_DNS_PROVIDER',
  'CW_DNS_OWNER_ID',
  'CW_ROUTE53_ENDPOINT',
  'CW_ROUTE53_REGION',
  'CW_ROUTE53_ACCESS_KEY_ID',
  'CW_ROUTE53_SECRET_ACCESS_KEY',
  'CW_DNS_PARENT_SERVER',
  'CW_DNS_RESOLVER',
  'CW_DNS_TIMEOUT_MS',
  'CW_DNS_RECHECK_INTERVAL_SECONDS',
  'CW_DNS_PENDING_RECHECK_SECONDS',
  'CW_DNS_ALLOW_PRIVATE_NAMESERVERS',
  'CW_RUNTIME_DNS_TARGET',
  'CW_RUNTIME_DNS_IPV4',
  'CW_RUNTIME_DNS_IPV6',
] as const;

export type DnsEnv = Readonly<Partial<Record<(typeof DNS_VARIABLES)[number], string>>>;

function isServerAddress(text: string): boolean {
  try {
    parseServerAddress(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks the DNS variables cw-operator reads and answers them as a frozen snapshot, the
 * environment `dnsSettingsFromEnv` builds the provider from (once it is called, nothing is left for it to
 * refuse). Defaults are that function's.
 *
 * @throws ConfigError naming the variable.
 */
export function dnsEnv(read: EnvReader): DnsEnv {
  read.oneOf('CW_DNS_PROVIDER', ['route53', 'memory'], 'route53');
  read.url('CW_ROUTE53_ENDPOINT');
  if (!read.optional('CW_ROUTE53_ACCESS_KEY_ID') !== !read.optional('CW_ROUTE53_SECRET_ACCESS_KEY')) {
    throw new ConfigError('CW_ROUTE53_ACCESS_KEY_ID and CW_ROUTE53_SECRET_ACCESS_KEY go together (or neither: the default AWS credential chain)');
  }
  read.matching('CW_DNS_PARENT_SERVER', undefined, isServerAddress, 'host:port of a DNS server (such as 127.0.0.1:5353)');
  read.matching('CW_DNS_RESOLVER', undefined, isServerAddress, 'host:port of a DNS server (such as 127.0.0.1:53)');
  read.positiveNumber('CW_DNS_TIMEOUT_MS', 3000);
  read.positiveNumber('CW_DNS_RECHECK_INTERVAL_SECONDS', 3600);
  read.positiveNumber('CW_DNS_PENDING_RECHECK_SECONDS', 60);
  read.bool('CW_DNS_ALLOW_PRIVATE_NAMESERVERS', false);
  checkRuntimeTarget(read);
  const snapshot: Partial<Record<(typeof DNS_VARIABLES)[number], string>> = {};
  for (const name of DNS_VARIABLES) {
    const value = read.optional(name);
    if (value !== undefined) snapshot[name] = value;
  }
  return Object.freeze(snapshot);
}

/** The runtime target's variables: where app hostname records point (all cw-api reads of the DNS settings). */
const RUNTIME_TARGET_VARIABLES = ['CW_RUNTIME_DNS_TARGET', 'CW_RUNTIME_DNS_IPV4', 'CW_RUNTIME_DNS_IPV6'] as const;

export type RuntimeTargetEnv = Readonly<Partial<Record<(typeof RUNTIME_TARGET_VARIABLES)[number], string>>>;

function checkRuntimeTarget(read: EnvReader): void {
  read.matching('CW_RUNTIME_DNS_TARGET', undefined, isHostname, 'a host name');
  read.list('CW_RUNTIME_DNS_IPV4', { valid: (text) => isIPv4(text), expects: 'a comma-separated list of IPv4 addresses' });
  read.list('CW_RUNTIME_DNS_IPV6', { valid: (text) => isIPv6(text), expects: 'a comma-separated list of IPv6 addresses' });
}

/**
 * Checks the runtime target's variables and answers them as a frozen snapshot, for `runtimeTargetFromEnv`.
 *
 * @throws ConfigError naming the variable.
 */
export function runtimeTargetEnv(read: EnvReader): RuntimeTargetEnv {
  checkRuntimeTarget(read);
  const snapshot: Partial<Record<(typeof RUNTIME_TARGET_VARIABLES)[number], string>> = {};
  for (const name of RUNTIME_TARGET_VARIABLES) {
    const value = read.optional(name);
    if (value !== undefined) snapshot[name] = value;
  }
  return Object.freeze(snapshot);
}
