// The platform's per-project git tokens (`cwg_…`): minted by the API, which stores only their SHA-256 in a GitToken
// resource of the project's namespace; cw-git finds a presented token by that hash.
import { hash, randomBytes } from 'node:crypto';
import { BASE62_ALPHABET, randomString } from './random-string.ts';

/** Every project git token starts with this, so secret scanners (and cw-git) tell it from other credentials. */
export const GIT_TOKEN_PREFIX = 'cwg_';
const RANDOM_LENGTH = 43;
const SHAPE = new RegExp(`^${GIT_TOKEN_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH}}$`);

/** A fresh token: `cwg_` + 43 random base-62 characters (~256 bits). Shown once, stored hashed. */
export function generateGitToken(): string {
  return `${GIT_TOKEN_PREFIX}${randomString(BASE62_ALPHABET, RANDOM_LENGTH)}`;
}

/** Whether `value` claims to be a project git token (it may still be unknown). */
export function isGitTokenLike(value: string): boolean {
  return value.startsWith(GIT_TOKEN_PREFIX);
}

/** Whether `value` has exactly the shape {@link generateGitToken} makes. */
export function isWellFormedGitToken(value: string): boolean {
  return SHAPE.test(value);
}

/** Lowercase hex SHA-256 of a token: the only form anything keeps (random tokens need no salt). */
export function gitTokenSha256(token: string): string {
  return hash('sha256', token, 'hex');
}

/** The shape of a git token id: `gtk-` + 16 lowercase hex characters (also the GitToken resource's name). */
export const GIT_TOKEN_ID_PATTERN = '^gtk-[0-9a-f]{16}$';

/** A new token id, independent of the token (an id derived from it would let anyone test guesses offline). */
export function newGitTokenId(): string {
  return `gtk-${randomBytes(8).toString('hex')}`;
}
