import { databaseTokenSha256 } from '../src/platform/databases/database-token.ts';
import type { TenantMeta } from './tenant-meta.ts';

const MAX_DELETED = 10_000;

/** A token's tenant and rights, found by the token's hash. */
export interface TokenHolder {
  tenant: string;
  readOnly: boolean;
  expiresAt?: number;
}

/** A tenant that names the hash, with when it was created: the oldest of them holds it. */
type Claim = TokenHolder & { createdAt: number };

/** Lowercase hex SHA-256: the only form of a connection token cw-db holds (the platform hashes tokens the same way). */
export const tokenSha256 = databaseTokenSha256;

/**
 * Every tenant's tokens by hash. A lookup hashes the presented token, so nothing is compared on plaintext and
 * the map's key equality leaks nothing an attacker can steer. Replacing a tenant's grants drops its earlier
 * tokens at once (rotation). A hash two tenants name belongs to the one created first: a tenant that copied
 * another's hash (from a manifest committed with `spec.tokens`, say) must not take its requests, whatever order
 * the two were loaded or changed in.
 */
export class TokenIndex {
  /** Hash → the tenants naming it, the oldest first. */
  readonly #byHash = new Map<string, Claim[]>();
  readonly #byTenant = new Map<string, string[]>();
  // Tokens of deleted tenants, so their holders learn the database is gone (404) rather than that their token
  // is wrong (401): the client's URL form without a trailing slash does not carry the tenant. Bounded, in memory.
  readonly #deleted = new Map<string, string>();

  /** Makes `meta.tokens` the tenant's only tokens. */
  set(meta: Pick<TenantMeta, 'tenant' | 'tokens'> & { createdAt?: number }): void {
    this.remove(meta.tenant);
    const hashes: string[] = [];
    for (const grant of meta.tokens) {
      const claim: Claim = { tenant: meta.tenant, readOnly: grant.readOnly, ...(grant.expiresAt === undefined ? {} : { expiresAt: grant.expiresAt }), createdAt: meta.createdAt ?? 0 };
      const claims = this.#byHash.get(grant.sha256) ?? [];
      claims.push(claim);
      // Oldest first; a tie (never in practice: ids are unique per creation) by id, so every replica agrees.
      claims.sort((a, b) => a.createdAt - b.createdAt || (a.tenant < b.tenant ? -1 : 1));
      this.#byHash.set(grant.sha256, claims);
      hashes.push(grant.sha256);
    }
    this.#byTenant.set(meta.tenant, hashes);
  }

  /** Forgets the tenant's tokens; `deleted`: remembers them as a deleted database's (see {@link deletedTenant}). */
  remove(tenant: string, options: { deleted?: boolean } = {}): void {
    for (const sha256 of this.#byTenant.get(tenant) ?? []) {
      const others = (this.#byHash.get(sha256) ?? []).filter((c) => c.tenant !== tenant);
      if (others.length > 0) this.#byHash.set(sha256, others);
      else this.#byHash.delete(sha256);
      if (options.deleted && others.length === 0) this.#deleted.set(sha256, tenant);
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
    const claim = this.#claimOf(sha256, now);
    if (claim === undefined) return undefined;
    const { createdAt: _createdAt, ...holder } = claim;
    return holder;
  }

  /** The holder of the hash as {@link findHash}, with when its tenant was created. */
  #claimOf(sha256: string, now: number): Claim | undefined {
    const claim = this.#byHash.get(sha256)?.[0];
    if (claim === undefined || (claim.expiresAt !== undefined && claim.expiresAt <= now)) return undefined;
    return claim;
  }

  /** The tenant `token` belonged to if that tenant was deleted since this process started. */
  deletedTenant(token: string): string | undefined {
    return this.#deleted.get(tokenSha256(token));
  }
}
