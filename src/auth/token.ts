import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { BASE62_ALPHABET, encodeBase62, randomString } from './random-string.ts';

// Format (GitHub's design): `cwt_` + 34 random base-62 characters + 6-character base-62 CRC32 of the
// random part. 34 × log2(62) ≈ 202 bits of entropy. The prefix lets secret scanners find leaked tokens;
// the checksum lets them, the CLI and `parseToken` reject typos and look-alikes without a lookup.

/** Every personal access token starts with this. */
export const TOKEN_PREFIX = 'cwt_';
const BODY_LENGTH = 40;
const CHECKSUM_LENGTH = 6;
const RANDOM_LENGTH = BODY_LENGTH - CHECKSUM_LENGTH;
/** Characters in a whole token, prefix included. */
export const TOKEN_LENGTH = TOKEN_PREFIX.length + BODY_LENGTH;
/** Character code → its base-62 digit value, or -1 for a character outside the alphabet (ASCII only). */
const BASE62_DIGIT = new Int8Array(128).fill(-1);
for (let digit = 0; digit < BASE62_ALPHABET.length; digit++) BASE62_DIGIT[BASE62_ALPHABET.charCodeAt(digit)] = digit;

declare const plaintextBrand: unique symbol;

/**
 * A well-formed token with a valid checksum. Only {@link generateToken} and {@link parseToken} produce
 * one, so code that hashes or stores a token cannot be handed an unchecked string by mistake.
 */
export type PlaintextToken = string & { readonly [plaintextBrand]: true };

/** A fresh token. The caller shows it to its owner once and stores only {@link hashToken} of it. */
export function generateToken(): PlaintextToken {
  const random = randomString(BASE62_ALPHABET, RANDOM_LENGTH);
  return `${TOKEN_PREFIX}${random}${checksumOf(random)}` as PlaintextToken;
}

/** Why a string is not a token: wrong prefix, wrong length or alphabet, or a checksum mismatch (a typo). */
export type TokenRejection = 'prefix' | 'format' | 'checksum';

/** The outcome of {@link parseToken}. */
export type ParsedToken = { readonly ok: true; readonly token: PlaintextToken } | { readonly ok: false; readonly reason: TokenRejection };

/**
 * Checks the shape and the checksum of `value`, without any lookup.
 *
 * Timing: the checksum is a public function of the random part, so checking it leaks nothing an attacker
 * could not compute; it is compared as one number, so the time taken does not depend on where a mistyped
 * token differs. What must be constant-time is matching a token against stored secrets; that never happens on
 * plaintext: lookups go by {@link hashToken}, whose output an attacker cannot steer.
 *
 * One pass over the characters (alphabet check and checksum decoding together) rather than a regular
 * expression and a re-encoding: this runs on every authenticated request (measured: bench/README.md).
 */
export function parseToken(value: string): ParsedToken {
  if (!value.startsWith(TOKEN_PREFIX)) return { ok: false, reason: 'prefix' };
  if (value.length !== TOKEN_LENGTH) return { ok: false, reason: 'format' };
  const checksumStart = TOKEN_PREFIX.length + RANDOM_LENGTH;
  let presented = 0;
  for (let i = TOKEN_PREFIX.length; i < value.length; i++) {
    const code = value.charCodeAt(i);
    const digit = code < 128 ? (BASE62_DIGIT[code] ?? -1) : -1;
    if (digit < 0) return { ok: false, reason: 'format' };
    if (i >= checksumStart) presented = presented * 62 + digit;
  }
  // Six base-62 digits hold any CRC32 value exactly once (62^6 > 2^32), so comparing the decoded number is
  // comparing the digits `checksumOf` would write.
  if (crc32(value.slice(TOKEN_PREFIX.length, checksumStart)) !== presented) return { ok: false, reason: 'checksum' };
  return { ok: true, token: value as PlaintextToken };
}

/**
 * Lowercase hex SHA-256 of the token: the only form we store (`AccessToken.spec.tokenHash`). A plain,
 * unsalted hash suffices because tokens carry ~202 random bits: there is no dictionary to precompute,
 * and it keeps lookup by hash a single index read.
 */
export function hashToken(token: PlaintextToken): string {
  // One-shot `hash` (tokens are ASCII, so its UTF-8 is the ASCII bytes): on every authenticated request,
  // and a third of the cost of a `createHash` object (measured: bench/README.md).
  return hash('sha256', token, 'hex');
}

/** Compares two token hashes in constant time; `false` for different lengths. */
export function tokenHashesEqual(a: string, b: string): boolean {
  return equalInConstantTime(a, b);
}

/**
 * String equality whose time depends only on the length: no early exit at the first difference. For the
 * short ASCII strings compared here (hashes, checksums) this does what `timingSafeEqual` does without
 * allocating two buffers per comparison on the request path.
 */
function equalInConstantTime(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/** The shape of a token id: `tok-` + 16 lowercase hex characters. */
export const TOKEN_ID_PATTERN = '^tok-[0-9a-f]{16}$';
const TOKEN_ID_SHAPE = new RegExp(TOKEN_ID_PATTERN);

/**
 * A new token id, independent of the token: `tok-` + 64 random bits in hex.
 *
 * Why not derive it from the hash: the id is public (listings, audit logs, `kubectl get`), and a value
 * computed from the secret is an offline oracle — whoever sees it can test candidate tokens (say, one
 * partially visible in a screenshot) without touching the server, its rate limits or `lastUsedAt`. A
 * random id also survives a change of the stored hash function. It uses `-`, not `_`, because it is
 * also the name of the `AccessToken` custom resource, and Kubernetes names allow no underscore.
 */
export function newTokenId(): string {
  return `tok-${randomBytes(8).toString('hex')}`;
}

/** Whether `value` has the shape of a token id (it may still not exist). */
export function isTokenId(value: string): boolean {
  return TOKEN_ID_SHAPE.test(value);
}

const TOKEN_LIKE = /cwt_[0-9A-Za-z]+/g;
const BEARER_CREDENTIAL = /\b(Bearer)\s+[^\s,;"']+/gi;

/**
 * `text` with every token-like run (`cwt_…`, also truncated ones) and every `Bearer <credential>` replaced
 * by a marker, for log lines and error messages. Nothing of the token survives — not even the last
 * characters, which are the checksum and would narrow an offline search; correlate by token id instead.
 */
export function redactToken(text: string): string {
  return text.replace(TOKEN_LIKE, 'cwt_[redacted]').replace(BEARER_CREDENTIAL, '$1 [redacted]');
}

/** Any of the platform's secrets in a path (a personal token `cwt_`, a database token `cwdb_`, a git token `cwg_`), percent-encoded characters included. */
const SECRET_IN_PATH = /\b(cwt_|cwdb_|cwg_)[A-Za-z0-9%_.~-]*/g;

/**
 * `path` with every token of the platform in it redacted (a token pasted into a path by mistake must reach no log
 * or audit entry). Cheap for a path holding none: the common case of every request's access line.
 */
export function redactPathSecrets(path: string): string {
  return path.includes('cw') ? path.replace(SECRET_IN_PATH, '$1[redacted]') : path;
}

function checksumOf(random: string): string {
  return encodeBase62(crc32(random), CHECKSUM_LENGTH);
}
