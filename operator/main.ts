import { projectAccounts } from '../src/platform/project-account.ts';
import type { Build } from '../src/apis/v1alpha1/build.ts';
import { createLogger } from '../src/logging/log.ts';
import type { Project } from '../src/apis/v1alpha1/project.ts';
import type { Repository } from '../src/apis/v1alpha1/repository.ts';
import type { RuntimeApp } from '../src/apis/v1alpha1/runtime-app.ts';
import { eventWriter, loadKubeConnection, RESOURCE_QUOTAS, ROLE_BINDINGS, type KubeObject } from '../src/kube/index.ts';
import type { Database } from '../src/apis/v1alpha1/database.ts';
import { databaseEngineClient } from '../src/platform/databases/engine-client.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { databaseController } from './controllers/database/controller.ts';
import type { AppHostname } from '../src/apis/v1alpha1/app-hostname.ts';
import type { DnsRecord } from '../src/apis/v1alpha1/dns-record.ts';
import type { ProjectDomain } from '../src/apis/v1alpha1/project-domain.ts';
import { DEFAULT_RUNTIME_BASE_DOMAIN } from '../src/platform/app-services.ts';
import { dnsSettingsFromEnv } from './dns-settings.ts';
import {
  APP_HOSTNAMES,
  BUILDS,
  DATABASES,
  DNS_RECORDS,
  DOMAIN_CLAIMS,
  HOSTNAME_CLAIMS,
  NAMESPACES,
  PROJECT_DOMAINS,
  PROJECT_LABEL,
  PROJECTS,
  REPOSITORIES,
  RUNTIME_APPS,
  TLS_CERTIFICATES,
} from '../src/platform/resources.ts';
import type { DomainClaim, HostnameClaim } from '../src/apis/v1alpha1/domain-claim.ts';
import type { TlsCertificate } from '../src/apis/v1alpha1/tls-certificate.ts';
import { SealedStore } from '../src/tls/sealed-store.ts';
import { tlsCertificateController } from './controllers/tls-certificate/controller.ts';
import type { ResourceQuota } from '../src/platform/project-quota.ts';
import { projectOfNamespace } from './controllers/project/project-namespace.ts';
import { runtimeReplicaView } from '../src/platform/runtime-replica-informers.ts';
import { appHostnameController } from './controllers/app-hostname/controller.ts';
import { projectDomainController } from './controllers/project-domain/controller.ts';
import { projectController } from './controllers/project/controller.ts';
import type { RoleBinding } from './controllers/project/operator-access.ts';
import { repositoryController } from './controllers/repository/controller.ts';
import { repositoryStore } from './controllers/repository/bucket.ts';
import { runtimeAppController } from './controllers/runtime-app/controller.ts';
import { runtimeReplicaController } from './controllers/runtime-replica/controller.ts';
import { EventRecorder } from '../src/controller-runtime/events.ts';
import { Manager, runManager } from '../src/controller-runtime/manager.ts';
import type { OperatorConfig } from './config.ts';
import { addPushToDeploy } from './push-to-deploy.ts';
import { JobRunner } from './controllers/source-build/job-runner.ts';

/**
 * `cw-operator`: every Cloudwright controller in one process, with the configuration `operatorConfig` read
 * from the environment before anything starts (operator/config.ts lists every variable): KUBECONFIG,
 * CW_OPERATOR_PORT, POD_NAMESPACE (the leader-election Lease, and where cw-runtime's replicas report as
 * RuntimeReplicas, so no runtime address is configured) and CW_LEADER_ELECTION, CW_WATCH_NAMESPACE,
 * CW_GIT_BUCKET with the CW_S3_* settings for the repositories' bucket. Project domains and app hostnames:
 * the DNS settings of `dnsSettingsFromEnv` (CW_DNS_*, CW_ROUTE53_*, CW_RUNTIME_DNS_*, with
 * CW_RUNTIME_BASE_DOMAIN; docs/dns.md), CW_DNS_RECHECK_INTERVAL_SECONDS among them. CW_PROJECT_ROLE and
 * CW_SERVICE_ACCOUNT: the operator's access in each project's namespace (operator/config.ts). CW_S3_BUCKET
 * (with the CW_S3_* settings): the build-artifact bucket, whose artifacts of a deleted app the RuntimeApp
 * controller deletes. CW_ACME_* with CW_TLS_SEALING_KEY (operator/acme-env.ts): the TlsCertificate controller,
 * which seals certificate keys in that bucket.
 */
