import type { ProjectDomain } from '../../../src/apis/v1alpha1/project-domain.ts';
import type { TlsCertificate } from '../../../src/apis/v1alpha1/tls-certificate.ts';
import type { ObjectClient } from '../../../src/kube/index.ts';
import { ensureOwnedCertificate } from '../owned-certificate.ts';

/** The name of a domain's certificate: never a host name (no dot is added), so never an AppHostname's certificate. */
export function domainCertificateName(domain: ProjectDomain): string {
  return `domain-${domain.metadata?.name ?? ''}`.slice(0, 253);
}

/**
 * A managed domain's certificate: its apex and wildcard (every app host name under it, one level deep), over
 * DNS-01 in its own zone, owned by the ProjectDomain (deleted with it, its finalizer revoking it).
 */
export function ensureDomainCertificate(client: ObjectClient<TlsCertificate>, domain: ProjectDomain): Promise<void> {
  const name = domain.metadata?.name ?? '';
  return ensureOwnedCertificate(
    client,
    domain.metadata?.namespace ?? '',
    domainCertificateName(domain),
    { kind: 'ProjectDomain', name, uid: domain.metadata?.uid ?? '' },
    { dnsNames: [domain.spec.domain, `*.${domain.spec.domain}`], challenge: 'dns-01', domainRef: { name } },
  );
}
