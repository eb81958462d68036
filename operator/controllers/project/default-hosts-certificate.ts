import type { Project } from '../../../src/apis/v1alpha1/project.ts';
import type { TlsCertificate } from '../../../src/apis/v1alpha1/tls-certificate.ts';
import type { ObjectClient } from '../../../src/kube/index.ts';
import { ensureOwnedCertificate } from '../owned-certificate.ts';

/** The certificate of a project's default hosts, in its namespace: a name no host name or domain certificate has (no dot). */
export const DEFAULT_HOSTS_CERTIFICATE = 'default-hosts';

/**
 * A project's wildcard for its apps' default hosts, `*.<project>.<base>`: one certificate per project rather than
 * one per app keeps the count Let's Encrypt limits per registered domain (50 a week) to one per new project (an
 * installation with more should put its base domain on the Public Suffix List: docs/tls.md). DNS-01 in the
 * platform's zone for the base domain; owned by the Project.
 */
export function ensureDefaultHostsCertificate(client: ObjectClient<TlsCertificate>, project: Project, baseDomain: string): Promise<void> {
  const name = project.metadata?.name ?? '';
  return ensureOwnedCertificate(client, name, DEFAULT_HOSTS_CERTIFICATE, { kind: 'Project', name, uid: project.metadata?.uid ?? '' }, { dnsNames: [`*.${name}.${baseDomain}`], challenge: 'dns-01' });
}
