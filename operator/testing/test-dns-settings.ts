// Test helpers for DNS tests of the routes and the controllers: settings on zones in memory and a real
// parent-zone server (asked for delegations and, as the resolver, for external hostname records), and the
// zone's contents as a test compares them.
import type { RuntimeTarget } from '../../src/dns/app-records.ts';
import type { DnsProvider } from '../../src/dns/provider.ts';
import type { DnsSettings } from '../dns-settings.ts';

/** Settings on `provider` whose delegation checks and record look-ups ask `parentServer` (`host:port`). */
export function testDnsSettings(options: {
  provider: DnsProvider;
  parentServer: string;
  runtimeTarget: RuntimeTarget;
  recheckIntervalMs?: number;
  pendingRecheckMinMs?: number;
  baseDomain?: string;
}): DnsSettings {
  return {
    provider: options.provider,
    ownerId: 'cloudwright',
    delegation: { parentServer: options.parentServer, timeoutMs: 1000 },
    resolver: options.parentServer,
    timeoutMs: 1000,
    runtimeTarget: options.runtimeTarget,
    recheckIntervalMs: options.recheckIntervalMs ?? 60 * 60 * 1000,
    pendingRecheckMinMs: options.pendingRecheckMinMs ?? 60 * 1000,
    baseDomain: options.baseDomain ?? 'apps.cw.test',
    close: () => {},
  };
}

/** The zone's record sets as sorted `name TYPE ttl values`, without the zone's own NS and SOA and our ownership marks. */
export async function zoneContents(provider: DnsProvider, zoneId: string, domain: string): Promise<string[]> {
  return (await provider.listRecords(zoneId))
    .filter((r) => !r.name.split('.')[0]?.startsWith('_cw-') && !(r.name === domain && (r.type === 'NS' || r.type === 'SOA')))
    .map((r) => `${r.name} ${r.type} ${r.ttl} ${r.values.join(',')}`)
    .sort();
}
