// git's pkt-line framing (gitprotocol-common): four hex digits of length (the four included), then the payload.
// `0000` is a flush, `0001` a delimiter and `0002` a response-end (protocol v2 only).

/** The largest pkt-line, length digits included (LARGE_PACKET_MAX). */
export const MAX_PKT_LENGTH = 65520;
/** The most payload one side-band packet carries: the pkt-line minus its length and the band byte. */
export const MAX_SIDEBAND_PAYLOAD = MAX_PKT_LENGTH - 5;

export const FLUSH = Buffer.from('0000');

export type Pkt = { readonly kind: 'data'; readonly payload: Buffer } | { readonly kind: 'flush' } | { readonly kind: 'delim' } | { readonly kind: 'response-end' };

/** A malformed pkt-line stream; its message is safe to show a git client. */
export class PktLineError extends Error {
  override readonly name = 'PktLineError';
}

/** One pkt-line holding `payload` (a string is UTF-8). */
export function pktLine(payload: string | Uint8Array): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload) : Buffer.from(payload);
  if (body.length + 4 > MAX_PKT_LENGTH) throw new PktLineError(`pkt-line payload of ${body.length} bytes is too long`);
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, '0')), body]);
}

/** Payload as text without its trailing newline (the convention for text lines). */
export function pktText(pkt: Pkt): string | undefined {
  if (pkt.kind !== 'data') return undefined;
  const text = pkt.payload.toString('utf8');
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

/**
 * Reads pkt-lines from a byte stream. `next()` answers the next packet, or `undefined` at the end of the
 * stream; `rest()` then hands over whatever follows the packets read (a pack, for receive-pack).
 */
export class PktReader {
  readonly #iterator: AsyncIterator<Uint8Array>;
  #buffer: Buffer = Buffer.alloc(0);
  #done = false;

  constructor(source: AsyncIterable<Uint8Array>) {
    this.#iterator = source[Symbol.asyncIterator]();
  }

  async next(): Promise<Pkt | undefined> {
    if (!(await this.#fill(4))) {
      if (this.#buffer.length === 0) return undefined;
      throw new PktLineError('the request ends inside a pkt-line length');
    }
    const digits = this.#buffer.subarray(0, 4).toString('latin1');
    if (!/^[0-9a-f]{4}$/.test(digits)) throw new PktLineError(`"${printable(digits)}" is not a pkt-line length`);
    const length = Number.parseInt(digits, 16);
    if (length < 4) {
      this.#buffer = this.#buffer.subarray(4);
      if (length === 0) return { kind: 'flush' };
      if (length === 1) return { kind: 'delim' };
      if (length === 2) return { kind: 'response-end' };
      throw new PktLineError('pkt-line length 0003 is invalid');
    }
    if (length > MAX_PKT_LENGTH) throw new PktLineError(`pkt-line length ${length} is over the maximum`);
    if (!(await this.#fill(length))) throw new PktLineError('the request ends inside a pkt-line');
    const payload = this.#buffer.subarray(4, length);
    this.#buffer = this.#buffer.subarray(length);
    return { kind: 'data', payload };
  }

  /** The bytes after the packets read so far, as a stream; the reader must not be used afterwards. */
  async *rest(): AsyncGenerator<Buffer> {
    if (this.#buffer.length > 0) yield this.#buffer;
    this.#buffer = Buffer.alloc(0);
    while (!this.#done) {
      const chunk = await this.#iterator.next();
      if (chunk.done) this.#done = true;
      else yield Buffer.from(chunk.value);
    }
  }

  async #fill(bytes: number): Promise<boolean> {
    while (this.#buffer.length < bytes) {
      if (this.#done) return false;
      const chunk = await this.#iterator.next();
      if (chunk.done) {
        this.#done = true;
        return false;
      }
      this.#buffer = this.#buffer.length === 0 ? Buffer.from(chunk.value) : Buffer.concat([this.#buffer, chunk.value]);
    }
    return true;
  }
}

function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?');
}

/** Side-band channels (gitprotocol-capabilities, side-band-64k). */
export const Band = { data: 1, progress: 2, error: 3 } as const;

/** `payload` on a side-band channel, split into as many packets as it needs. */
export function sideband(band: number, payload: Uint8Array): Buffer[] {
  const packets: Buffer[] = [];
  for (let offset = 0; offset < payload.length; offset += MAX_SIDEBAND_PAYLOAD) {
    packets.push(pktLine(Buffer.concat([Buffer.of(band), payload.subarray(offset, offset + MAX_SIDEBAND_PAYLOAD)])));
  }
  return packets;
}
