import { isIP } from 'node:net';
import { isHostname, isNamespace } from '../src/config/checks.ts';
import { DEFAULT_PROJECT_STORED_BUILDS_QUOTA } from '../src/platform/stored-builds-quota.ts';
import { dnsEnv, type DnsEnv } from '../src/config/dns-env.ts';
import { LOG_LEVELS, type LogLevel } from '../src/logging/log.ts';
import { ConfigError, EnvReader, type Env } from '../src/config/env.ts';
import type { S3Config } from '../src/object-store/s3-config.ts';
import { s3ConfigFromEnv } from '../src/object-store/s3-env.ts';
import { tlsSettingsFromEnv, type TlsSettings } from './acme-env.ts';
import { buildSettingsFromEnv, type BuildSettings } from './build-env.ts';
import type { BuildJobSettings } from './controllers/source-build/build-job.ts';
import { buildJobSettingsFromEnv } from './controllers/source-build/job-runner-env.ts';
import type { ProjectAccess } from './controllers/project/operator-access.ts';
import type { GitBucket } from './controllers/repository/bucket.ts';

/** Everything cw-operator reads from its environment, read once at start (`operatorConfig`). */
export interface OperatorConfig {
  /** KUBECONFIG; absent: in-cluster. */
  readonly kubeconfig?: string;
  /** CW_OPERATOR_PORT: metrics and probes (default 8080). */
  readonly port: number;
  /** CW_OPERATOR_HOST: the address they listen on (default every address, as in a pod; `make dev` keeps them to loopback, out of apps' reach). */
  readonly host?: string;
  /** Where the leader-election Lease lives (POD_NAMESPACE, default `default`); `false` (CW_LEADER_ELECTION=false): no Lease. */
  readonly leaderElection: false | { readonly namespace: string };
  /** CW_LOG_LEVEL (default info). */
  readonly logLevel: LogLevel;
  /** HOSTNAME: the pod name, the reporting instance of Events. */
  readonly instance: string;
  /** CW_WATCH_NAMESPACE: reconcile this namespace only (and leave cluster-scoped kinds alone). */
  readonly watchNamespace?: string;
  /** POD_NAMESPACE: the platform's namespace, where cw-runtime's replicas report (default `default`). */
  readonly podNamespace: string;
  /**
   * CW_PROJECT_ROLE: a ClusterRole the Project controller binds, in each project's namespace, to the operator's
   * ServiceAccount (CW_SERVICE_ACCOUNT, default `cloudwright-operator`, in POD_NAMESPACE): the operator's only
   * access to Secrets. Absent: nothing is bound (its own credentials reach project namespaces, as in `make dev`).
   * With it, CW_RUNTIME_PROJECT_ROLE: a ClusterRole bound likewise to the runtime's ServiceAccount
   * (CW_RUNTIME_SERVICE_ACCOUNT, default `cloudwright-runtime`, in POD_NAMESPACE): its only access to Secrets.
   */
  readonly projectAccess?: ProjectAccess;
  /** CW_RUNTIME_BASE_DOMAIN as given; absent: the platform's default. */
  readonly runtimeBaseDomain?: string;
  /**
   * CW_RUNTIME_UNAVAILABLE_GRACE: how long after the last runtime replica went (stopped, or its Lease expired and
   * was removed) apps keep their status before they say RuntimeUnavailable (default 30s; 0: at once).
   */
  readonly runtimeUnavailableGraceMs: number;
  /** The DNS variables (CW_DNS_*, CW_ROUTE53_*, CW_RUNTIME_DNS_*), checked, for `dnsSettingsFromEnv`. */
  readonly dnsEnv: DnsEnv;
  /** CW_GIT_BUCKET with the CW_S3_* settings: the repositories' bucket; absent: no Repository controller. */
  readonly git?: GitBucket;
  /**
   * CW_S3_BUCKET with the CW_S3_* settings: the build-artifact bucket, as cw-api's; the RuntimeApp controller
   * deletes an app's artifacts there before the app goes. Absent: apps get no finalizer, and a deleted app's
   * artifacts stay in the bucket.
   */
  readonly artifacts?: { readonly bucket: string; readonly s3: S3Config };
  /**
   * CW_PROJECT_STORED_BUILDS_QUOTA, as cw-api's: what a project's stored builds may take in that bucket, compressed
   * (default 2 GiB); past it the RuntimeApp controller deletes the project's oldest builds no app keeps.
   */
  readonly projectStoredBuildsQuota: number;
  /**
   * cw-db: CW_DB_URL (its public Hrana address, the start of every database_url), CW_DB_ADMIN_URL, CW_DB_ADMIN_TOKEN,
   * CW_DB_USAGE_REFRESH_SECONDS (how often usage figures are read, default 30), CW_DB_USAGE_SAMPLE_SECONDS (how
   * often a sample is added to the usage history, default 300), CW_DB_APP_TOKEN_ROTATION_SECONDS (the age at which
   * apps' tokens are replaced, default a day) and CW_DB_APP_TOKEN_OVERLAP_SECONDS (how long replaced ones are still
   * accepted, default 900, less than the period); absent: no Database controller.
   */
  /** Certificates for every host (operator/acme-env.ts, CW_ACME_* and CW_TLS_SEALING_KEY); absent: no TlsCertificate controller. */
  readonly tls?: TlsSettings;
  /** Push to deploy (operator/build-env.ts, CW_BUILD_*): needs CW_GIT_BUCKET and CW_S3_BUCKET; absent: no AppSource controllers. */
  readonly builds?: BuildSettings;
  /** With CW_BUILD_RUNNER=job: where and as what build Jobs run (CW_BUILD_JOB_*, required then). */
  readonly buildJobs?: BuildJobSettings;
  readonly databaseEngine?: {
    readonly publicUrl: string;
    readonly adminUrl: string;
    readonly adminToken: string;
    readonly usageRefreshMs: number;
    readonly usageSampleMs: number;
    readonly appTokenRotation: { readonly periodMs: number; readonly overlapMs: number };
  };
}

