// Whether a project may serve a host name: the one rule the API (at deploy time), the controllers and every
// cw-runtime replica apply, so that which app answers a name never depends on who asked first, a replica's age or
// its start order. The cluster-scoped claims decide who holds a name; holding it is not enough to serve it:
// a domain must have been delegated, a custom host name verified.
import { findCondition } from '../conditions/index.ts';
import type { AppHostname } from '../apis/v1alpha1/app-hostname.ts';
import type { ProjectDomain } from '../apis/v1alpha1/project-domain.ts';
import { isInZone, parentName } from '../dns/names.ts';
import { holdsName } from './domains/domain-admission.ts';

/**
 * How long a domain found not delegated any more keeps serving its apps: the hourly re-check can catch a
 * registrar's brief hiccup, and that must not take every app of the domain down.
 */
export const DEMOTION_GRACE_MS = 24 * 3600 * 1000;

/** What the rule reads: the claims, and the objects that prove a project may serve under them. */
export interface NameFacts {
  readonly baseDomain: string;
  /** The project holding `name` as a domain (its DomainClaim), if any. */
  domainHolder(name: string): string | undefined;
  /** The project holding `name` as a custom host name (its HostnameClaim), if any. */
  hostnameHolder(name: string): string | undefined;
  /** `project`'s ProjectDomain for exactly `domain`, if it has one. */
  projectDomain(project: string, domain: string): ProjectDomain | undefined;
  /** Whether `project` has an `active` AppHostname for `host`. */
  hostnameActive(project: string, host: string): boolean;
  readonly now: Date;
}

/** The project whose claim decides `host` (lowercase, no trailing dot), and which claim: none when no project's does. */
export interface NameHolder {
  readonly project: string;
  /** `base`: the project's part of the base domain; `domain`: a domain it holds; `hostname`: a custom host name it holds. */
  readonly claim: 'base' | 'domain' | 'hostname';
  /** The name claimed (`<project>.<base>`, the domain, or the host itself). */
  readonly name: string;
}

/**
 * Which project's claim decides `host`: in the base domain, the project its last label before it names (for a name
 * below that label's); else the
 * most specific claim covering it, the name's own (as a domain or a custom host name), else the nearest domain
 * above it. Holding is not serving (`serveRefusal`), but no other project may serve the name.
 */
export function nameHolder(host: string, facts: Pick<NameFacts, 'baseDomain' | 'domainHolder' | 'hostnameHolder'>): NameHolder | undefined {
  const base = facts.baseDomain;
  if (isInZone(host, base)) {
    // Names below `<project>.<base>` only, never that name itself: the platform's own hosts sit directly under the
    // base domain (`runtime.<base>`, every custom host name's CNAME target), and a project named like one held it,
    // served it and was issued its certificate. No app's default host or certificate needs a project's apex.
    const labels = labelsBelow(host, base);
    const project = labels.length >= 2 ? labels.at(-1) : undefined;
    return project ? { project, claim: 'base', name: `${project}.${base}` } : undefined;
  }
  for (let name = host; name.includes('.'); name = parentName(name)) {
    const domainHolder = facts.domainHolder(name);
    if (domainHolder !== undefined) return { project: domainHolder, claim: 'domain', name };
    const hostnameHolder = name === host ? facts.hostnameHolder(host) : undefined;
    if (hostnameHolder !== undefined) return { project: hostnameHolder, claim: 'hostname', name };
  }
  return undefined;
}

/**
 * The project ids that would hold one of the platform's own host names (`nameHolder`: in the base domain, the
 * project its last label before it names): the runtime's DNS target (`runtime.<base>` unless configured), the
 * API's and cw-git's public hosts. A project of such an id could serve the name and be issued its certificate.
 */
export function platformProjectIds(baseDomain: string, platformHosts: readonly string[]): string[] {
  const ids = platformHosts.flatMap((host) => {
    const name = host.toLowerCase().replace(/\.$/, '');
    return isInZone(name, baseDomain) ? labelsBelow(name, baseDomain).slice(-1) : [];
  });
  return [...new Set(ids.filter(Boolean))];
}

