import { describe, expect, it } from 'vitest';
import { generateToken, hashToken, isTokenId, newTokenId, parseToken, redactPathSecrets, redactToken, tokenHashesEqual, type PlaintextToken } from './token.ts';

// A fixed token whose checksum and hash were computed once; it pins the format so stored hashes stay valid.
const GOLDEN = 'cwt_abcdefghijABCDEFGHIJ0123456789wxyz2c3czC';
const GOLDEN_HASH = 'a8c286e19775bb64b89af306e7e520f829d77bf59fabb1268732cb3996257772';

/** `token` with the character at `index` replaced by another character of the alphabet. */
function mutate(token: string, index: number): string {
  const replacement = token[index] === 'a' ? 'b' : 'a';
  return token.slice(0, index) + replacement + token.slice(index + 1);
}

describe('generateToken', () => {
  it('produces cwt_ + 40 base-62 characters that parse', () => {
    const token = generateToken();
    expect(token).toMatch(/^cwt_[0-9A-Za-z]{40}$/);
    expect(parseToken(token)).toEqual({ ok: true, token });
  });

  it('never repeats', () => {
    const tokens = new Set(Array.from({ length: 1000 }, generateToken));
    expect(tokens.size).toBe(1000);
  });
});

describe('parseToken', () => {
  it('accepts the golden token', () => {
    expect(parseToken(GOLDEN)).toEqual({ ok: true, token: GOLDEN });
  });

  it.each([
    { name: 'empty', value: '', reason: 'prefix' },
    { name: 'another prefix', value: `ghp_${GOLDEN.slice(4)}`, reason: 'prefix' },
    { name: 'upper-case prefix', value: `CWT_${GOLDEN.slice(4)}`, reason: 'prefix' },
    { name: 'leading space', value: ` ${GOLDEN}`, reason: 'prefix' },
    { name: 'one character short', value: GOLDEN.slice(0, -1), reason: 'format' },
    { name: 'one character long', value: `${GOLDEN}a`, reason: 'format' },
    { name: 'trailing newline', value: `${GOLDEN}\n`, reason: 'format' },
    { name: 'a non-base-62 character', value: `${GOLDEN.slice(0, 10)}-${GOLDEN.slice(11)}`, reason: 'format' },
    { name: 'a non-ASCII letter', value: `${GOLDEN.slice(0, 10)}é${GOLDEN.slice(11)}`, reason: 'format' },
    { name: 'a typo in the random part', value: mutate(GOLDEN, 4), reason: 'checksum' },
    { name: 'a typo at the end of the random part', value: mutate(GOLDEN, 37), reason: 'checksum' },
    { name: 'a typo in the checksum', value: mutate(GOLDEN, 43), reason: 'checksum' },
    { name: 'the case of one letter changed', value: GOLDEN.replace('abc', 'Abc'), reason: 'checksum' },
    { name: 'two characters swapped', value: GOLDEN.replace('ab', 'ba'), reason: 'checksum' },
  ])('rejects $name ($reason)', ({ value, reason }) => {
    expect(parseToken(value)).toEqual({ ok: false, reason });
  });

  it('catches every single-character typo in generated tokens', () => {
    for (let round = 0; round < 20; round += 1) {
      const token = generateToken();
      for (let index = 4; index < token.length; index += 1) {
        expect(parseToken(mutate(token, index)).ok).toBe(false);
      }
    }
  });
});

describe('hashToken', () => {
  it('is the lowercase hex SHA-256 of the whole token', () => {
    expect(hashToken(GOLDEN as PlaintextToken)).toBe(GOLDEN_HASH);
  });
});

describe('tokenHashesEqual', () => {
  it.each([
    { a: GOLDEN_HASH, b: GOLDEN_HASH, equal: true },
    { a: GOLDEN_HASH, b: GOLDEN_HASH.toUpperCase(), equal: false },
    { a: GOLDEN_HASH, b: GOLDEN_HASH.slice(0, 63), equal: false },
    { a: '', b: '', equal: true },
  ])('$a = $b is $equal', ({ a, b, equal }) => {
    expect(tokenHashesEqual(a, b)).toBe(equal);
  });
});

describe('newTokenId', () => {
  it('is tok- + 16 hex characters, a valid Kubernetes name', () => {
    const id = newTokenId();
    expect(isTokenId(id)).toBe(true);
    expect(id).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  });

  it('shares nothing with the hash of the token', () => {
    const ids = new Set(Array.from({ length: 1000 }, newTokenId));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(GOLDEN_HASH).not.toContain(id.slice(4, 12));
  });

  it.each(['tok_0123456789abcdef', 'tok-0123456789ABCDEF', 'tok-0123', '', 'cwt_x'])('rejects the id %j', (id) => {
    expect(isTokenId(id)).toBe(false);
  });
});

describe('redactToken', () => {
  it.each([
    { text: `token=${GOLDEN}`, expected: 'token=cwt_[redacted]' },
    { text: `Authorization: Bearer ${GOLDEN}`, expected: 'Authorization: Bearer [redacted]' },
    { text: 'authorization: bearer not-a-token, next', expected: 'authorization: bearer [redacted], next' },
    { text: `truncated ${GOLDEN.slice(0, 12)}`, expected: 'truncated cwt_[redacted]' },
    { text: `${GOLDEN} and ${GOLDEN}`, expected: 'cwt_[redacted] and cwt_[redacted]' },
    { text: 'nothing secret here', expected: 'nothing secret here' },
  ])('redacts $text', ({ text, expected }) => {
    const redacted = redactToken(text);
    expect(redacted).toBe(expected);
    expect(redacted).not.toContain(GOLDEN.slice(4, 12));
    expect(redactToken(redacted)).toBe(redacted);
  });
});

describe('redactPathSecrets', () => {
  it('redacts every kind of platform token in a path, percent-encoded too, and leaves other paths as they are', () => {
    expect(redactPathSecrets('/v1/tokens/cwt_abc%41def/x')).toBe('/v1/tokens/cwt_[redacted]/x');
    expect(redactPathSecrets('/v1/x/cwdb_a-b_c.d~e/cwg_XYZ')).toBe('/v1/x/cwdb_[redacted]/cwg_[redacted]');
    expect(redactPathSecrets('/v1/projects/cwapp/apps/web')).toBe('/v1/projects/cwapp/apps/web');
  });
});
