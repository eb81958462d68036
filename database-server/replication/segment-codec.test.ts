import { gzipSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeSegment, encodeSegment } from './segment-codec.ts';

const pageSize = 512;
const frames = (n: number, fill: number) => Buffer.alloc(n * (24 + pageSize), fill);

describe('segment codec', () => {
  it('round-trips commits with their times, frame counts, sizes and parts', async () => {
    const segment = {
      pageSize,
      commits: [
        { ts: 1_700_000_000_123, frameCount: 2, dbSize: 7, frames: frames(2, 1), partsAfter: 0 },
        { ts: 1_700_000_000_456, frameCount: 1, dbSize: 8, frames: frames(1, 2), partsAfter: 3 },
      ],
    };
    expect(await decodeSegment(await encodeSegment(segment))).toEqual(segment);
  });

  it('reads segments of version 1, written before transactions were cut into parts', async () => {
    const head = Buffer.alloc(16 + 16);
    head.write('CWWS', 0, 'latin1');
    head.writeUInt32BE(1, 4);
    head.writeUInt32BE(pageSize, 8);
    head.writeUInt32BE(1, 12);
    head.writeDoubleBE(42, 16);
    head.writeUInt32BE(2, 24);
    head.writeUInt32BE(9, 28);
    const decoded = await decodeSegment(gzipSync(Buffer.concat([head, frames(2, 5)])));
    expect(decoded).toEqual({ pageSize, commits: [{ ts: 42, frameCount: 2, dbSize: 9, frames: frames(2, 5), partsAfter: 0 }] });
  });

  it('rejects a segment whose frames are cut short or followed by extra bytes', async () => {
    const body = gunzipSync(await encodeSegment({ pageSize, commits: [{ ts: 1, frameCount: 2, dbSize: 2, frames: frames(2, 3) }] }));
    await expect(decodeSegment(gzipSync(body.subarray(0, body.byteLength - 1)))).rejects.toThrow(/truncated/);
    await expect(decodeSegment(gzipSync(Buffer.concat([body, Buffer.alloc(1)])))).rejects.toThrow(/trailing/);
    await expect(decodeSegment(gzipSync(Buffer.from('not a segment at all')))).rejects.toThrow(/not a WAL segment/);
  });
});
