// What the internet's resolvers would answer for names in the platform's hosted zones, on loopback: in
// `make dev` and the tests the zones live in moto's Route 53 (or in memory), which serves no DNS, so the CA
// validating a DNS-01 challenge asks this server, which reads the provider's record sets. Never in production,
// where the provider's own nameservers answer.
import { isInZone } from './names.ts';
import type { DnsProvider, RecordSet } from './provider.ts';
import { listenDns } from './dns-listener.ts';
import { decodeMessage, ednsOpt, encodeMessage, RCODE, FLAGS, txtRecordData, type DecodedDnsMessage, type DnsRecordData } from './dns-wire.ts';

export interface HostedZoneServer {
  /** `host:port`, as a resolver setting (Pebble's `-dnsserver`) takes it. */
  readonly address: string;
  stop(): Promise<void>;
}

export interface HostedZoneServerOptions {
  readonly provider: DnsProvider;
  /** The zones to answer for: each domain and its provider zone id (the ProjectDomains' status). */
  readonly zones: () => ReadonlyArray<{ readonly domain: string; readonly zoneId: string }>;
  /** Names in no zone: A queries answered with this address (the runtime, on this machine); others NXDOMAIN. */
  readonly defaultIPv4?: string;
  readonly host?: string;
}

/** Starts the server on a free loopback port (UDP and TCP). */
export async function startHostedZoneServer(options: HostedZoneServerOptions): Promise<HostedZoneServer> {
  const host = options.host ?? '127.0.0.1';
  const { port, stop } = await listenDns(host, 0, (buf) => answer(options, buf));
  return { address: `${host}:${port}`, stop };
}

async function answer(options: HostedZoneServerOptions, buf: Buffer): Promise<Buffer | undefined> {
  let query: DecodedDnsMessage;
  try {
    query = decodeMessage(buf);
  } catch {
    return undefined;
  }
  const question = query.questions?.[0];
  if (query.type !== 'query' || !question) return undefined;
  const base = { type: 'response' as const, id: query.id ?? 0, questions: query.questions ?? [], additionals: query.additionals?.some((a) => a.type === 'OPT') ? [ednsOpt()] : [] };
  const rd = query.flag_rd ? FLAGS.RD : 0;
  const name = question.name.toLowerCase().replace(/\.$/, '');
  const zone = [...options.zones()].filter((z) => isInZone(name, z.domain)).sort((a, b) => b.domain.length - a.domain.length)[0];
  if (!zone) {
    const a = question.type === 'A' && options.defaultIPv4 ? [{ type: 'A', name: question.name, ttl: 60, data: options.defaultIPv4 } as DnsRecordData] : [];
    return encodeMessage({ ...base, flags: rd | (a.length > 0 ? RCODE.NOERROR : RCODE.NXDOMAIN), answers: a });
  }
  let sets: RecordSet[];
  try {
    sets = await options.provider.listRecords(zone.zoneId);
  } catch {
    return encodeMessage({ ...base, flags: rd | RCODE.SERVFAIL });
  }
  const atName = sets.filter((s) => s.name === name);
  const exact = atName.filter((s) => s.type === question.type);
  const answers = exact.flatMap((s) => s.values.map((value) => record(question.name, s.type, s.ttl, value)));
  // An address asked of a CNAME (an app host name): the alias, then the target's address as a resolver would chase it.
  const alias = exact.length === 0 && (question.type === 'A' || question.type === 'AAAA') ? atName.find((s) => s.type === 'CNAME') : undefined;
  if (alias?.values[0]) {
    answers.push(record(question.name, 'CNAME', alias.ttl, alias.values[0]));
    const target = alias.values[0].replace(/\.$/, '');
    const targetSets = sets.filter((s) => s.name === target && s.type === question.type);
    if (targetSets.length > 0) answers.push(...targetSets.flatMap((s) => s.values.map((value) => record(target, s.type, s.ttl, value))));
    else if (question.type === 'A' && options.defaultIPv4) answers.push(record(target, 'A', 60, options.defaultIPv4));
  }
  return encodeMessage({ ...base, flags: rd | FLAGS.AA | (atName.length > 0 ? RCODE.NOERROR : RCODE.NXDOMAIN), answers });
}

function record(name: string, type: string, ttl: number, value: string): DnsRecordData {
  if (type === 'TXT') return txtRecordData(name, ttl, value);
  return { type, name, ttl, data: value } as DnsRecordData;
}
