import { hash } from 'node:crypto';
import type { TenantMeta } from './tenant-meta.ts';

/** A token's tenant and rights, found by the token's hash. */
export interface TokenHolder {
  tenant: string;
  readOnly: boolean;
  expiresAt?: number;
}

/** Lowercase hex SHA-256: the only form of a connection token cw-db holds. */
export function tokenSha256(token: string): string {
  return hash('sha256', token, 'hex');
}

/**
 * Every tenant's tokens by hash. A lookup hashes the presented token, so nothing is compared on plaintext and
 * the map's key equality leaks nothing an attacker can steer. Replacing a tenant's grants drops its earlier
 * tokens at once (rotation).
 */
export class TokenIndex {
  readonly #byHash = new Map<string, TokenHolder>();
  readonly #byTenant = new Map<string, string[]>();

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

  remove(tenant: string): void {
    for (const sha256 of this.#byTenant.get(tenant) ?? []) this.#byHash.delete(sha256);
    this.#byTenant.delete(tenant);
  }

  /** The holder of `token` if it is known and not expired at `now`. */
  find(token: string, now: number): TokenHolder | undefined {
    const holder = this.#byHash.get(tokenSha256(token));
    if (holder === undefined || (holder.expiresAt !== undefined && holder.expiresAt <= now)) return undefined;
    return holder;
  }
}
