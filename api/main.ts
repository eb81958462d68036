import { createDeviceFlow } from '../src/auth/index.ts';
import type { Project } from '../src/apis/v1alpha1/project.ts';
import type { User } from '../src/apis/v1alpha1/user.ts';
import { createInformerFactory, loadKubeConnection, pingApiServer } from '../src/kube/index.ts';
import type { ObjectStore } from '../src/object-store/object-store.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { createAppServices, DEFAULT_RUNTIME_BASE_DOMAIN } from '../src/platform/app-services.ts';
import { createDomainServices } from './services/domain-services.ts';
import { runtimeTargetFromEnv } from '../src/platform/domains/runtime-target.ts';
import { platformProjectIds } from '../src/platform/host-admission.ts';
import { ProjectDirectory } from './services/projects.ts';
import { resolveWorkerdBinary, workerdCompatibilityDate } from '../src/app-artifacts/workerd-binary.ts';
import { DATABASES, GIT_TOKENS, PROJECTS, USERS } from '../src/platform/resources.ts';
import type { GitToken } from '../src/apis/v1alpha1/git-token.ts';
import { GitTokenDirectory } from '../src/platform/git-tokens.ts';
import type { Database } from '../src/apis/v1alpha1/database.ts';
import { DatabaseDirectory } from '../src/platform/databases/databases.ts';
import { runtimeReplicaView } from '../src/platform/runtime-replica-informers.ts';
import { UserDirectory } from './services/users.ts';
import { KubeDeviceGrantStore, KubeTokenStore } from './stores/index.ts';
import { KubePasswordStore } from './stores/kube-password-store.ts';
import { OpenIdClient } from '../src/auth/openid.ts';
import { platformHostNames, type ApiConfig } from './config.ts';
import { DependencyMonitor, type DependencyCheck } from './dependencies.ts';
import { startMetricsServer } from './metrics-server.ts';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { FastifyBaseLogger } from 'fastify';
import { AppLogSource } from './services/app-log-source.ts';
import { AppMetrics } from './services/app-metrics.ts';
import { ReplicaMetrics } from './services/replica-metrics.ts';
import { runtimeDependency } from './runtime-dependency.ts';
import { UploadSpool } from '../src/platform/upload-spool.ts';
import { startServer } from './server.ts';
import { AuditTrail } from './audit/audit-trail.ts';
import { startAuditPruning } from './audit/audit-pruning.ts';
import { createAppRollouts } from './services/app-rollouts.ts';

/**
 * `cw-api`: the platform API server, with the configuration `apiConfig` read from the environment before
 * anything starts (api/config.ts lists every variable).
 *
 * Build artifacts go to an S3 bucket: CW_S3_BUCKET and the CW_S3_* object store settings.
 * CW_RUNTIME_BASE_DOMAIN (default apps.localhost) is the runtime's base domain: an app's default host is
 * `<appId>.<project>.<base domain>`.
 *
 * Project domains and app hostnames: only the runtime target (CW_RUNTIME_DNS_*; docs/dns.md), to refuse an
 * attach that could not be routed; the DNS provider is the operator's.
 */
