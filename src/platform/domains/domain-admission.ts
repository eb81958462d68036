// Which domains a project may hold, decided alike by the API (at once, from its caches) and the ProjectDomain
// controller (from the DomainClaims, for every object however it was written): never the platform's base domain
// or anything in or above it, and never a name overlapping a domain another project holds firmly: a name under it, or
// a name above it. A domain holds firmly once it proved its delegation, and no longer once that lapsed
// (delegation-lapse.ts); until then it proves nothing (anyone can add a name), so two overlapping domains that never
// proved theirs stand side by side, and the first to prove its delegation decides. Between two that proved theirs,
// the older keeps its name.
import type { ProjectDomain } from '../../apis/v1alpha1/project-domain.ts';
import { findCondition } from '../../conditions/index.ts';
import { isInZone, parentName } from '../../dns/names.ts';

/** Why a project may not hold a domain; `reason` is the ProjectDomain condition reason. */
export interface DomainRefusal {
  readonly reason: 'ReservedDomain' | 'UnderAnotherProject' | 'DomainTaken';
  readonly message: string;
}

/** A domain of another project overlapping the one decided, whose claim holds, as the rule weighs it. */
export interface Overlap {
  readonly project: string;
  /**
   * It holds its name firmly: it has its zone and proved its delegation, as a claim that cannot be taken over, and
   * that delegation has not lapsed (a lapsed holder keeps no name above or below it from the name's new owner).
   */
  readonly firm: boolean;
  /** It was created before the domain decided. */
  readonly older: boolean;
}

/** A domain inside the one decided, held by another project. */
export interface OverlapBelow extends Overlap {
  readonly domain: string;
}

/**
 * Ready reasons of a domain that does not hold its name: refused it, another project's, past the project's
 * limit or not a valid name. Its claim is not (or no longer) its own, whatever objects of that name exist.
 */
export const NOT_HELD_REASONS: ReadonlySet<string> = new Set(['DomainTaken', 'DomainTakenOver', 'UnderAnotherProject', 'ReservedDomain', 'TooManyDomains', 'InvalidDomain']);

/** Whether a domain's claim holds, as its status tells it: not deleted, and not refused its name. */
export function holdsName(d: ProjectDomain): boolean {
  return d.spec.deleted !== true && !d.metadata?.deletionTimestamp && !NOT_HELD_REASONS.has(findCondition(d.status?.conditions, 'Ready')?.reason ?? '');
}

/** The proper ancestors of `domain` that could be a domain of their own (`a.b.shop.test` → `b.shop.test`, `shop.test`). */
export function ancestorDomains(domain: string): string[] {
  const ancestors: string[] = [];
  for (let name = parentName(domain); name.includes('.'); name = parentName(name)) ancestors.push(name);
  return ancestors;
}

/**
 * Whether `other` keeps its name against the domain decided (`self`): only a domain that proved its delegation does,
 * against one that did not or came later. One that never proved it holds nothing against the other: a squatter's
 * pending parent or child must not keep the owner of the name out (found in review: deleting and adding it again
 * renewed a pending claim for good).
 */
function prevails(other: Overlap, self: { firm: boolean }): boolean {
  return other.firm && (other.older || !self.firm);
}

/**
 * Why `project` may not hold `domain`, or `undefined` when it may. `holderOf` answers the overlap holding each
 * of `ancestorDomains(domain)` (its claim) when it is another project's; `below`, domains inside `domain` that
 * other projects hold; `firm`, whether `domain` itself holds its name firmly (a domain being added does not).
 */
export function domainRefusal(
  domain: string,
  project: string,
  context: { baseDomain: string; holderOf: (name: string) => Overlap | undefined; below?: readonly OverlapBelow[]; firm?: boolean },
): DomainRefusal | undefined {
  const base = context.baseDomain;
  if (isInZone(domain, base) || isInZone(base, domain)) {
    return { reason: 'ReservedDomain', message: `${domain} cannot be a project domain: the platform serves apps under ${base}.` };
  }
  const self = { firm: context.firm === true };
  for (const ancestor of ancestorDomains(domain)) {
    const holder = context.holderOf(ancestor);
    if (holder !== undefined && holder.project !== project && prevails(holder, self)) {
      return { reason: 'UnderAnotherProject', message: `${domain} is under ${ancestor}, a domain of another project; only that project can add names under it.` };
    }
  }
  const inside = (context.below ?? []).find((d) => d.project !== project && isInZone(d.domain, domain) && d.domain !== domain && prevails(d, self));
  if (inside) {
    return {
      reason: 'DomainTaken',
      message: `${domain} contains ${inside.domain}, a domain of another project; a domain cannot take in another project's domain, so ${domain} can be added once ${inside.domain} is deleted there.`,
    };
  }
  return undefined;
}
