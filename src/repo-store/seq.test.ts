import { describe, expect, it } from 'vitest';
import { isSeq, parseSeq, parseSeqKey, SEQ_KEY_WIDTH, seqKey, seqToString } from './seq.ts';

describe('seq formatting', () => {
  it('pads keys to the width of the largest uint64, so key order is seq order', () => {
    expect(seqKey(0)).toBe('00000000000000000000');
    expect(seqKey(42)).toBe('00000000000000000042');
    expect(String(2n ** 64n - 1n)).toHaveLength(SEQ_KEY_WIDTH);
    const seqs = [1, 9, 10, 99, 100, 12345, 2 ** 40];
    expect(seqs.map(seqKey).sort()).toEqual(seqs.map(seqKey));
    expect(parseSeqKey(seqKey(12345))).toBe(12345);
    expect(parseSeqKey('42')).toBeUndefined();
    expect(parseSeqKey('0000000000000000004x')).toBeUndefined();
  });

  it('writes seqs as decimal strings and reads back only canonical, safe ones', () => {
    expect(seqToString(42)).toBe('42');
    expect(parseSeq('42')).toBe(42);
    expect(parseSeq('0')).toBe(0);
    for (const bad of ['', '-1', '+1', '01', '1.0', '1e3', ' 1', '9007199254740993', '0x10']) expect(parseSeq(bad)).toBeUndefined();
    expect(() => seqToString(-1)).toThrow(RangeError);
    expect(() => seqToString(1.5)).toThrow(RangeError);
    expect(isSeq(Number.MAX_SAFE_INTEGER)).toBe(true);
    expect(isSeq(Number.MAX_SAFE_INTEGER + 1)).toBe(false);
  });
});