/** The labels of `host` before `base`, a name in its zone (none for `base` itself): the last is the project's. */
function labelsBelow(host: string, base: string): string[] {
  return host === base ? [] : host.slice(0, -base.length - 1).split('.');
}

/** Why `project` may not serve `host`, or `undefined` when it may. `host` is lowercase, without a trailing dot. */
export function serveRefusal(project: string, host: string, facts: NameFacts): string | undefined {
  const holder = nameHolder(host, facts);
  if (isInZone(host, facts.baseDomain)) return holder?.project === project ? undefined : `${host} is in another project's part of ${facts.baseDomain}`;
  if (!holder) return `${host} is held by no project: add its domain and delegate it, or attach it as a custom host name`;
  if (holder.claim === 'domain') {
    if (holder.project !== project) return `${host} is under ${holder.name}, a domain another project holds`;
    return domainServes(facts.projectDomain(project, holder.name), facts.now) ? undefined : `${holder.name} has not been delegated to this project's zone`;
  }
  if (holder.project !== project) return `${host} is a custom host name another project holds`;
  return facts.hostnameActive(project, host) ? undefined : `${host} is not an active custom host name of this project`;
}

/**
 * Whether a domain's apps may be served: delegated now, or found not delegated any more less than
 * {@link DEMOTION_GRACE_MS} ago after having been delegated. A domain never delegated serves nothing.
 */
export function domainServes(domain: ProjectDomain | undefined, now: Date): boolean {
  if (!domain || domain.spec.deleted === true || domain.metadata?.deletionTimestamp || !domain.status?.hostedZoneId) return false;
  if (domain.status.state === 'managed') return true;
  if (!domain.status.delegatedAt) return false;
  const delegated = findCondition(domain.status.conditions, 'Delegated');
  const since = Date.parse(delegated?.lastTransitionTime ?? '');
  return delegated?.status !== 'False' || (Number.isFinite(since) && now.getTime() - since < DEMOTION_GRACE_MS);
}

/**
 * When `domain`'s demotion grace runs out (epoch ms), while it is in one at `now`: from then its apps are not served
 * under it, with nothing else changing, so whoever decides names by `domainServes` decides its apps again then.
 */
export function demotionEndsAt(domain: ProjectDomain, now: Date): number | undefined {
  if (!domainServes(domain, now) || domain.status?.state === 'managed') return undefined;
  const delegated = findCondition(domain.status?.conditions, 'Delegated');
  const since = Date.parse(delegated?.lastTransitionTime ?? '');
  return delegated?.status === 'False' && Number.isFinite(since) ? since + DEMOTION_GRACE_MS : undefined;
}

/** Whether an AppHostname counts for its project: active and not being deleted. */
export function isActiveHostname(h: AppHostname): boolean {
  return h.status?.state === 'active' && !h.metadata?.deletionTimestamp;
}

/**
 * The facts as the API's caches tell them, without the claims themselves: a domain's holder is the project whose
 * domain has a zone and was not refused the name (its claim), a custom host name's the project whose AppHostname
 * is active (activation follows the claim). The runtime and the controllers read the claims.
 */
export function factsFromObjects(domains: readonly ProjectDomain[], hostnamesNamed: (name: string) => readonly AppHostname[], baseDomain: string, now: Date): NameFacts {
  const holding = domains.filter((d) => d.status?.hostedZoneId && holdsName(d));
  const active = (name: string) => hostnamesNamed(name).filter(isActiveHostname);
  return {
    baseDomain,
    now,
    domainHolder: (name) => holding.find((d) => d.spec.domain === name)?.metadata?.namespace,
    hostnameHolder: (name) => active(name)[0]?.metadata?.namespace,
    projectDomain: (project, domain) => holding.find((d) => d.metadata?.namespace === project && d.spec.domain === domain),
    hostnameActive: (project, host) => active(host).some((h) => h.metadata?.namespace === project),
  };
}
