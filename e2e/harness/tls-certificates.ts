// What the certificate controller writes, written by a test: a TlsCertificate owned by an AppHostname or a
// ProjectDomain, in its namespace, with its status replaced through the status subresource. For the tests of
// where the certificate state shows (API views, `cw`, the console), without an ACME CA.
import { randomBytes } from 'node:crypto';
import type { AppHostname } from '../../src/apis/v1alpha1/app-hostname.ts';
import { API_VERSION } from '../../src/apis/v1alpha1/group-version.ts';
import type { ProjectDomain } from '../../src/apis/v1alpha1/project-domain.ts';
import type { TlsCertificate, TlsCertificateStatus } from '../../src/apis/v1alpha1/tls-certificate.ts';
import { loadKubeConnection, objectClient } from '../../src/kube/index.ts';
import { APP_HOSTNAMES, PROJECT_DOMAINS, TLS_CERTIFICATES } from '../../src/platform/resources.ts';

/** Certifies the app hostname `host` of `project` with `status`; answers the certificate's name. */
export async function certifyHostname(kubeconfig: string, project: string, host: string, status: TlsCertificateStatus): Promise<string> {
  const conn = loadKubeConnection(kubeconfig);
  const owner = await objectClient<AppHostname>(conn, APP_HOSTNAMES).get(project, host);
  if (!owner) throw new Error(`no AppHostname ${host} in ${project}`);
  return certify(kubeconfig, 'AppHostname', owner, [host], status);
}

/** Certifies the project domain `domain` of `project` (and its wildcard) with `status`. */
export async function certifyDomain(kubeconfig: string, project: string, domain: string, status: TlsCertificateStatus): Promise<string> {
  const conn = loadKubeConnection(kubeconfig);
  const owner = (await objectClient<ProjectDomain>(conn, PROJECT_DOMAINS).list(project)).items.find((d) => d.spec.domain === domain && !d.spec.deleted);
  if (!owner) throw new Error(`no ProjectDomain ${domain} in ${project}`);
  return certify(kubeconfig, 'ProjectDomain', owner, [domain, `*.${domain}`], status);
}

async function certify(kubeconfig: string, kind: 'AppHostname' | 'ProjectDomain', owner: AppHostname | ProjectDomain, dnsNames: string[], status: TlsCertificateStatus): Promise<string> {
  const certificates = objectClient<TlsCertificate>(loadKubeConnection(kubeconfig), TLS_CERTIFICATES);
  const { namespace = '', name = '', uid = '' } = owner.metadata ?? {};
  const created = await certificates.create({
    apiVersion: API_VERSION,
    kind: 'TlsCertificate',
    metadata: { name: `cert-${randomBytes(4).toString('hex')}`, namespace, ownerReferences: [{ apiVersion: API_VERSION, kind, name, uid, controller: true, blockOwnerDeletion: true }] },
    spec: { dnsNames, ...(kind === 'ProjectDomain' ? { challenge: 'dns-01', domainRef: { name } } : { challenge: 'http-01' }) },
  });
  await certificates.replaceStatus({ ...created, status });
  return created.metadata?.name ?? '';
}
