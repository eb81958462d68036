import type { ProjectDomain } from '../../../src/apis/v1alpha1/project-domain.ts';
import type { TlsCertificate } from '../../../src/apis/v1alpha1/tls-certificate.ts';
import { isConflict, isNotFound, type ObjectClient } from '../../../src/kube/index.ts';
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

/**
 * Deletes the certificate `ensureDomainCertificate` made for `domain`, whose finalizer revokes it and deletes its
 * key: a soft-deleted domain is kept as history, so the garbage collector never would. One of that name the domain
 * does not own (a GitOps user's) is left alone.
 */
export async function deleteDomainCertificate(client: ObjectClient<TlsCertificate>, domain: ProjectDomain): Promise<void> {
  const namespace = domain.metadata?.namespace ?? '';
  const name = domainCertificateName(domain);
  const existing = await client.get(namespace, name);
  if (!existing?.metadata?.ownerReferences?.some((ref) => ref.controller && ref.uid === domain.metadata?.uid)) return;
  try {
    await client.delete(namespace, name, { preconditions: { uid: existing.metadata.uid } });
  } catch (err) {
    if (!isNotFound(err) && !isConflict(err)) throw err;
  }
}
