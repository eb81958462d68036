// A small authoritative DNS server for a development parent zone (parent-zone.ts) on loopback, over UDP and
// TCP on one port. `make dev` and the end-to-end tests start one for `test.` and point the delegation check at
// it; it is not meant to face the internet (no rate limiting, no DNSSEC, no zone transfers).
import { listenDns } from './dns-listener.ts';
import { decodeMessage, ednsOpt, encodeMessage, FLAGS, RCODE, udpLimitOf, type DecodedDnsMessage, type DnsMessage } from './dns-wire.ts';
import { ParentZone, type ParentZoneRecordType } from './parent-zone.ts';

export interface ParentZoneServerOptions {
  /** The zone served, for example `test`. */
  suffix: string;
  /** Port for both UDP and TCP; default a free one. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

export interface ParentZoneServer {
  readonly host: string;
  readonly port: number;
  /** `host:port`, as the delegation check's `parentServer` takes it. */
  readonly address: string;
  readonly suffix: string;
  /** The zone's own nameserver name (`ns.<suffix>`), answered with `host`. */
  readonly nameserver: string;
  /** Delegates `domain` (below the suffix) to `nameservers`: queries at or below it get a referral. */
  delegate(domain: string, nameservers: readonly string[]): void;
  undelegate(domain: string): void;
  /** Publishes records at `name`; an empty list removes them. */
  setRecord(name: string, type: ParentZoneRecordType, values: readonly string[]): void;
  /** Queries answered so far, by transport. */
  readonly queries: { readonly udp: number; readonly tcp: number };
  stop(): Promise<void>;
}

/** Starts the server; it answers as soon as this resolves. */
export async function startParentZoneServer(options: ParentZoneServerOptions): Promise<ParentZoneServer> {
  const host = options.host ?? '127.0.0.1';
  const zone = new ParentZone({ suffix: options.suffix, nameserverAddress: host });
  const queries = { udp: 0, tcp: 0 };
  const { port, stop } = await listenDns(host, options.port ?? 0, (buf, transport) => {
    const reply = respond(zone, buf, transport);
    if (reply) queries[transport]++;
    return reply;
  });

  return {
    host,
    port,
    address: host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`,
    suffix: zone.suffix,
    nameserver: zone.nameserver,
    delegate: (domain, nameservers) => zone.delegate(domain, nameservers),
    undelegate: (domain) => zone.undelegate(domain),
    setRecord: (name, type, values) => zone.setRecord(name, type, values),
    queries,
    stop,
  };
}

/** The encoded reply to one query, or `undefined` for something that deserves none (garbage, a response). */
export function respond(zone: ParentZone, buf: Buffer, transport: 'udp' | 'tcp'): Buffer | undefined {
  let query: DecodedDnsMessage;
  try {
    query = decodeMessage(buf);
  } catch {
    return undefined;
  }
  if (query.type !== 'query') return undefined;
  const edns = query.additionals?.some((a) => a.type === 'OPT') ? [ednsOpt()] : [];
  const base = { type: 'response' as const, id: query.id ?? 0, questions: query.questions ?? [] };
  const rd = query.flag_rd ? FLAGS.RD : 0;
  const question = query.questions?.[0];
  if (query.opcode !== 'QUERY') return encodeMessage({ ...base, flags: rd | RCODE.NOTIMP, additionals: edns });
  if (!question || (query.questions?.length ?? 0) !== 1) return encodeMessage({ ...base, flags: rd | RCODE.FORMERR, additionals: edns });

  const answer = zone.answer(question.name, question.type);
  const flags = rd | (answer.authoritative ? FLAGS.AA : 0) | answer.rcode;
  const full: DnsMessage = {
    ...base,
    flags,
    answers: answer.answers,
    authorities: answer.authorities,
    additionals: [...answer.additionals, ...edns],
  };
  const encoded = encodeMessage(full);
  if (transport === 'tcp' || encoded.length <= udpLimitOf(query)) return encoded;
  // Too big for the asker's UDP buffer: say so (TC) and let it come back over TCP (RFC 7766).
  return encodeMessage({ ...base, flags: flags | FLAGS.TC, additionals: edns });
}
