// The records an app hostname needs, and which project domain may hold them. Pure. In managed mode the
// AppHostname controller writes `managedAppRecords` as platform-owned DnsRecords (owner kind `platform_app`);
// in external mode the owner publishes `externalAppRecords` at their own DNS provider.
import type { DnsRecordSpec } from '../apis/v1alpha1/dns-record.ts';
import type { RequiredDnsRecord } from '../apis/v1alpha1/app-hostname.ts';
import { isPublicSuffix } from './domain-name.ts';
import { isInZone, normalizeName, relativeName } from './names.ts';
import { hostValue, ipv4Value, ipv6Value } from './record-values.ts';
import { TTL_DEFAULT } from './records.ts';

/** Where the runtime takes traffic: a host name to CNAME to, and addresses for names that cannot be CNAMEs. */
export interface RuntimeTarget {
  readonly hostname?: string | undefined;
  readonly ipv4?: readonly string[] | undefined;
  readonly ipv6?: readonly string[] | undefined;
}

/** A record an app hostname needs, before it is placed in a zone. */
export interface AppRecord {
  /** Fully qualified. */
  readonly name: string;
  readonly type: 'CNAME' | 'A' | 'AAAA';
  readonly values: readonly string[];
}

/** The runtime target cannot route a host name: a configuration error of the platform, said on the object. */
export class UnroutableError extends Error {
  override readonly name = 'UnroutableError';
}

/**
 * The records that route `hostname` to the runtime: a CNAME to `target.hostname`, except at a zone apex
 * (`apex: true`), where a CNAME is not allowed and A/AAAA records to the target's addresses are used. Throws
 * `UnroutableError` when the target offers neither, or is invalid.
 */
export function appRecords(hostname: string, target: RuntimeTarget, apex = false): AppRecord[] {
  const name = normalizeName(hostname);
  const cname = target.hostname === undefined ? undefined : hostValue(target.hostname);
  if (cname && !cname.ok) throw new UnroutableError(`runtime target host name: ${cname.message}`);
  if (cname?.ok && !apex) return [{ name, type: 'CNAME', values: [cname.value] }];
  const canon = (check: typeof ipv4Value, values: readonly string[] = []) =>
    values.map((v) => {
      const c = check(v);
      if (!c.ok) throw new UnroutableError(`runtime target address: ${c.message}`);
      return c.value;
    });
  const records: AppRecord[] = [];
  const a = canon(ipv4Value, target.ipv4);
  const aaaa = canon(ipv6Value, target.ipv6);
  if (a.length > 0) records.push({ name, type: 'A', values: a });
  if (aaaa.length > 0) records.push({ name, type: 'AAAA', values: aaaa });
  if (records.length === 0) {
    throw new UnroutableError(`the runtime target has no ${apex ? 'addresses' : 'host name or addresses'} to route ${name} to`);
  }
  return records;
}

/**
 * The records the owner publishes for an `external_records` hostname: a CNAME to the runtime, except for a
 * registrable domain (`example.com`, `shop.co.uk`: the apex of the owner's zone), where DNS hosts cannot
 * publish a CNAME, so A/AAAA records.
 */
export function externalAppRecords(hostname: string, target: RuntimeTarget): RequiredDnsRecord[] {
  return appRecords(hostname, target, isRegistrableDomain(normalizeName(hostname))).flatMap((r) => r.values.map((value) => ({ recordType: r.type, name: r.name, value })));
}

/** True when `name` (normalized) is a domain one registers: the name right below a public suffix. */
export function isRegistrableDomain(name: string): boolean {
  const dot = name.indexOf('.');
  return dot > 0 && isPublicSuffix(name.slice(dot + 1));
}

/**
 * The DnsRecord specs of a `managed_project_domain` hostname in the project domain `domain` (which contains
 * it), owned by the app `appId`.
 */
export function managedAppRecords(hostname: string, domain: string, appId: string, target: RuntimeTarget): Omit<DnsRecordSpec, 'domainRef'>[] {
  const name = normalizeName(hostname);
  if (!isInZone(name, domain)) throw new Error(`${name} is not inside ${domain}`);
  return appRecords(name, target, name === domain).map((r) => ({
    name: relativeName(r.name, domain),
    type: r.type,
    values: [...r.values],
    ttl: TTL_DEFAULT,
    owner: { kind: 'platform_app', resourceType: 'runtime_app', resourceId: appId },
  }));
}

/**
 * The project domain that may hold `hostname`'s records: the longest of `domains` equal to it or containing
 * it, or `undefined`. The caller then requires that domain to be managed.
 */
export function containingDomain<D extends { readonly domain: string }>(hostname: string, domains: readonly D[]): D | undefined {
  const name = normalizeName(hostname);
  let best: D | undefined;
  for (const d of domains) {
    if (isInZone(name, normalizeName(d.domain)) && d.domain.length > (best?.domain.length ?? -1)) best = d;
  }
  return best;
}
