import { databaseTokenSha256 } from '../src/platform/databases/database-token.ts';
import type { TenantMeta } from './tenant-meta.ts';

const MAX_DELETED = 10_000;

/** A token's tenant and rights, found by the token's hash. */
export interface TokenHolder {
  tenant: string;
  readOnly: boolean;
  expiresAt?: number;
}

/** Lowercase hex SHA-256: the only form of a connection token cw-db holds (the platform hashes tokens the same way). */
export const tokenSha256 = databaseTokenSha256;

/**
 * Every tenant's tokens by hash. A lookup hashes the presented token, so nothing is compared on plaintext and
 * the map's key equality leaks nothing an attacker can steer. Replacing a tenant's grants drops its earlier
 * tokens at once (rotation).
 */
export class TokenIndex {
  readonly #byHash = new Map<string, TokenHolder>();
  readonly #byTenant = new Map<string, string[]>();
  // Tokens of deleted tenants, so their holders learn the database is gone (404) rather than that their token
  // is wrong (401): the client's URL form without a trailing slash does not carry the tenant. Bounded, in memory.
  readonly #deleted = new Map<string, string>();

  /** Makes `meta.tokens` the tenant's only tokens. */
  set(meta: Pick<TenantMeta, 'tenant' | 'tokens'>): void {
    this.remove(meta.tenant);
    const hashes: string[] = [];
    for (const grant of meta.tokens) {
      this.#byHash.set(grant.sha256, { tenant: meta.tenant, readOnly: grant.readOnly, ...(grant.expiresAt === undefined ? {} : { expiresAt: grant.expiresAt }) });
      hashes.push(grant.sha256);
    }
    this.#byTenant.set(meta.tenant, hashes);
  }

  /** Forgets the tenant's tokens; `deleted`: remembers them as a deleted database's (see {@link deletedTenant}). */
  remove(tenant: string, options: { deleted?: boolean } = {}): void {
    for (const sha256 of this.#byTenant.get(tenant) ?? []) {
      this.#byHash.delete(sha256);
      if (options.deleted) this.#deleted.set(sha256, tenant);
    }
    this.#byTenant.delete(tenant);
    for (const oldest of this.#deleted.keys()) {
      if (this.#deleted.size <= MAX_DELETED) break;
      this.#deleted.delete(oldest);
    }
  }

  /** The holder of `token` if it is known and not expired at `now`. */
  find(token: string, now: number): TokenHolder | undefined {
    return this.findHash(tokenSha256(token), now);
  }

  /** The holder of the token hashing to `sha256`, as {@link find} (another replica asking, with the hash only). */
  findHash(sha256: string, now: number): TokenHolder | undefined {
    const holder = this.#byHash.get(sha256);
    if (holder === undefined || (holder.expiresAt !== undefined && holder.expiresAt <= now)) return undefined;
    return holder;
  }

  /** The tenant `token` belonged to if that tenant was deleted since this process started. */
  deletedTenant(token: string): string | undefined {
    return this.#deleted.get(tokenSha256(token));
  }
}
