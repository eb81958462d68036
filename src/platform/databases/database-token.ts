import { hash, randomBytes } from 'node:crypto';
import { BASE62_ALPHABET, randomString } from '../../auth/random-string.ts';

/** Every database connection token starts with this, so secret scanners can find a leaked one. */
export const DATABASE_TOKEN_PREFIX = 'cwdb_';

/** A fresh connection token: `cwdb_` + 43 random base-62 characters (~256 bits). Shown once, stored hashed. */
export function generateDatabaseToken(): string {
  return `${DATABASE_TOKEN_PREFIX}${randomString(BASE62_ALPHABET, 43)}`;
}

/** Lowercase hex SHA-256 of a token: the only form the platform keeps (random tokens need no salt). */
export function databaseTokenSha256(token: string): string {
  return hash('sha256', token, 'hex');
}

/** A new token id (`dbt-` + 64 random bits in hex), independent of the token. */
export function newDatabaseTokenId(): string {
  return `dbt-${randomBytes(8).toString('hex')}`;
}

/** The database id (REST `database_id`, also its engine tenant) of the Database object with `uid`. */
export function databaseIdFor(uid: string): string {
  return `db-${uid.replace(/-/g, '').slice(0, 20)}`;
}
