import { describe, expect, it } from 'vitest';
import { decodeMinute, encodeMinute, FIELDS, readVarint, writeVarint } from './minute-record.ts';

/** A byte sink over a plain array. */
const sink = () => {
  const bytes: number[] = [];
  return { bytes, push: (b: number) => void bytes.push(b) };
};

/** A minute: classes, exceptions, refused, then the 13 buckets. */
function minute(classes: number[], exceptions: number, refused: number, buckets: Record<number, number>): Float64Array {
  const v = new Float64Array(FIELDS);
  classes.forEach((n, i) => (v[i] = n));
  v[5] = exceptions;
  v[6] = refused;
  for (const [b, n] of Object.entries(buckets)) v[7 + Number(b)] = n;
  return v;
}

describe('a minute record', () => {
  it('round-trips varints up to 2^53', () => {
    for (const value of [0, 1, 127, 128, 300, 16_383, 16_384, 2 ** 31, 2 ** 53 - 1]) {
      const out = sink();
      writeVarint(out, value);
      expect(readVarint(Uint8Array.from(out.bytes), 0)).toEqual([value, out.bytes.length]);
    }
  });

  it('round-trips minutes, with and without a gap, each read against the one before', () => {
    const minutes = [
      { v: minute([0, 120, 2, 5, 3], 1, 0, { 0: 60, 1: 40, 2: 15, 4: 15 }), gap: 0 },
      { v: minute([0, 1, 0, 0, 0], 0, 0, { 3: 1 }), gap: 7 },
      { v: minute([1, 2_000_000, 3, 4, 70_000], 65_000, 5000, { 0: 1_000_000, 11: 900_000, 12: 170_008 }), gap: 1439 },
      { v: minute([0, 0, 0, 0, 9], 0, 9, { 0: 9 }), gap: 0 },
    ];
    const out = sink();
    minutes.forEach(({ v, gap }, i) => encodeMinute(out, v, gap, minutes[i - 1]?.v ?? new Float64Array(FIELDS)));
    const bytes = Uint8Array.from(out.bytes);
    let at = 0;
    let prev = new Float64Array(FIELDS);
    for (const { v, gap } of minutes) {
      const into = new Float64Array(FIELDS);
      const decoded = decodeMinute(bytes, at, into, prev);
      expect(decoded.gap).toBe(gap);
      expect([...into]).toEqual([...v]);
      at = decoded.next;
      prev = into;
    }
    expect(at).toBe(bytes.length);
  });

  it('takes about a byte per field in use: a busy minute like the one before in four neighbouring buckets in 10 bytes', () => {
    // 6,000 requests a minute (100/s): 2xx, 4xx, 5xx and an exception, latencies over four buckets.
    const before = minute([0, 5600, 0, 70, 30], 1, 0, { 1: 2800, 2: 1900, 3: 900, 4: 100 });
    const first = sink();
    encodeMinute(first, before, 0, new Float64Array(FIELDS));
    expect(first.bytes.length).toBe(1 + 2 + 1 + 1 + 1 + 1 + 3 * 2); // flags, the counts, the range, three buckets of two bytes
    const next = sink();
    encodeMinute(next, minute([0, 5900, 0, 80, 20], 2, 0, { 1: 3000, 2: 2000, 3: 900, 4: 100 }), 0, before);
    expect(next.bytes.length).toBe(1 + 2 + 1 + 1 + 1 + 1 + 3); // the buckets near their shares before: a byte each
    const quiet = sink();
    encodeMinute(quiet, minute([0, 3, 0, 0, 0], 0, 0, { 0: 3 }), 0, new Float64Array(FIELDS));
    expect(quiet.bytes.length).toBe(3); // flags, the 2xx count, the bucket range
  });
});
