import { API_VERSION } from '../../../src/apis/v1alpha1/group-version.ts';
import type { ProjectDomain } from '../../../src/apis/v1alpha1/project-domain.ts';
import type { TlsCertificate } from '../../../src/apis/v1alpha1/tls-certificate.ts';
import { isAlreadyExists, type ObjectClient } from '../../../src/kube/index.ts';

/** The name of a domain's certificate: never a host name (no dot is added), so never an AppHostname's certificate. */
export function domainCertificateName(domain: ProjectDomain): string {
  return `domain-${domain.metadata?.name ?? ''}`.slice(0, 253);
}

/**
 * A managed domain's certificate: its apex and wildcard (every app host name under it, one level deep), over
 * DNS-01 in its own zone, owned by the ProjectDomain (deleted with it, its finalizer revoking it). The
 * ProjectDomain controller writes its spec; a TlsCertificate of that name someone else made is left alone.
 */
export async function ensureDomainCertificate(client: ObjectClient<TlsCertificate>, domain: ProjectDomain): Promise<void> {
  const namespace = domain.metadata?.namespace ?? '';
  const name = domainCertificateName(domain);
  const spec = { dnsNames: [domain.spec.domain, `*.${domain.spec.domain}`], challenge: 'dns-01' as const, domainRef: { name: domain.metadata?.name ?? '' } };
  const existing = await client.get(namespace, name);
  if (existing) return;
  await client
    .create({
      apiVersion: API_VERSION,
      kind: 'TlsCertificate',
      metadata: {
        namespace,
        name,
        ownerReferences: [{ apiVersion: API_VERSION, kind: 'ProjectDomain', name: domain.metadata?.name ?? '', uid: domain.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true }],
      },
      spec,
    })
    .catch((err: unknown) => {
      if (!isAlreadyExists(err)) throw err;
    });
}
