import type { KindDescriptor } from '../kind-descriptor.ts';
import { AccessTokenKind } from './access-token.ts';
import { AppHostnameKind } from './app-hostname.ts';
import { AppSourceKind } from './app-source.ts';
import { BuildKind } from './build.ts';
import { DatabaseKind } from './database.ts';
import { DnsRecordKind } from './dns-record.ts';
import { DomainClaimKind, HostnameClaimKind } from './domain-claim.ts';
import { GitTokenKind } from './git-token.ts';
import { ProjectDomainKind } from './project-domain.ts';
import { ProjectKind } from './project.ts';
import { RepositoryKind } from './repository.ts';
import { RepositoryWebhookKind } from './repository-webhook.ts';
import { RuntimeAppKind } from './runtime-app.ts';
import { RuntimeReplicaKind } from './runtime-replica.ts';
import { RuntimeReplicaReportKind } from './runtime-replica-report.ts';
import { SourceBuildKind } from './source-build.ts';
import { TlsCertificateKind } from './tls-certificate.ts';
import { UserKind } from './user.ts';

export * from './group-version.ts';
export * from './conditions.ts';
export * from './strings.ts';
export * from './map-of.ts';
export * from './project.ts';
export * from './user.ts';
export * from './access-token.ts';
export * from './runtime-app.ts';
export * from './rollout.ts';
export * from './runtime-replica.ts';
export * from './runtime-replica-report.ts';
export * from './build.ts';
export * from './app-hostname.ts';
export * from './project-domain.ts';
export * from './dns-record.ts';
export * from './domain-claim.ts';
export * from './database.ts';
export * from './repository.ts';
export * from './repository-webhook.ts';
export * from './git-token.ts';
export * from './tls-certificate.ts';
export * from './app-source.ts';
export * from './source-build.ts';
export type { CustomResource, KindDescriptor, PrinterColumn } from '../kind-descriptor.ts';

/**
 * Every kind of `cloudwright.dev/v1alpha1`, in a stable order: the CRD emitter writes one file per
 * entry, the operator starts one controller per reconciled entry, the API server serves them.
 */
export const allKinds: readonly KindDescriptor[] = [
  ProjectKind,
  UserKind,
  AccessTokenKind,
  RuntimeAppKind,
  BuildKind,
  AppHostnameKind,
  ProjectDomainKind,
  DnsRecordKind,
  DomainClaimKind,
  HostnameClaimKind,
  DatabaseKind,
  RepositoryKind,
  RepositoryWebhookKind,
  GitTokenKind,
  RuntimeReplicaKind,
  RuntimeReplicaReportKind,
  TlsCertificateKind,
  AppSourceKind,
  SourceBuildKind,
];
