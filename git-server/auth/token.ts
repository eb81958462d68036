// cw-git access tokens: JWTs (RFC 7519) signed with HS256 under `auth.token_secret`, on node:crypto alone.
// Claims: `sub` (the principal), `scope` (space-separated `read` / `write`), `iat`, optional `exp`, optional
// `repos` (the repositories it reaches; absent: every one), and `aud: "cw-git"`. Stateless: rotating the secret
// revokes every token.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { MIN_TOKEN_SECRET_BYTES } from '../config/schema.ts';
import { EVERY_REPOSITORY, MAX_REPO_PATTERNS, repoReach, type RepoReach } from './repo-patterns.ts';
import { UnauthenticatedError } from './errors.ts';

/** The audience every cw-git token carries, so a JWT minted for another service with the same key is refused. */
export const TOKEN_AUDIENCE = 'cw-git';

/** Scopes, in order; `write` implies `read`. */
export const GIT_SCOPES = ['read', 'write'] as const;
export type GitScope = (typeof GIT_SCOPES)[number];

/** What a verified token says. */
export interface TokenClaims {
  readonly sub: string;
  /** Granted scopes, with `read` added when `write` is present; unknown names grant nothing. */
  readonly scopes: ReadonlySet<GitScope>;
  /** Issued at, seconds since the epoch. */
  readonly iat: number;
  /** Expires at (exclusive), seconds since the epoch; absent: never. */
  readonly exp?: number;
  /** The repositories it reaches: its `repos` patterns, or every repository without that claim. */
  readonly reach: RepoReach;
}

/** What `mintToken` needs. */
export interface MintRequest {
  sub: string;
  scopes: readonly GitScope[];
  /** Lifetime in seconds; absent: the token does not expire. */
  ttlSeconds?: number;
  /** Repository patterns (`acme`, `acme/site`, `team-*`) the token reaches; absent: every repository. */
  repos?: readonly string[];
}

/** A token is a short string; anything longer is not ours (and is not worth hashing). */
const MAX_TOKEN_LENGTH = 4096;
const MAX_SUBJECT_LENGTH = 256;
const SEGMENT = /^[A-Za-z0-9_-]+$/;
const HEADER = encodeSegment({ alg: 'HS256', typ: 'JWT' });

