// Which domains a project may hold, decided alike by the API (at once, from its caches) and the ProjectDomain
// controller (from the DomainClaims, for every object however it was written): never the platform's base domain
// or anything in or above it, and never a name under a domain another project holds, whose owner the parent is.
import { isInZone, parentName } from '../../dns/names.ts';

/** Why a project may not hold a domain; `reason` is the ProjectDomain condition reason. */
export interface DomainRefusal {
  readonly reason: 'ReservedDomain' | 'UnderAnotherProject';
  readonly message: string;
}

/** The proper ancestors of `domain` that could be a domain of their own (`a.b.shop.test` → `b.shop.test`, `shop.test`). */
export function ancestorDomains(domain: string): string[] {
  const ancestors: string[] = [];
  for (let name = parentName(domain); name.includes('.'); name = parentName(name)) ancestors.push(name);
  return ancestors;
}

/**
 * Why `project` may not hold `domain`, or `undefined` when it may. `holderOf` answers which project holds a
 * name (its DomainClaim), for each of `ancestorDomains(domain)`.
 */
export function domainRefusal(domain: string, project: string, context: { baseDomain: string; holderOf: (name: string) => string | undefined }): DomainRefusal | undefined {
  const base = context.baseDomain;
  if (isInZone(domain, base) || isInZone(base, domain)) {
    return { reason: 'ReservedDomain', message: `${domain} cannot be a project domain: the platform serves apps under ${base}.` };
  }
  for (const ancestor of ancestorDomains(domain)) {
    const holder = context.holderOf(ancestor);
    if (holder !== undefined && holder !== project) {
      return { reason: 'UnderAnotherProject', message: `${domain} is under ${ancestor}, a domain of another project; only that project can add names under it.` };
    }
  }
  return undefined;
}
