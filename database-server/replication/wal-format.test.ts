import { describe, expect, it } from 'vitest';
import { walChecksum } from './wal-format.ts';

describe('walChecksum', () => {
  // Bytes 0..15 at an odd offset of their buffer (a frame read into a larger buffer need not be aligned), summed by
  // hand as SQLite's walChecksumBytes sums them: s1 += x0 + s2; s2 += x1 + s1, over each pair of words.
  const bytes = Buffer.from([0xff, ...Array.from({ length: 16 }, (_, i) => i)]).subarray(1);

  it('reads the words big-endian for the magic 0x377f0683', () => {
    expect(walChecksum(bytes, { s1: 0, s2: 0 }, true)).toEqual({ s1: 202380312, s2: 472066609 });
  });

  it('reads the words little-endian for the magic 0x377f0682, chained from the seed', () => {
    expect(walChecksum(bytes, { s1: 0, s2: 0 }, false)).toEqual({ s1: 403968012, s2: 824845084 });
    const first = walChecksum(bytes.subarray(0, 8), { s1: 0, s2: 0 }, false);
    expect(walChecksum(bytes.subarray(8), first, false)).toEqual({ s1: 403968012, s2: 824845084 });
  });
});
