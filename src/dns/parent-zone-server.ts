// A small authoritative DNS server for a development parent zone (parent-zone.ts) on loopback, over UDP and
// TCP on one port. `make dev` and the end-to-end tests start one for `test.` and point the delegation check at
// it; it is not meant to face the internet (no rate limiting, no DNSSEC, no zone transfers).
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type AddressInfo, type Server, type Socket as TcpSocket } from 'node:net';
import { decodeMessage, ednsOpt, encodeMessage, FLAGS, frameForTcp, RCODE, TcpFrameReader, udpLimitOf, type DecodedDnsMessage, type DnsMessage } from './dns-wire.ts';
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
  const { udp, tcp, port } = await bindBoth(host, options.port ?? 0);
  const connections = new Set<TcpSocket>();

  udp.on('message', (buf, remote) => {
    const reply = respond(zone, buf, 'udp');
    if (!reply) return;
    queries.udp++;
    udp.send(reply, remote.port, remote.address);
  });
  tcp.on('connection', (socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    socket.on('error', () => socket.destroy());
    const reader = new TcpFrameReader();
    socket.on('data', (chunk) => {
      for (const frame of reader.push(chunk)) {
        const reply = respond(zone, frame, 'tcp');
        if (!reply) {
          socket.destroy();
          return;
        }
        queries.tcp++;
        socket.write(frameForTcp(reply));
      }
    });
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
    stop: async () => {
      for (const socket of connections) socket.destroy();
      await Promise.all([new Promise<void>((resolve) => udp.close(() => resolve())), new Promise<void>((resolve) => tcp.close(() => resolve()))]);
    },
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

/** Binds UDP and TCP to the same port; with port 0, retries until a port is free for both. */
async function bindBoth(host: string, port: number): Promise<{ udp: Socket; tcp: Server; port: number }> {
  for (let attempt = 0; ; attempt++) {
    const tcp = createServer();
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(port, host, () => resolve());
    });
    const bound = (tcp.address() as AddressInfo).port;
    const udp = createSocket(host.includes(':') ? 'udp6' : 'udp4');
    try {
      await new Promise<void>((resolve, reject) => {
        udp.once('error', reject);
        udp.bind(bound, host, () => resolve());
      });
      udp.removeAllListeners('error');
      udp.on('error', () => {}); // a send to a vanished client must not crash the process
      return { udp, tcp, port: bound };
    } catch (err) {
      try {
        udp.close();
      } catch {
        // never bound: nothing to close
      }
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
      if (port !== 0 || attempt >= 20) throw err;
    }
  }
}