const NAMESPACE = 'a Kubernetes namespace name';
/** A DNS subdomain (RFC 1123): a ClusterRole's or a ServiceAccount's name as the chart writes them. */
const isObjectName = (text: string) => text.length <= 253 && /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(text);

/**
 * Reads cw-operator's configuration (the variables of {@link OperatorConfig}); the answer is frozen.
 *
 * @throws ConfigError naming the first variable with a bad value.
 */
export function operatorConfig(env: Env): OperatorConfig {
  const read = new EnvReader(env);
  const kubeconfig = read.optional('KUBECONFIG');
  const port = read.port('CW_OPERATOR_PORT', 8080);
  const host = read.matching('CW_OPERATOR_HOST', undefined, (v) => isIP(v) !== 0, 'an IP address (such as 127.0.0.1)');
  const leaderElection = read.bool('CW_LEADER_ELECTION', true);
  const logLevel = read.oneOf('CW_LOG_LEVEL', LOG_LEVELS, 'info');
  const podNamespace = read.matching('POD_NAMESPACE', 'default', isNamespace, NAMESPACE);
  const watchNamespace = read.matching('CW_WATCH_NAMESPACE', undefined, isNamespace, NAMESPACE);
  const projectRole = read.matching('CW_PROJECT_ROLE', undefined, isObjectName, 'a ClusterRole name');
  const serviceAccount = read.matching('CW_SERVICE_ACCOUNT', 'cloudwright-operator', isObjectName, 'a ServiceAccount name');
  const runtimeRole = read.matching('CW_RUNTIME_PROJECT_ROLE', undefined, isObjectName, 'a ClusterRole name');
  const runtimeAccount = read.matching('CW_RUNTIME_SERVICE_ACCOUNT', 'cloudwright-runtime', isObjectName, 'a ServiceAccount name');
  const runtimeBaseDomain = read.matching('CW_RUNTIME_BASE_DOMAIN', undefined, isHostname, 'a host name (such as apps.example.com)');
  const runtimeUnavailableGraceMs = read.durationMs('CW_RUNTIME_UNAVAILABLE_GRACE', 30_000, { min: 0, max: 600_000 });
  const dns = dnsEnv(read);
  const bucket = read.optional('CW_GIT_BUCKET');
  const artifactBucket = read.optional('CW_S3_BUCKET');
  const projectStoredBuildsQuota = read.bytes('CW_PROJECT_STORED_BUILDS_QUOTA', DEFAULT_PROJECT_STORED_BUILDS_QUOTA);
  const s3 = s3ConfigFromEnv(read);
  const dbUrl = read.url('CW_DB_URL');
  const dbAdminUrl = read.url('CW_DB_ADMIN_URL');
  const dbAdminToken = read.optional('CW_DB_ADMIN_TOKEN');
  const tls = tlsSettingsFromEnv(read);
  const builds = buildSettingsFromEnv(read);
  if (builds && (!bucket || !artifactBucket)) throw new ConfigError('CW_BUILD_RUNNER needs CW_GIT_BUCKET (where the sources are) and CW_S3_BUCKET (where builds and their logs go)');
  const buildJobs = builds?.runner === 'job' ? buildJobSettingsFromEnv(env) : undefined;
  if (builds?.runner === 'job' && !buildJobs) throw new ConfigError('CW_BUILD_RUNNER=job needs CW_BUILD_JOB_NAMESPACE and CW_BUILD_JOB_IMAGE (where build Jobs run, and their image)');
  if (tls && !artifactBucket) throw new ConfigError('CW_ACME_DIRECTORY_URL needs CW_S3_BUCKET (certificate keys are sealed in the artifact bucket)');
  if (dbUrl && (!dbAdminUrl || !dbAdminToken)) throw new ConfigError("CW_DB_URL needs CW_DB_ADMIN_URL and CW_DB_ADMIN_TOKEN (the database engine's admin API)");
  return Object.freeze({
    ...(kubeconfig ? { kubeconfig } : {}),
    port,
    ...(host ? { host } : {}),
    leaderElection: leaderElection ? Object.freeze({ namespace: podNamespace }) : false,
    logLevel,
    instance: read.string('HOSTNAME', ''),
    ...(watchNamespace ? { watchNamespace } : {}),
    podNamespace,
    ...(projectRole
      ? {
          projectAccess: Object.freeze({
            clusterRole: projectRole,
            serviceAccount: Object.freeze({ namespace: podNamespace, name: serviceAccount }),
            ...(runtimeRole ? { runtime: Object.freeze({ clusterRole: runtimeRole, serviceAccount: Object.freeze({ namespace: podNamespace, name: runtimeAccount }) }) } : {}),
          }),
        }
      : {}),
    // Lowercased as cw-runtime does: the operator decides the hosts the replicas route (AssignedHosts).
    ...(runtimeBaseDomain ? { runtimeBaseDomain: runtimeBaseDomain.toLowerCase() } : {}),
    runtimeUnavailableGraceMs,
    dnsEnv: dns,
    ...(bucket ? { git: Object.freeze({ bucket, s3 }) } : {}),
    ...(artifactBucket ? { artifacts: Object.freeze({ bucket: artifactBucket, s3 }) } : {}),
    projectStoredBuildsQuota,
    ...(tls ? { tls } : {}),
    ...(builds ? { builds } : {}),
    ...(buildJobs ? { buildJobs } : {}),
    ...(dbUrl && dbAdminUrl && dbAdminToken
      ? {
          databaseEngine: Object.freeze({
            publicUrl: dbUrl,
            adminUrl: dbAdminUrl,
            adminToken: dbAdminToken,
            usageRefreshMs: read.integer('CW_DB_USAGE_REFRESH_SECONDS', 30, { min: 1, max: 86_400 }) * 1000,
            usageSampleMs: read.integer('CW_DB_USAGE_SAMPLE_SECONDS', 300, { min: 1, max: 3600 }) * 1000,
            appTokenRotation: appTokenRotation(read),
          }),
        }
      : {}),
  });
}

/** The app tokens' rotation: an overlap at least as long as the period would leave two replaced sets to accept. */
function appTokenRotation(read: EnvReader): { periodMs: number; overlapMs: number } {
  const periodMs = read.integer('CW_DB_APP_TOKEN_ROTATION_SECONDS', 86_400, { min: 2, max: 31_536_000 }) * 1000;
  const overlapMs = read.integer('CW_DB_APP_TOKEN_OVERLAP_SECONDS', 900, { min: 1, max: 86_400 }) * 1000;
  if (overlapMs >= periodMs) throw new ConfigError('CW_DB_APP_TOKEN_OVERLAP_SECONDS must be less than CW_DB_APP_TOKEN_ROTATION_SECONDS (one replaced set of app tokens is accepted at a time)');
  return { periodMs, overlapMs };
}
