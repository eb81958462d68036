import { randomBytes } from 'node:crypto';

/** Digits, then upper case, then lower case: the order GitHub's token checksums use. */
export const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * `length` characters drawn uniformly from `alphabet` with the operating system's CSPRNG.
 *
 * Bytes at or above the largest multiple of the alphabet size are thrown away (rejection sampling):
 * `byte % size` alone would make the first `256 % size` characters more likely, which costs entropy in
 * secrets and makes user codes guessable slightly faster.
 */
export function randomString(alphabet: string, length: number): string {
  const size = alphabet.length;
  if (size < 2 || size > 256) throw new RangeError(`alphabet must have 2 to 256 characters, not ${size}`);
  const limit = 256 - (256 % size);
  let out = '';
  while (out.length < length) {
    // Ask for a little more than needed so one call usually suffices despite rejections.
    for (const byte of randomBytes(Math.ceil((length - out.length) * 1.25) + 4)) {
      if (byte >= limit) continue;
      out += alphabet[byte % size];
      if (out.length === length) break;
    }
  }
  return out;
}

/** `value` (a non-negative safe integer) in base 62, left-padded with `0` to `width` characters. */
export function encodeBase62(value: number, width: number): string {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`cannot encode ${value} in base 62`);
  let out = '';
  let rest = value;
  do {
    out = BASE62_ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  } while (rest > 0);
  if (out.length > width) throw new RangeError(`${value} needs more than ${width} base-62 digits`);
  return out.padStart(width, '0');
}
