// One DNS question to one server, the way a resolver asks it: over UDP, again over TCP when the answer comes
// back truncated. Unlike `node:dns`, it answers the whole message, authority and additional sections included.
import { randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { connect, isIP } from 'node:net';
import { decodeMessage, ednsOpt, encodeMessage, FLAGS, frameForTcp, TcpFrameReader, type DecodedDnsMessage, type DnsRecordData } from './dns-wire.ts';
import { normalizeName } from './names.ts';

/** Where a DNS server listens. */
export interface DnsServerAddress {
  readonly host: string;
  readonly port: number;
}

/** Parses `host`, `host:port`, `[v6]:port` or a bare IPv6 address. */
export function parseServerAddress(address: string, defaultPort = 53): DnsServerAddress {
  const text = address.trim();
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) return { host: bracketed[1] ?? '', port: bracketed[2] ? Number(bracketed[2]) : defaultPort };
  if (isIP(text) === 6) return { host: text, port: defaultPort };
  const m = /^([^:]+)(?::(\d+))?$/.exec(text);
  if (!m || (m[2] !== undefined && (Number(m[2]) < 1 || Number(m[2]) > 65535))) {
    throw new Error(`DNS server address "${address}" is not host:port`);
  }
  return { host: m[1] ?? '', port: m[2] ? Number(m[2]) : defaultPort };
}

/** The server did not answer in time, could not be reached, or answered something that is not DNS. */
export class DnsQueryError extends Error {
  override readonly name = 'DnsQueryError';
  readonly kind: 'timeout' | 'network' | 'malformed';
  constructor(kind: 'timeout' | 'network' | 'malformed', message: string, cause?: unknown) {
    super(message);
    this.kind = kind;
    if (cause !== undefined) this.cause = cause;
  }
}

export interface QueryOptions {
  /** Per transport attempt. Default 3000 ms. */
  timeoutMs?: number;
  /** Ask the server to recurse (RD): yes for a resolver, no for an authoritative server. Default false. */
  recursionDesired?: boolean;
  /** Skip UDP. */
  tcpOnly?: boolean;
}

export interface DnsResponse {
  readonly rcode: string;
  readonly authoritative: boolean;
  readonly answers: readonly DnsRecordData[];
  readonly authorities: readonly DnsRecordData[];
  readonly additionals: readonly DnsRecordData[];
  readonly transport: 'udp' | 'tcp';
}

/** Asks `server` one question. Throws `DnsQueryError`; a negative answer (NXDOMAIN, SERVFAIL) is an answer. */
export async function queryDns(server: DnsServerAddress, name: string, type: string, options: QueryOptions = {}): Promise<DnsResponse> {
  const id = randomInt(0, 65536);
  const query = encodeMessage({
    type: 'query',
    id,
    flags: options.recursionDesired ? FLAGS.RD : 0,
    questions: [{ type: type as 'NS', name: normalizeName(name), class: 'IN' }],
    additionals: [ednsOpt()],
  });
  const timeoutMs = options.timeoutMs ?? 3000;
  const matches = (m: DecodedDnsMessage) => m.type === 'response' && m.id === id && normalizeName(m.questions?.[0]?.name ?? '') === normalizeName(name);
  if (!options.tcpOnly) {
    const reply = await viaUdp(server, query, matches, timeoutMs);
    if (!reply.flag_tc) return response(reply, 'udp');
  }
  return response(await viaTcp(server, query, matches, timeoutMs), 'tcp');
}

function response(m: DecodedDnsMessage, transport: 'udp' | 'tcp'): DnsResponse {
  return {
    rcode: m.rcode,
    authoritative: m.flag_aa,
    answers: m.answers ?? [],
    authorities: m.authorities ?? [],
    additionals: m.additionals ?? [],
    transport,
  };
}

function viaUdp(server: DnsServerAddress, query: Buffer, matches: (m: DecodedDnsMessage) => boolean, timeoutMs: number): Promise<DecodedDnsMessage> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIP(server.host) === 6 ? 'udp6' : 'udp4');
    let settled = false;
    const done = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.close();
      fn();
    };
    const where = `${server.host}:${server.port}`;
    const fail = (kind: 'timeout' | 'network', message: string, cause?: unknown) => done(() => reject(new DnsQueryError(kind, message, cause)));
    const timer = setTimeout(() => fail('timeout', `no answer from ${where} within ${timeoutMs} ms`), timeoutMs);
    socket.on('error', (err) => fail('network', `cannot reach ${where}`, err));
    socket.on('message', (buf) => {
      let message: DecodedDnsMessage;
      try {
        message = decodeMessage(buf);
      } catch {
        return; // not for us or garbage: keep waiting, as a resolver does (RFC 5452)
      }
      if (matches(message)) done(() => resolve(message));
    });
    socket.send(query, server.port, server.host);
  });
}

function viaTcp(server: DnsServerAddress, query: Buffer, matches: (m: DecodedDnsMessage) => boolean, timeoutMs: number): Promise<DecodedDnsMessage> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: server.host, port: server.port });
    const reader = new TcpFrameReader();
    let settled = false;
    const done = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      fn();
    };
    const where = `${server.host}:${server.port}`;
    const fail = (kind: DnsQueryError['kind'], message: string, cause?: unknown) => done(() => reject(new DnsQueryError(kind, message, cause)));
    const timer = setTimeout(() => fail('timeout', `no answer over TCP from ${where} within ${timeoutMs} ms`), timeoutMs);
    socket.on('connect', () => socket.write(frameForTcp(query)));
    socket.on('error', (err) => fail('network', `cannot reach ${where} over TCP`, err));
    socket.on('close', () => fail('network', `${where} closed the TCP connection without an answer`));
    socket.on('data', (chunk) => {
      for (const frame of reader.push(chunk)) {
        let message: DecodedDnsMessage;
        try {
          message = decodeMessage(frame);
        } catch (err) {
          fail('malformed', `${where} sent a malformed answer`, err);
          return;
        }
        if (matches(message)) {
          done(() => resolve(message));
          return;
        }
      }
    });
  });
}
