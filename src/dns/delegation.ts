// Whether a domain is delegated to its hosted zone: ask the PARENT zone's authoritative servers for the
// domain's NS records and read the delegation from the referral's authority section (what a resolver follows),
// not from the child zone (which always names itself) nor through `node:dns` (which drops that section).
import { getServers } from 'node:dns';
import { DnsQueryError, parseServerAddress, queryDns, type DnsResponse, type DnsServerAddress } from './dns-client.ts';
import type { DnsRecordData } from './dns-wire.ts';
import { nameSet, normalizeName, parentName } from './names.ts';

/** CamelCase, stable: the `Delegated` condition's reason. */
export type DelegationReason = 'Delegated' | 'NameserversMismatch' | 'NotDelegated' | 'Timeout' | 'Unreachable' | 'ServerFailure' | 'ParentNotFound' | 'NameserverRefused';

export interface DelegationResult {
  readonly delegated: boolean;
  /** The nameservers the parent zone lists for the domain: lowercase, no trailing dot, sorted. */
  readonly found: readonly string[];
  /** The hosted zone's nameservers, in the same form. */
  readonly expected: readonly string[];
  readonly reason: DelegationReason;
  /** For the domain's owner; stable for a given outcome (no timestamps, no addresses). */
  readonly message: string;
}

export interface DelegationCheckOptions {
  /**
   * `host:port` of a server authoritative for the parent zone, asked directly (development: the parent-zone
   * server for `test.`). When absent the parent zone's servers are found through `resolver`.
   */
  parentServer?: string;
  /** `host:port` of a recursive resolver; default the first of the system's (`/etc/resolv.conf`). */
  resolver?: string;
  /** Port of parent servers found through the resolver; 53 except in tests. */
  parentPort?: number;
  /** Per query. Default 3000 ms. */
  timeoutMs?: number;
  /** How many parent servers to try before giving up. Default 3. */
  maxServers?: number;
  /**
   * Which addresses of parent servers found through `resolver` may be asked: the domain is a tenant's, and so is the
   * DNS that names its parent's servers, which could point the operator's queries at internal hosts. Absent: any.
   */
  nameservers?: { refusal(address: string): string | undefined };
}

const list = (names: readonly string[]) => names.join(', ');

/**
 * The verdict on NS records `found` at the parent against the zone's `expected` nameservers: delegated when
 * the sets are equal, compared case-insensitively and ignoring trailing dots (a subset is not enough: a
 * resolver may pick any listed server).
 */
export function compareDelegation(domain: string, found: readonly string[], expected: readonly string[]): DelegationResult {
  const f = nameSet(found);
  const e = nameSet(expected);
  const equal = f.length === e.length && f.every((ns, i) => ns === e[i]);
  if (equal && f.length > 0) {
    return { delegated: true, found: f, expected: e, reason: 'Delegated', message: `${domain} is delegated to ${list(e)}.` };
  }
  if (f.length === 0) {
    return {
      delegated: false,
      found: f,
      expected: e,
      reason: 'NotDelegated',
      message: `The parent zone lists no nameservers for ${domain}; set the nameservers at your registrar to ${list(e)}.`,
    };
  }
  return {
    delegated: false,
    found: f,
    expected: e,
    reason: 'NameserversMismatch',
    message: `The parent zone lists ${list(f)}; set the nameservers at your registrar to ${list(e)}.`,
  };
}

function failure(reason: DelegationReason, message: string, expected: readonly string[]): DelegationResult {
  return { delegated: false, found: [], expected: nameSet(expected), reason, message };
}

/** The NS targets at `owner` in `records`. */
function nsAt(records: readonly DnsRecordData[], owner: string): string[] {
  return records.flatMap((r) => (r.type === 'NS' && normalizeName(r.name) === owner ? [normalizeName(r.data)] : []));
}

/** The IPv4 addresses of `owner` in `records`. */
function addressesOf(records: readonly DnsRecordData[], owner: string): string[] {
  return records.flatMap((r) => (r.type === 'A' && normalizeName(r.name) === owner ? [r.data] : []));
}

type Asked = { ok: true; response: DnsResponse } | { ok: false; reason: DelegationReason; detail: string };

async function ask(server: DnsServerAddress, name: string, type: string, timeoutMs: number, recursionDesired: boolean): Promise<Asked> {
  try {
    const response = await queryDns(server, name, type, { timeoutMs, recursionDesired });
    if (response.rcode === 'NOERROR' || response.rcode === 'NXDOMAIN') return { ok: true, response };
    return { ok: false, reason: 'ServerFailure', detail: response.rcode };
  } catch (err) {
    if (!(err instanceof DnsQueryError)) throw err;
    return { ok: false, reason: err.kind === 'timeout' ? 'Timeout' : 'Unreachable', detail: err.kind };
  }
}

