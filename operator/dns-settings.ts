// How this installation reaches DNS, read once from the environment by cw-api and cw-operator alike: the
// provider hosting project zones, the delegation check's servers, the resolver external hostnames are
// verified through, and where the runtime takes traffic (what app hostname records point at).
import type { RuntimeTarget } from '../src/dns/app-records.ts';
import type { DelegationCheckOptions } from '../src/dns/delegation.ts';
import { TargetPolicy } from '../src/target-policy.ts';
import { EnvReader } from '../src/config/env.ts';
import { MemoryDnsProvider } from '../src/dns/memory-provider.ts';
import type { DnsProvider } from '../src/dns/provider.ts';
import { Route53Provider } from '../src/dns/route53-provider.ts';
import { runtimeTargetFromEnv } from '../src/platform/domains/runtime-target.ts';

/** Delegation re-check of managed domains when none is configured: hourly. */
export const DEFAULT_RECHECK_INTERVAL_MS = 60 * 60 * 1000;
/** First re-check of a domain pending delegation when none is configured: a minute. */
export const DEFAULT_PENDING_RECHECK_MS = 60 * 1000;

export interface DnsSettings {
  /** Hosts project zones. */
  readonly provider: DnsProvider;
  /** This installation's owner id, written on zones and records it creates. */
  readonly ownerId: string;
  /** How delegation is checked (a parent server asked directly, or a recursive resolver). */
  readonly delegation: DelegationCheckOptions;
  /** `host:port` of the recursive resolver external hostname records are looked up through; default the system's. */
  readonly resolver: string | undefined;
  /** Per DNS query. */
  readonly timeoutMs: number;
  /** What app hostname records point at. */
  readonly runtimeTarget: RuntimeTarget;
  /** How often the operator re-checks the delegation of managed domains; pending ones back off up to it. */
  readonly recheckIntervalMs: number;
  /** The runtime's base domain: it and the names in or above it are never project domains. */
  readonly baseDomain: string;
  /** How soon the operator first re-checks a domain pending delegation (see `nextPendingCheckIn`). */
  readonly pendingRecheckMinMs: number;
  /** Stops the provider's connections. */
  close(): void;
}

/**
 * Reads DNS settings: CW_DNS_PROVIDER (`route53`, the default, or `memory`: zones in this process only, for a
 * laptop without moto), CW_ROUTE53_ENDPOINT (absent: AWS), CW_ROUTE53_REGION, CW_ROUTE53_ACCESS_KEY_ID and
 * CW_ROUTE53_SECRET_ACCESS_KEY (absent: the SDK's default chain), CW_DNS_OWNER_ID (default `cloudwright`),
 * CW_DNS_PARENT_SERVER (`host:port` of a server authoritative for the parent zone: make dev's `test.` server),
 * CW_DNS_RESOLVER (`host:port`; default the system's), CW_DNS_ALLOW_PRIVATE_NAMESERVERS (`true`: parent nameservers
 * found through the resolver may be at internal addresses; default refused), CW_DNS_TIMEOUT_MS (default 3000),
 * CW_DNS_RECHECK_INTERVAL_SECONDS (default 3600), CW_DNS_PENDING_RECHECK_SECONDS (default 60: the first
 * re-check of a pending domain; later ones back off to the re-check interval), CW_RUNTIME_DNS_TARGET (the host name app CNAMEs point at;
 * default `runtime.<CW_RUNTIME_BASE_DOMAIN>`), CW_RUNTIME_DNS_IPV4 and CW_RUNTIME_DNS_IPV6 (comma-separated
 * addresses for apex hostnames, which cannot be CNAMEs). Throws a one-line error for an invalid value.
 */
export function dnsSettingsFromEnv(env: NodeJS.ProcessEnv, baseDomain: string): DnsSettings {
  const ownerId = env.CW_DNS_OWNER_ID || 'cloudwright';
  const kind = env.CW_DNS_PROVIDER || 'route53';
  if (kind !== 'route53' && kind !== 'memory') throw new Error(`CW_DNS_PROVIDER must be route53 or memory, not ${JSON.stringify(kind)}`);
  const timeoutMs = positive('CW_DNS_TIMEOUT_MS', env.CW_DNS_TIMEOUT_MS, 3000);
  const recheckSeconds = positive('CW_DNS_RECHECK_INTERVAL_SECONDS', env.CW_DNS_RECHECK_INTERVAL_SECONDS, DEFAULT_RECHECK_INTERVAL_MS / 1000);
  const pendingSeconds = positive('CW_DNS_PENDING_RECHECK_SECONDS', env.CW_DNS_PENDING_RECHECK_SECONDS, DEFAULT_PENDING_RECHECK_MS / 1000);
  const accessKeyId = env.CW_ROUTE53_ACCESS_KEY_ID;
  const secretAccessKey = env.CW_ROUTE53_SECRET_ACCESS_KEY;
  const route53 =
    kind === 'route53'
      ? new Route53Provider({
          ownerId,
          ...(env.CW_ROUTE53_ENDPOINT ? { endpoint: env.CW_ROUTE53_ENDPOINT } : {}),
          region: env.CW_ROUTE53_REGION || 'us-east-1',
          ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
        })
      : undefined;
  const provider = route53 ?? new MemoryDnsProvider({ ownerId });
  return {
    provider,
    ownerId,
    delegation: {
      ...(env.CW_DNS_PARENT_SERVER ? { parentServer: env.CW_DNS_PARENT_SERVER } : {}),
      ...(env.CW_DNS_RESOLVER ? { resolver: env.CW_DNS_RESOLVER } : {}),
      timeoutMs,
      // Parent nameservers found through the resolver are named by the tenant's DNS: only public ones are asked.
      nameservers: new TargetPolicy({
        allowPrivate: new EnvReader(env).bool('CW_DNS_ALLOW_PRIVATE_NAMESERVERS', false),
        settings: { allowHint: 'set CW_DNS_ALLOW_PRIVATE_NAMESERVERS=true to query them', denied: 'the denied ranges' },
      }),
    },
    resolver: env.CW_DNS_RESOLVER || env.CW_DNS_PARENT_SERVER || undefined,
    timeoutMs,
    runtimeTarget: runtimeTargetFromEnv(env, baseDomain),
    recheckIntervalMs: recheckSeconds * 1000,
    baseDomain,
    pendingRecheckMinMs: pendingSeconds * 1000,
    close: () => route53?.destroy(),
  };
}

function positive(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not ${JSON.stringify(raw)}`);
  return value;
}
