import { hostname } from 'node:os';
import { DNS_SUBDOMAIN_PATTERN, HOSTNAME_PATTERN } from '../../src/apis/v1alpha1/strings.ts';
import type { S3Config } from '../../src/object-store/s3-config.ts';
import { s3ConfigFromEnv } from '../../src/object-store/s3-env.ts';
import { DEFAULT_REPLICA_LEASE_SECONDS } from '../../src/platform/runtime-replicas.ts';
import type { LogLevel } from '../controller-runtime/log.ts';
import type { ReplicaIdentity } from './replica-publisher.ts';

/** cw-runtime's settings, all from the environment (see `docs/runtime.md`, "Running the runtime"). */
export interface RuntimeServerConfig {
  /** Path of a kubeconfig; absent: client-node's default chain (in-cluster service account). */
  readonly kubeconfig?: string;
  /** Serve one namespace's apps only (tests); absent: every namespace. */
  readonly watchNamespace?: string;
  /** The entry point (apps by `Host`). */
  readonly port: number;
  readonly host: string;
  /** Probes, metrics and `/apps/{namespace}/{app}`. */
  readonly statusPort: number;
  readonly statusHost: string;
  /** Default hosts are `<app>.<project>.<baseDomain>`. */
  readonly baseDomain: string;
  /** How clients reach the entry point: the scheme and port of each app's `url`. */
  readonly publicScheme: 'http' | 'https';
  readonly publicPort?: number;
  /** Where builds are unpacked and workerd's sockets live; absent: a fresh temporary directory. */
  readonly dataDir?: string;
  readonly s3: S3Config;
  readonly bucket: string;
  readonly workers: number;
  readonly trustForwardedHeaders: boolean;
  readonly logLevel: LogLevel;
  /** Who this replica is, where it publishes its RuntimeReplica and Lease (the platform's namespace). */
  readonly replica: ReplicaIdentity;
  /** How long after its last renewal the replica's lease expires (it renews every quarter of this). */
  readonly leaseDurationSeconds: number;
}

const LOG_LEVELS: readonly string[] = ['debug', 'info', 'warn', 'error'];

/** Reads the configuration; throws one error naming every problem. */
export function runtimeServerConfig(env: NodeJS.ProcessEnv, host: { hostname: string; pid: number } = { hostname: hostname(), pid: process.pid }): RuntimeServerConfig {
  const problems: string[] = [];
  const port = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0 || value > 65535) problems.push(`${name} must be a port number, not ${JSON.stringify(raw)}`);
    return value;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (raw !== 'true' && raw !== 'false') problems.push(`${name} must be true or false, not ${JSON.stringify(raw)}`);
    return raw === 'true';
  };

  const baseDomain = (env.CW_RUNTIME_BASE_DOMAIN || 'apps.localhost').toLowerCase();
  if (!new RegExp(HOSTNAME_PATTERN).test(baseDomain)) problems.push(`CW_RUNTIME_BASE_DOMAIN must be a host name, not ${JSON.stringify(baseDomain)}`);
  const publicScheme = env.CW_RUNTIME_PUBLIC_SCHEME || 'https';
  if (publicScheme !== 'http' && publicScheme !== 'https') problems.push(`CW_RUNTIME_PUBLIC_SCHEME must be http or https, not ${JSON.stringify(publicScheme)}`);
  const givenPublicPort = env.CW_RUNTIME_PUBLIC_PORT ? port('CW_RUNTIME_PUBLIC_PORT', 0) : undefined;
  // The scheme's own port is left out of URLs, as browsers do.
  const publicPort = givenPublicPort === (publicScheme === 'http' ? 80 : 443) ? undefined : givenPublicPort;
  const workers = Number(env.CW_RUNTIME_WORKERS || 64);
  if (!Number.isInteger(workers) || workers < 1) problems.push(`CW_RUNTIME_WORKERS must be a positive integer, not ${JSON.stringify(env.CW_RUNTIME_WORKERS)}`);
  const logLevel = env.CW_LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`CW_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  // In a cluster the pod's name and uid (downward API); elsewhere one name per process, so two processes on one
  // machine are two replicas.
  const replicaName = env.POD_NAME || env.CW_RUNTIME_REPLICA_NAME || `${host.hostname.toLowerCase().replace(/[^-a-z0-9.]+/g, '-').replace(/^[-.]+|[-.]+$/g, '')}-${host.pid}`;
  if (!new RegExp(DNS_SUBDOMAIN_PATTERN).test(replicaName) || replicaName.length > 253) problems.push(`the replica name must be a DNS subdomain, not ${JSON.stringify(replicaName)}`);
  const replicaNamespace = env.POD_NAMESPACE || 'default';
  const leaseDurationSeconds = Number(env.CW_RUNTIME_LEASE_DURATION_SECONDS || DEFAULT_REPLICA_LEASE_SECONDS);
  if (!Number.isInteger(leaseDurationSeconds) || leaseDurationSeconds < 2) problems.push(`CW_RUNTIME_LEASE_DURATION_SECONDS must be an integer of at least 2, not ${JSON.stringify(env.CW_RUNTIME_LEASE_DURATION_SECONDS)}`);

  const bucket = env.CW_S3_BUCKET ?? '';
  if (!bucket) problems.push('CW_S3_BUCKET is required (the bucket the API server stores build artifacts in)');
  const s3 = s3ConfigFromEnv(env, problems);

  const config: RuntimeServerConfig = {
    ...(env.KUBECONFIG ? { kubeconfig: env.KUBECONFIG } : {}),
    ...(env.CW_WATCH_NAMESPACE ? { watchNamespace: env.CW_WATCH_NAMESPACE } : {}),
    port: port('CW_RUNTIME_PORT', 8080),
    host: env.CW_RUNTIME_HOST || '0.0.0.0',
    statusPort: port('CW_RUNTIME_STATUS_PORT', 8081),
    statusHost: env.CW_RUNTIME_STATUS_HOST || '0.0.0.0',
    baseDomain,
    publicScheme: publicScheme === 'http' ? 'http' : 'https',
    ...(publicPort !== undefined ? { publicPort } : {}),
    ...(env.CW_RUNTIME_DATA_DIR ? { dataDir: env.CW_RUNTIME_DATA_DIR } : {}),
    s3,
    bucket,
    workers,
    trustForwardedHeaders: bool('CW_RUNTIME_TRUST_FORWARDED_HEADERS', false),
    logLevel: logLevel as LogLevel,
    replica: {
      namespace: replicaNamespace,
      name: replicaName,
      ...(env.POD_NAME && env.POD_UID ? { pod: { name: env.POD_NAME, uid: env.POD_UID } } : {}),
    },
    leaseDurationSeconds,
  };
  if (problems.length > 0) throw new Error(`invalid configuration: ${problems.join('; ')}`);
  return config;
}