/** The parent zone's servers, found through a recursive resolver: the zone (by SOA), its NS, their addresses. */
async function parentServers(domain: string, options: DelegationCheckOptions, timeoutMs: number): Promise<DnsServerAddress[] | Asked> {
  const configured = options.resolver ?? getServers()[0];
  if (!configured) return { ok: false, reason: 'ParentNotFound', detail: 'no resolver is configured' };
  const resolver = parseServerAddress(configured);
  const candidate = parentName(domain);
  const soa = await ask(resolver, candidate, 'SOA', timeoutMs, true);
  if (!soa.ok) return soa;
  const soaRecord = [...soa.response.answers, ...soa.response.authorities].find((r) => r.type === 'SOA');
  if (!soaRecord) return { ok: false, reason: 'ParentNotFound', detail: `no SOA record for ${candidate}` };
  const parent = normalizeName(soaRecord.name);
  const ns = await ask(resolver, parent, 'NS', timeoutMs, true);
  if (!ns.ok) return ns;
  const max = options.maxServers ?? 3;
  const servers: DnsServerAddress[] = [];
  const refused: string[] = [];
  for (const host of nsAt(ns.response.answers, parent).slice(0, max)) {
    let addresses = addressesOf(ns.response.additionals, host);
    if (addresses.length === 0) {
      const a = await ask(resolver, host, 'A', timeoutMs, true);
      // Following a CNAME chain the resolver already followed: any A record in the answer will do.
      addresses = a.ok ? a.response.answers.flatMap((r) => (r.type === 'A' ? [r.data] : [])) : [];
    }
    const address = addresses.find((a) => options.nameservers?.refusal(a) === undefined);
    if (addresses.length > 0 && address === undefined) refused.push(host);
    if (address) servers.push({ host: address, port: options.parentPort ?? 53 });
  }
  if (servers.length === 0 && refused.length > 0) return { ok: false, reason: 'NameserverRefused', detail: `${refused.join(', ')} of ${parent}` };
  if (servers.length === 0) return { ok: false, reason: 'ParentNotFound', detail: `no address for the nameservers of ${parent}` };
  return servers;
}

/**
 * Checks whether `domain` is delegated to `expected` (the hosted zone's nameservers). Never throws for DNS
 * trouble: a timeout, an unreachable server or a SERVFAIL is a non-delegated result with its reason, so the
 * check can simply be repeated.
 */
export async function checkDelegation(domain: string, expected: readonly string[], options: DelegationCheckOptions = {}): Promise<DelegationResult> {
  const name = normalizeName(domain);
  const timeoutMs = options.timeoutMs ?? 3000;
  const again = 'the check can be repeated later.';
  const servers = options.parentServer ? [parseServerAddress(options.parentServer)] : await parentServers(name, options, timeoutMs);
  if (!Array.isArray(servers)) {
    const detail = servers.ok ? '' : servers.detail;
    const reason = servers.ok ? 'ParentNotFound' : servers.reason;
    if (reason === 'NameserverRefused') {
      return failure(
        reason,
        `The nameservers of the parent zone of ${name} (${detail}) are at internal or reserved addresses, which the platform does not query; delegate it under a public parent zone.`,
        expected,
      );
    }
    return failure(reason, `The parent zone of ${name} could not be found through the resolver (${detail}); ${again}`, expected);
  }

  let last: Asked | undefined;
  for (const server of servers.slice(0, options.maxServers ?? 3)) {
    const asked = await ask(server, name, 'NS', timeoutMs, false);
    if (!asked.ok) {
      last = asked;
      continue;
    }
    // A referral carries the delegation in the authority section; a server authoritative for both zones
    // may answer it instead.
    const found = [...nsAt(asked.response.authorities, name), ...nsAt(asked.response.answers, name)];
    return compareDelegation(name, found, expected);
  }
  if (last && !last.ok && last.reason === 'ServerFailure') {
    return failure('ServerFailure', `The parent zone's nameservers could not answer for ${name} (${last.detail}); ${again}`, expected);
  }
  if (last && !last.ok && last.reason === 'Unreachable') {
    return failure('Unreachable', `The parent zone's nameservers could not be reached; ${again}`, expected);
  }
  return failure('Timeout', `The parent zone's nameservers did not answer within ${timeoutMs / 1000} s; ${again}`, expected);
}