function encodeSegment(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function key(secret: string | Uint8Array): Uint8Array {
  const bytes = typeof secret === 'string' ? Buffer.from(secret) : secret;
  if (bytes.byteLength < MIN_TOKEN_SECRET_BYTES) throw new Error(`the token secret must be at least ${MIN_TOKEN_SECRET_BYTES} bytes`);
  return bytes;
}

function sign(signingInput: string, secret: string | Uint8Array): Buffer {
  return createHmac('sha256', key(secret)).update(signingInput).digest();
}

function isSubject(value: unknown): value is string {
  // Printable, so it can appear in logs and event payloads (`pusher`) as it is.
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_SUBJECT_LENGTH && !/[\p{Cc}\s]/u.test(value);
}

/** Signs a new token. Throws for an empty or unprintable subject, no scopes, or a non-positive lifetime. */
export function mintToken(request: MintRequest, secret: string | Uint8Array, now: number = Date.now()): string {
  if (!isSubject(request.sub)) throw new Error(`the subject must be 1-${MAX_SUBJECT_LENGTH} printable characters without spaces`);
  const scopes = GIT_SCOPES.filter((scope) => request.scopes.includes(scope));
  if (scopes.length === 0 || scopes.length !== new Set(request.scopes).size) {
    throw new Error(`scopes must be a non-empty list of ${GIT_SCOPES.join(', ')}`);
  }
  const { ttlSeconds } = request;
  if (ttlSeconds !== undefined && !(Number.isSafeInteger(ttlSeconds) && ttlSeconds > 0)) throw new Error('the lifetime must be a positive whole number of seconds');
  // Checked here so a token is never minted with a reach verification would refuse.
  if (request.repos !== undefined) repoReach(request.repos);
  const iat = Math.floor(now / 1000);
  const payload = encodeSegment({
    sub: request.sub,
    aud: TOKEN_AUDIENCE,
    scope: scopes.join(' '),
    iat,
    ...(ttlSeconds === undefined ? {} : { exp: iat + ttlSeconds }),
    ...(request.repos === undefined ? {} : { repos: [...request.repos] }),
  });
  const signingInput = `${HEADER}.${payload}`;
  return `${signingInput}.${sign(signingInput, secret).toString('base64url')}`;
}

function decodeJson(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const malformed = () => new UnauthenticatedError('The access token is malformed: expected a cw-git token (a JWT).');

/**
 * Checks a token and answers its claims, or throws `UnauthenticatedError` (401) saying why: malformed, an
 * algorithm other than HS256 (`none` included), a bad signature (compared in constant time), the wrong
 * audience, expired or not yet valid. The signature is checked before any claim is believed.
 */
export function verifyToken(token: string, secret: string | Uint8Array, now: number = Date.now()): TokenClaims {
  if (token.length > MAX_TOKEN_LENGTH) throw malformed();
  const parts = token.split('.');
  const [headerPart, payloadPart, signaturePart] = parts;
  if (parts.length !== 3 || !parts.every((part) => SEGMENT.test(part)) || !headerPart || !payloadPart || !signaturePart) throw malformed();
  const header = decodeJson(headerPart);
  if (!header) throw malformed();
  // Only HS256: a token choosing its own algorithm (`none`, or RS256 "verified" with the HMAC key) is the classic JWT hole.
  if (header.alg !== 'HS256') throw new UnauthenticatedError('The access token is not signed with HS256.');
  if (header.typ !== undefined && header.typ !== 'JWT') throw malformed();
  // RFC 7515 §4.1.11: a critical extension we do not implement means the token must be refused.
  if (header.crit !== undefined) throw new UnauthenticatedError('The access token uses extensions this server does not support.');
  const expected = sign(`${headerPart}.${payloadPart}`, secret);
  const presented = Buffer.from(signaturePart, 'base64url');
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected) || presented.toString('base64url') !== signaturePart) {
    throw new UnauthenticatedError('The access token signature is invalid (or it was signed with another secret).');
  }
  const claims = decodeJson(payloadPart);
  if (!claims) throw malformed();
  const { sub, scope, iat, exp, nbf, aud, repos } = claims;
  if (!(aud === TOKEN_AUDIENCE || (Array.isArray(aud) && aud.includes(TOKEN_AUDIENCE)))) {
    throw new UnauthenticatedError(`The access token is not meant for ${TOKEN_AUDIENCE} (its audience differs).`);
  }
  if (!isSubject(sub) || typeof scope !== 'string' || typeof iat !== 'number' || (exp !== undefined && typeof exp !== 'number') || (nbf !== undefined && typeof nbf !== 'number')) {
    throw malformed();
  }
  const seconds = now / 1000;
  if (exp !== undefined && seconds >= exp) throw new UnauthenticatedError(`The access token expired at ${new Date(exp * 1000).toISOString()}.`);
  if (nbf !== undefined && seconds < nbf) throw new UnauthenticatedError('The access token is not valid yet.');
  const reach = repos === undefined ? EVERY_REPOSITORY : reachOf(repos);
  const names = new Set(scope.split(' '));
  const scopes = new Set<GitScope>(GIT_SCOPES.filter((name) => names.has(name)));
  if (scopes.has('write')) scopes.add('read');
  return { sub, scopes, iat, ...(exp === undefined ? {} : { exp }), reach };
}

/** A well-signed `repos` claim that is not a list of patterns reaches nothing: the token is refused, never widened. */
function reachOf(repos: unknown): RepoReach {
  if (!Array.isArray(repos) || repos.length === 0 || repos.length > MAX_REPO_PATTERNS || !repos.every((r) => typeof r === 'string')) throw malformed();
  try {
    return repoReach(repos as string[]);
  } catch {
    throw malformed();
  }
}