export async function main(config: ApiConfig): Promise<void> {
  const kube = loadKubeConnection(config.kubeconfig, 'cw-api');

  // One watch per kind for the whole process: the token store and the project directory share them.
  const informers = createInformerFactory(kube, {
    onError: (resource, err) => process.stderr.write(`cw-api: watch ${resource.plural}: ${err instanceof Error ? err.message : String(err)}\n`),
  });
  const tokens = new KubeTokenStore(kube, { informers });
  const baseDomain = config.runtimeBaseDomain ?? DEFAULT_RUNTIME_BASE_DOMAIN;
  const runtimeTarget = runtimeTargetFromEnv(config.runtimeTargetEnv, baseDomain);
  const projects = new ProjectDirectory(kube, informers.informer<Project>(PROJECTS), platformProjectIds(baseDomain, platformHostNames(config, runtimeTarget.hostname)));
  const users = new UserDirectory(kube, informers.informer<User>(USERS), informers.informer<Project>(PROJECTS), tokens, { invitations: projects });
  const artifacts = config.artifacts ? new S3ObjectStore({ bucket: config.artifacts.bucket, config: config.artifacts.s3 }) : undefined;
  if (!artifacts) process.stderr.write('cw-api: CW_S3_BUCKET is not set: deploys and rollbacks will answer 503, and no audit trail is kept\n');
  const auditTrail = artifacts ? new AuditTrail(artifacts, config.audit.retention) : undefined;
  const leftovers = await UploadSpool.removeLeftovers();
  if (leftovers > 0) process.stderr.write(`cw-api: removed ${leftovers} deploy uploads an earlier process left in the temporary directory\n`);
  const appServices = createAppServices(kube, informers, {
    artifacts,
    baseDomain: config.runtimeBaseDomain,
    maxCompatibilityDate: await newestCompatibilityDate(config.workerdBinary),
    projectUnpackedQuota: config.projectUnpackedQuota,
    projectStoredBuildsQuota: config.projectStoredBuildsQuota,
  });
  const rollouts = createAppRollouts(kube, informers);
  const dns = createDomainServices(kube, informers, { settings: { runtimeTarget }, baseDomain });
  const databases = config.dbUrl ? { databases: new DatabaseDirectory(kube, informers.informer<Database>(DATABASES)), dbUrl: config.dbUrl } : undefined;
  if (!databases) process.stderr.write('cw-api: CW_DB_URL is not set: the database routes are not served\n');
  const gitTokens = new GitTokenDirectory(kube, informers.informer<GitToken>(GIT_TOKENS), informers.informer<Project>(PROJECTS));
  const grants = new KubeDeviceGrantStore(kube, { namespace: config.systemNamespace });
  // cw-runtime's replicas report in the platform's namespace (POD_NAMESPACE): readiness counts them.
  const runtimeReplicas = runtimeReplicaView((resource, labelSelector) => informers.informer(resource, { namespace: config.podNamespace, labelSelector }));
  informers.start();
  await tokens.start(AbortSignal.timeout(60_000));
  await informers.waitForSync(AbortSignal.timeout(60_000));

  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  const dependencies = new DependencyMonitor(
    [
      { name: 'kube-apiserver', check: (signal) => pingApiServer(kube, signal) },
      ...(artifacts ? [objectStoreDependency(artifacts)] : []),
      runtimeDependency(runtimeReplicas),
      ...(config.dbUrl ? [databaseEngineDependency(config.dbUrl)] : []),
    ],
    {
      registry: metrics,
      intervalMs: config.dependencyCheckMs,
      onChange: ({ name, up }) => (up ? log?.info({ dependency: name }, 'dependency up again') : log?.warn({ dependency: name }, 'dependency down')),
    },
  );
  let log: FastifyBaseLogger | undefined;
  if (config.metricsPort !== undefined) await startMetricsServer(metrics, config.metricsPort, config.host);

  const app = await startServer(
    {
      dependencies,
      metrics,
      rateLimit: config.rateLimit,
      uploadLimits: config.uploadLimits,
      logStreamLimits: config.logStreamLimits,
      consoleDir: config.consoleDir,
      // Over plain HTTP (local dev) a Secure cookie would never be sent back.
      sessions: {
        policy: config.sessionPolicy,
        secureCookies: config.publicUrl.startsWith('https:'),
        ...(config.openId ? { openId: { client: new OpenIdClient(config.openId.settings), createUsers: config.openId.createUsers } } : {}),
      },
      platform: {
        tokens,
        projects,
        users,
        deviceFlow: createDeviceFlow({ grants, tokens, verificationUri: `${config.publicUrl}/device` }),
        passwords: new KubePasswordStore(kube, { namespace: config.systemNamespace }),
        ...appServices,
        rollouts,
        ...(artifacts ? { buildLogs: artifacts } : {}),
        dns,
        ...(databases ? { databases } : {}),
        gitTokens: { gitTokens, ...(config.gitPublicUrl ? { gitUrl: config.gitPublicUrl } : {}) },
        appLogs: new AppLogSource(runtimeReplicas, config.runtimeStatusToken),
        appMetrics: new AppMetrics(new ReplicaMetrics(runtimeReplicas, config.runtimeStatusToken)),
        ...(auditTrail ? { audit: auditTrail } : {}),
      },
    },
    { host: config.host, port: config.port, shutdownGraceMs: 10_000, trustProxy: config.trustProxy, logLevel: config.logLevel, connections: config.connections },
  );
  log = app.log;
  // Its timers are unref'd: they never keep the process up past the server's shutdown.
  if (auditTrail) startAuditPruning(auditTrail, config.audit.pruneIntervalMs, app.log);
  // Its timer is unref'd: it never keeps the process up past the server's shutdown.
  await dependencies.start();
}

/** cw-db's health endpoint: the database routes need the engine. */
function databaseEngineDependency(dbUrl: string): DependencyCheck {
  return {
    name: 'database engine',
    check: async (signal) => {
      const response = await fetch(`${dbUrl.replace(/\/+$/, '')}/health`, { signal });
      if (!response.ok) throw new Error(`cw-db answered ${response.status}`);
    },
  };
}

/** One key of the bucket listed: deploys need it. */
function objectStoreDependency(store: ObjectStore): DependencyCheck {
  return {
    name: 'object-store',
    check: (signal) =>
      Promise.race([
        store.list('apps/', { limit: 1 }).then(() => undefined),
        new Promise<never>((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true })),
      ]),
  };
}

/**
 * The newest compatibility date the installed workerd supports, so a deploy naming a later one is refused
 * at upload rather than when the runtime loads it. Best effort: without workerd the runtime still checks.
 */
async function newestCompatibilityDate(workerdBinary: string | undefined): Promise<string | undefined> {
  try {
    return await workerdCompatibilityDate(resolveWorkerdBinary(workerdBinary));
  } catch (err) {
    process.stderr.write(`cw-api: cannot ask workerd for its compatibility date (${err instanceof Error ? err.message : String(err)}); deploys are checked by the runtime only\n`);
    return undefined;
  }
}
