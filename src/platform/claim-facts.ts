import type { AppHostname } from '../apis/v1alpha1/app-hostname.ts';
import type { DomainClaim, HostnameClaim } from '../apis/v1alpha1/domain-claim.ts';
import type { ProjectDomain } from '../apis/v1alpha1/project-domain.ts';
import { isActiveHostname, type NameFacts } from './host-admission.ts';

/**
 * The caches the name claims are read from: the cluster-scoped claims, and the project objects behind them (listed by
 * namespace: one project's, not every one's).
 */
export interface ClaimSources {
  readonly baseDomain: string;
  readonly domains: { list(namespace?: string): readonly ProjectDomain[] };
  readonly hostnames: { list(namespace?: string): readonly AppHostname[] } | undefined;
  readonly domainClaims: { get(key: string): DomainClaim | undefined };
  readonly hostnameClaims: { get(key: string): HostnameClaim | undefined };
}

/**
 * The facts of host admission (`serveRefusal`) as the claims tell them: what cw-runtime serves and what the
 * certificate controller orders certificates for follow the same holders.
 */
export function factsFromClaims(sources: ClaimSources, now: Date = new Date()): NameFacts {
  return {
    baseDomain: sources.baseDomain,
    now,
    domainHolder: (name) => sources.domainClaims.get(name)?.spec.holder.namespace,
    hostnameHolder: (name) => sources.hostnameClaims.get(name)?.spec.holder.namespace,
    projectDomain: (project, domain) => sources.domains.list(project).find((d) => d.metadata?.namespace === project && d.spec.domain === domain && d.spec.deleted !== true),
    hostnameActive: (project, host) => (sources.hostnames?.list(project) ?? []).some((h) => h.metadata?.namespace === project && h.spec.hostname === host && isActiveHostname(h)),
  };
}
