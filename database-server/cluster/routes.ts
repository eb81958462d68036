// Where a request for a database goes when cw-db runs as several replicas: the Hrana server's and the admin
// API's routers over the leases (ownership.ts).
import type { AdminRouter } from '../admin-server.ts';
import type { RouteDecision, Router } from '../hrana/forward.ts';
import type { TenantMetaStore } from '../tenant-meta.ts';
import type { Ownership } from './ownership.ts';
import type { TokenLocator } from './token-locator.ts';

const LOCAL: RouteDecision = { kind: 'local' };
const UNAVAILABLE: RouteDecision = { kind: 'unavailable' };

/**
 * Hrana: served here when this replica holds the lease, sent on to the live holder, else DATABASE_MOVING while a
 * takeover is under way. A database no lease names and no metadata describes is answered here (404); as anyone
 * may send any id, one the last round did not list is looked up in the bucket only within a budget (`Ownership`).
 * Without a database in the path, the token names it (`locator`); a token no database has is answered here (401).
 */
export function hranaRouter(ownership: Ownership, metas: TenantMetaStore, locator: TokenLocator, localTenantOf: (token: string) => string | undefined): Router {
  return async (pathTenant, token, forwarded) => {
    // A token of a database served here needs no lookup in the bucket.
    const tenant = pathTenant ?? (token === undefined ? undefined : (localTenantOf(token) ?? (await locator.tenantOf(token))));
    if (tenant === undefined) return LOCAL;
    const route = await ownership.route(tenant, { budgeted: true });
    if (route.kind === 'local' || route.kind === 'absent') return LOCAL;
    if (route.kind === 'forward') return forwarded ? UNAVAILABLE : { kind: 'forward', url: route.holder.url, tenant };
    return (await metas.get(tenant)) === undefined ? LOCAL : UNAVAILABLE;
  };
}

/** The admin API: as Hrana, and a database being created goes to the live replica placement prefers for it. */
export function adminRouter(ownership: Ownership, metas: TenantMetaStore, self: string): AdminRouter {
  return async (tenant, method, forwarded) => {
    const route = await ownership.route(tenant);
    if (route.kind === 'local') return LOCAL;
    if (route.kind === 'forward') return forwarded ? UNAVAILABLE : { kind: 'forward', url: route.holder.adminUrl };
    if ((await metas.get(tenant)) !== undefined) return UNAVAILABLE;
    if (method !== 'PUT' || forwarded) return LOCAL;
    const target = ownership.placeNew(tenant);
    return target.name === self ? LOCAL : { kind: 'forward', url: target.adminUrl };
  };
}
