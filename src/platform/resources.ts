import type { KindDescriptor } from '../apis/kind-descriptor.ts';
import {
  AccessTokenKind,
  AppHostnameKind,
  AppSourceKind,
  BuildKind,
  DatabaseKind,
  DnsRecordKind,
  DomainClaimKind,
  GitTokenKind,
  HostnameClaimKind,
  ProjectDomainKind,
  ProjectKind,
  RepositoryKind,
  RepositoryWebhookKind,
  RuntimeAppKind,
  RuntimeReplicaKind,
  RuntimeReplicaReportKind,
  SourceBuildKind,
  TlsCertificateKind,
  UserKind,
} from '../apis/v1alpha1/index.ts';
import { customResource, type ResourceRef } from '../kube/index.ts';

/** Where a kind lives on the apiserver, from its descriptor alone (the one place its plural and scope are written). */
export function resourceOf(kind: KindDescriptor): ResourceRef {
  return customResource(kind.kind, kind.plural, kind.scope === 'Namespaced');
}

/** Where each Cloudwright kind lives on the apiserver. */
export const PROJECTS: ResourceRef = resourceOf(ProjectKind);
export const USERS: ResourceRef = resourceOf(UserKind);
export const ACCESS_TOKENS: ResourceRef = resourceOf(AccessTokenKind);
export const RUNTIME_APPS: ResourceRef = resourceOf(RuntimeAppKind);
export const BUILDS: ResourceRef = resourceOf(BuildKind);
export const APP_HOSTNAMES: ResourceRef = resourceOf(AppHostnameKind);
export const PROJECT_DOMAINS: ResourceRef = resourceOf(ProjectDomainKind);
export const DNS_RECORDS: ResourceRef = resourceOf(DnsRecordKind);
export const DOMAIN_CLAIMS: ResourceRef = resourceOf(DomainClaimKind);
export const HOSTNAME_CLAIMS: ResourceRef = resourceOf(HostnameClaimKind);
export const DATABASES: ResourceRef = resourceOf(DatabaseKind);
export const REPOSITORIES: ResourceRef = resourceOf(RepositoryKind);
export const REPOSITORY_WEBHOOKS: ResourceRef = resourceOf(RepositoryWebhookKind);
export const GIT_TOKENS: ResourceRef = resourceOf(GitTokenKind);
export const RUNTIME_REPLICAS: ResourceRef = resourceOf(RuntimeReplicaKind);
export const RUNTIME_REPLICA_REPORTS: ResourceRef = resourceOf(RuntimeReplicaReportKind);
export const TLS_CERTIFICATES: ResourceRef = resourceOf(TlsCertificateKind);
export const APP_SOURCES: ResourceRef = resourceOf(AppSourceKind);
export const SOURCE_BUILDS: ResourceRef = resourceOf(SourceBuildKind);
export { NAMESPACES } from '../kube/index.ts';

/** The kinds a project's namespace holds; a project with any of them is not deleted (see projects.ts). */
export const PROJECT_CONTENTS: readonly ResourceRef[] = [RUNTIME_APPS, DATABASES, PROJECT_DOMAINS, REPOSITORIES];

/** Label on namespaces (and every object we create) naming the owning project. */
export const PROJECT_LABEL = 'cloudwright.dev/project';
