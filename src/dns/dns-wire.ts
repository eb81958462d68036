// DNS messages on the wire (RFC 1035 §4) through dns-packet; the only module that imports it.
import { AUTHORITATIVE_ANSWER, decode, encode, RECURSION_DESIRED, TRUNCATED_RESPONSE, type Answer, type DecodedPacket, type Packet, type Question } from 'dns-packet';

export type DnsMessage = Packet;
export type DnsRecordData = Answer;
export type DnsQuestion = Question;

/** A decoded message with its response code spelled out (`NOERROR`, `NXDOMAIN`, `SERVFAIL` …). */
export type DecodedDnsMessage = DecodedPacket & { readonly rcode: string; readonly opcode: string };

/** Header flag bits (the response code goes in the low four bits of `flags`). */
export const FLAGS = { AA: AUTHORITATIVE_ANSWER, TC: TRUNCATED_RESPONSE, RD: RECURSION_DESIRED } as const;

/** Response codes we send. */
export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;

/** The UDP payload size we advertise (EDNS0, RFC 6891) and honour: the DNS flag day 2020 value. */
export const EDNS_UDP_SIZE = 1232;

export function encodeMessage(message: DnsMessage): Buffer {
  return encode(message);
}

/** Decodes a message; throws on malformed input. */
export function decodeMessage(buf: Buffer): DecodedDnsMessage {
  return decode(buf) as DecodedDnsMessage;
}

/** The EDNS0 OPT pseudo-record advertising `EDNS_UDP_SIZE`. */
export function ednsOpt(): DnsRecordData {
  return { type: 'OPT', name: '.', udpPayloadSize: EDNS_UDP_SIZE, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] };
}

/** The UDP payload size a query allows its answer: its EDNS0 size (512..4096), else 512. */
export function udpLimitOf(query: DnsMessage): number {
  const opt = query.additionals?.find((a) => a.type === 'OPT');
  const size = opt && 'udpPayloadSize' in opt ? opt.udpPayloadSize : 512;
  return Math.min(Math.max(size, 512), 4096);
}

/** A message framed for TCP: a two-byte length, then the message (RFC 1035 §4.2.2). */
export function frameForTcp(message: Buffer): Buffer {
  const length = Buffer.alloc(2);
  length.writeUInt16BE(message.length);
  return Buffer.concat([length, message]);
}

/** Collects TCP bytes and yields each complete framed message. */
export class TcpFrameReader {
  #buffer = Buffer.alloc(0);

  push(chunk: Buffer): Buffer[] {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    const out: Buffer[] = [];
    while (this.#buffer.length >= 2) {
      const length = this.#buffer.readUInt16BE(0);
      if (this.#buffer.length < 2 + length) break;
      out.push(this.#buffer.subarray(2, 2 + length));
      this.#buffer = this.#buffer.subarray(2 + length);
    }
    return out;
  }
}

/** A TXT answer of `text`, split into <character-string>s of at most 255 bytes (RFC 1035 §3.3.14). */
export function txtRecordData(name: string, ttl: number, text: string): DnsRecordData {
  const bytes = Buffer.from(text, 'utf8');
  const strings: Buffer[] = [];
  for (let i = 0; i < bytes.length || strings.length === 0; i += 255) strings.push(bytes.subarray(i, i + 255));
  return { type: 'TXT', name, ttl, data: strings };
}
