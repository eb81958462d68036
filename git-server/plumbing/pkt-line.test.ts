import { describe, expect, it } from 'vitest';
import { Band, FLUSH, MAX_SIDEBAND_PAYLOAD, PktLineError, PktReader, pktLine, pktText, sideband } from './pkt-line.ts';

async function* chunks(...parts: (string | Buffer)[]): AsyncGenerator<Buffer> {
  for (const part of parts) yield Buffer.from(part);
}

async function readAll(reader: PktReader) {
  const out = [];
  for (let pkt = await reader.next(); pkt; pkt = await reader.next()) out.push(pkt.kind === 'data' ? pktText(pkt) : pkt.kind);
  return out;
}

describe('pkt-line', () => {
  it('frames a payload with its length, the four digits included', () => {
    expect(pktLine('hello\n').toString()).toBe('000ahello\n');
    expect(pktLine('').toString()).toBe('0004');
  });

  it('reads data, flush, delimiter and response-end across arbitrary chunk boundaries', async () => {
    const stream = Buffer.concat([pktLine('a\n'), FLUSH, Buffer.from('0001'), pktLine('bcd'), Buffer.from('0002')]).toString();
    const split = stream.split(''); // one byte per chunk
    expect(await readAll(new PktReader(chunks(...split)))).toEqual(['a', 'flush', 'delim', 'bcd', 'response-end']);
  });

  it('hands over the bytes after the packets read', async () => {
    const reader = new PktReader(chunks(Buffer.concat([pktLine('cmd'), FLUSH, Buffer.from('PACK')]), 'rest'));
    expect(pktText((await reader.next())!)).toBe('cmd');
    expect((await reader.next())?.kind).toBe('flush');
    const rest: Buffer[] = [];
    for await (const chunk of reader.rest()) rest.push(chunk);
    expect(Buffer.concat(rest).toString()).toBe('PACKrest');
  });

  it('rejects a bad length, a truncated packet and a too-long payload', async () => {
    await expect(new PktReader(chunks('zzzz')).next()).rejects.toThrow(PktLineError);
    await expect(new PktReader(chunks('0003')).next()).rejects.toThrow(/0003/);
    await expect(new PktReader(chunks('000ahel')).next()).rejects.toThrow(/ends inside/);
    expect(() => pktLine(Buffer.alloc(70_000))).toThrow(PktLineError);
  });

  it('splits side-band payloads into packets of at most the maximum', () => {
    const packets = sideband(Band.data, Buffer.alloc(MAX_SIDEBAND_PAYLOAD + 10, 7));
    expect(packets).toHaveLength(2);
    expect(packets[0]!.length).toBe(65520);
    expect(packets[1]![4]).toBe(Band.data);
    expect(packets[1]!.length).toBe(4 + 1 + 10);
  });
});
