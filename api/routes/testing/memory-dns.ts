// Test helper for the DNS route tests: zones in memory (`MemoryDnsProvider`, whose `failNext` injects a
// provider failure) and a real authoritative parent zone for `test.` on loopback, which the delegation check
// and the external-record verification ask, and whose delegations and records a test flips.
import { randomBytes } from 'node:crypto';
import { MemoryDnsProvider } from '../../../src/dns/memory-provider.ts';
import { startParentZoneServer, type ParentZoneServer } from '../../../src/dns/parent-zone-server.ts';
import type { DnsSettings } from '../../../operator/dns-settings.ts';
import { testDnsSettings } from '../../../operator/testing/test-dns-settings.ts';

/**
 * The runtime's base domain in the DNS route tests (pass it to `platformApp`): under `test.` and not a reserved
 * name, so the refusal of it and of the domains above it is the platform's own rule.
 */
export const BASE_DOMAIN = 'apps.cw-routes.test';
/** What app hostname CNAMEs point at in these tests (the settings' default for the base domain). */
export const RUNTIME_TARGET = `runtime.${BASE_DOMAIN}`;
/** What apex hostnames' A records hold in these tests. */
export const RUNTIME_IPV4 = '192.0.2.80';

export interface MemoryDns {
  readonly settings: DnsSettings;
  readonly provider: MemoryDnsProvider;
  readonly parent: ParentZoneServer;
  /** A fresh domain under `test.` (domains are unique across projects of the shared control plane). */
  domain(prefix?: string): string;
  stop(): Promise<void>;
}

export async function memoryDns(options: { recheckIntervalMs?: number } = {}): Promise<MemoryDns> {
  const parent = await startParentZoneServer({ suffix: 'test' });
  const provider = new MemoryDnsProvider({ ownerId: 'cloudwright' });
  const settings = testDnsSettings({
    provider,
    parentServer: parent.address,
    runtimeTarget: { hostname: RUNTIME_TARGET, ipv4: [RUNTIME_IPV4], ipv6: [] },
    baseDomain: BASE_DOMAIN,
    ...(options.recheckIntervalMs ? { recheckIntervalMs: options.recheckIntervalMs } : {}),
  });
  return {
    settings,
    provider,
    parent,
    domain: (prefix = 'shop') => `${prefix}-${randomBytes(4).toString('hex')}.test`,
    stop: () => parent.stop(),
  };
}