/**
 * The operator's Lease, twice client-go's timings: a leader gives up after 20 s of failed renewals, not 10, as a new
 * leader starved of CPU on a busy node (a standby taking over while a pod starts and builds run beside it) lost its
 * lease and restarted. A handover on a graceful stop is at once (the Lease is released); after a leader dies, 30 s.
 */
const OPERATOR_LEASE = { leaseDurationMs: 30_000, renewDeadlineMs: 20_000, retryPeriodMs: 2_000 };

export async function main(config: OperatorConfig): Promise<void> {
  const kube = loadKubeConnection(config.kubeconfig, 'cw-operator');
  const manager = new Manager({
    kube,
    port: config.port,
    ...(config.host ? { host: config.host } : {}),
    leaderElection: config.leaderElection && { namespace: config.leaderElection.namespace, name: 'cloudwright-operator', ...OPERATOR_LEASE },
    log: createLogger({ level: config.logLevel }),
  });
  const events = new EventRecorder({ writer: eventWriter(kube), component: 'cloudwright-operator', instance: config.instance, log: manager.log });
  const common = { kube, registry: manager.registry, events };

  // CW_WATCH_NAMESPACE confines the operator to one namespace (and leaves cluster-scoped kinds alone).
  const watchNamespace = config.watchNamespace;
  const scope = watchNamespace ? { namespace: watchNamespace } : {};
  // The runtime replicas publish what they serve in the platform's namespace, whoever scaled them.
  // Without the artifact bucket apps get no finalizer: their deletion is not held up by what cannot be done.
  const artifacts = config.artifacts && new S3ObjectStore({ bucket: config.artifacts.bucket, registry: manager.registry, config: config.artifacts.s3 });
  if (!artifacts) manager.log.info('runtime apps get no artifact finalizer: CW_S3_BUCKET is not set, so deleting an app leaves its build artifacts in the bucket');
  const replicas = runtimeReplicaView((resource, selector) => manager.informer(resource, { namespace: config.podNamespace, labelSelector: selector }), { reports: true });
  // Who created each project: one user's projects share what is bounded per account (migration runs' turns,
  // cw-db's shares, the ProjectDomain controller's workers).
  const projects = watchNamespace ? undefined : manager.informer<Project>(PROJECTS);
  const accounts = projects ? { accounts: projectAccounts(projects) } : {};
  manager.add(
    runtimeAppController({
      ...common,
      apps: manager.informer<RuntimeApp>(RUNTIME_APPS, scope),
      replicas,
      hosts: {
        hostnames: manager.informer<AppHostname>(APP_HOSTNAMES, scope),
        domains: manager.informer<ProjectDomain>(PROJECT_DOMAINS, scope),
        domainClaims: manager.informer<DomainClaim>(DOMAIN_CLAIMS),
        hostnameClaims: manager.informer<HostnameClaim>(HOSTNAME_CLAIMS),
        baseDomain: config.runtimeBaseDomain ?? DEFAULT_RUNTIME_BASE_DOMAIN,
      },
      unavailableGraceMs: config.runtimeUnavailableGraceMs,
      builds: manager.informer<Build>(BUILDS, scope),
      ...(artifacts ? { artifacts } : {}),
      projectStoredBuildsQuota: config.projectStoredBuildsQuota,
      ...accounts,
      log: manager.log.child({ controller: 'runtimeapp' }),
    }),
  );
  manager.add(runtimeReplicaController({ ...common, replicas, log: manager.log.child({ controller: 'runtimereplica' }) }));
  const dns = dnsSettingsFromEnv(config.dnsEnv, config.runtimeBaseDomain ?? DEFAULT_RUNTIME_BASE_DOMAIN);
  const dnsInformers = {
    domains: manager.informer<ProjectDomain>(PROJECT_DOMAINS, scope),
    records: manager.informer<DnsRecord>(DNS_RECORDS, scope),
    hostnames: manager.informer<AppHostname>(APP_HOSTNAMES, scope),
  };
  const tls = config.tls !== undefined && artifacts !== undefined;
  manager.add(projectDomainController({ ...common, ...dnsInformers, settings: dns, tls, ...accounts, log: manager.log.child({ controller: 'projectdomain' }) }));
  manager.add(
    appHostnameController({
      ...common,
      ...dnsInformers,
      apps: manager.informer<RuntimeApp>(RUNTIME_APPS, scope),
      settings: dns,
      tls,
      log: manager.log.child({ controller: 'apphostname' }),
    }),
  );
  if (!config.tls) manager.log.info('TLS certificate controller not started: CW_ACME_DIRECTORY_URL is not set');
  else if (artifacts)
    manager.add(
      tlsCertificateController({
        ...common,
        certificates: manager.informer<TlsCertificate>(TLS_CERTIFICATES, scope),
        hostnames: dnsInformers.hostnames,
        domains: dnsInformers.domains,
        domainClaims: manager.informer<DomainClaim>(DOMAIN_CLAIMS),
        hostnameClaims: manager.informer<HostnameClaim>(HOSTNAME_CLAIMS),
        records: dnsInformers.records,
        ...(config.tls.baseZoneId ? { baseZone: { provider: dns.provider, zoneId: config.tls.baseZoneId } } : {}),
        baseDomain: config.runtimeBaseDomain ?? DEFAULT_RUNTIME_BASE_DOMAIN,
        acme: config.tls.acme,
        sealed: new SealedStore(artifacts, config.tls.sealingKey),
        ...(config.tls.http01SelfCheckUrl ? { http01SelfCheckUrl: config.tls.http01SelfCheckUrl } : {}),
        ordersPerHour: config.tls.ordersPerHour,
        log: manager.log.child({ controller: 'tlscertificate' }),
      }),
    );
  if (!watchNamespace)
    manager.add(
      projectController({
        ...common,
        projects: manager.informer<Project>(PROJECTS),
        namespaces: manager.informer<KubeObject>(NAMESPACES, { labelSelector: PROJECT_LABEL }),
        ...(tls && config.tls?.baseZoneId ? { defaultHostsCertificate: { baseDomain: config.runtimeBaseDomain ?? DEFAULT_RUNTIME_BASE_DOMAIN } } : {}),
        quotas: manager.informer<ResourceQuota>(RESOURCE_QUOTAS, { labelSelector: PROJECT_LABEL }),
        ...(config.projectAccess ? { access: { project: config.projectAccess, bindings: manager.informer<RoleBinding>(ROLE_BINDINGS, { labelSelector: PROJECT_LABEL }) } } : {}),
        log: manager.log.child({ controller: 'project' }),
      }),
    );
  // Repositories live in cw-git's bucket; without one the controller is not started, and the log says why.
  const git = repositoryStore(config.git, manager.registry);
  if ('disabled' in git) manager.log.info(`repository controller not started: ${git.disabled}`);
  else
    manager.add(
      repositoryController({
        ...common,
        store: git.store,
        // A project's namespace holds only its own repositories ({project}/…), whatever its tenants apply there.
        projectOfNamespace: projectOfNamespace(manager.informer<KubeObject>(NAMESPACES, { labelSelector: PROJECT_LABEL })),
        repositories: manager.informer<Repository>(REPOSITORIES, scope),
        log: manager.log.child({ controller: 'repository' }),
      }),
    );
  const { buildJobs } = config;
  if (!config.builds) manager.log.info('push to deploy not started: CW_BUILD_RUNNER is not set');
  else if (artifacts && config.artifacts && !('disabled' in git))
    addPushToDeploy({
      manager,
      kube,
      events,
      settings: config.builds,
      repos: git.store.repos,
      artifacts,
      artifactBucket: config.artifacts,
      projectStoredBuildsQuota: config.projectStoredBuildsQuota,
      baseDomain: config.runtimeBaseDomain ?? DEFAULT_RUNTIME_BASE_DOMAIN,
      scope,
      ...(buildJobs ? { jobRunner: () => new JobRunner({ conn: kube, settings: buildJobs, log: manager.log.child({ controller: 'sourcebuild' }) }) } : {}),
    });
  const engine = config.databaseEngine;
  if (!engine) manager.log.info('database controller not started: CW_DB_URL is not set');
  else
    manager.add(
      databaseController({
        ...common,
        databases: manager.informer<Database>(DATABASES, scope),
        engine: databaseEngineClient({ adminUrl: engine.adminUrl, token: engine.adminToken }),
        dbUrl: engine.publicUrl,
        usageRefreshMs: engine.usageRefreshMs,
        usageSampleMs: engine.usageSampleMs,
        appTokenRotation: engine.appTokenRotation,
        ...accounts,
        log: manager.log.child({ controller: 'database' }),
      }),
    );
  await runManager(manager);
}
