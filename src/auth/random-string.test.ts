import { describe, expect, it } from 'vitest';
import { BASE62_ALPHABET, encodeBase62, randomString } from './random-string.ts';

describe('encodeBase62', () => {
  it.each([
    { value: 0, width: 6, expected: '000000' },
    { value: 61, width: 1, expected: 'z' },
    { value: 62, width: 2, expected: '10' },
    // CRC32 of "123456789", the standard check value, and the largest CRC32 fit in 6 digits.
    { value: 0xcbf43926, width: 6, expected: '3jZRME' },
    { value: 0xffffffff, width: 6, expected: '4gfFC3' },
  ])('encodes $value as $expected', ({ value, width, expected }) => {
    expect(encodeBase62(value, width)).toBe(expected);
  });

  it.each([
    { value: -1, width: 6 },
    { value: 1.5, width: 6 },
    { value: 62, width: 1 },
  ])('refuses $value in $width digits', ({ value, width }) => {
    expect(() => encodeBase62(value, width)).toThrow(RangeError);
  });
});

describe('randomString', () => {
  it.each([0, 1, 34, 200])('returns %i characters of the alphabet', (length) => {
    const value = randomString(BASE62_ALPHABET, length);
    expect(value).toHaveLength(length);
    expect(value).toMatch(/^[0-9A-Za-z]*$/);
  });

  it('uses every character of a small alphabet and nothing else', () => {
    const seen = new Set(randomString('ABC', 300));
    expect([...seen].sort()).toEqual(['A', 'B', 'C']);
  });

  it('is not biased towards the first characters (rejection sampling)', () => {
    // 256 % 200 = 56: with plain modulo, the first 56 characters would come up twice as often.
    const alphabet = Array.from({ length: 200 }, (_, i) => String.fromCharCode(0x100 + i)).join('');
    const sample = randomString(alphabet, 40_000);
    const low = sample.split('').filter((c) => c.charCodeAt(0) - 0x100 < 56).length / sample.length;
    expect(low).toBeGreaterThan(0.25);
    expect(low).toBeLessThan(0.31); // 56/200 = 0.28 unbiased; ≈ 0.44 with modulo bias
  });

  it.each(['', 'A'])('refuses the alphabet %j', (alphabet) => {
    expect(() => randomString(alphabet, 4)).toThrow(RangeError);
  });
});
