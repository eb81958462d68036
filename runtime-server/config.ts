import { createHash } from 'node:crypto';
import { connectionLimitsFromEnv, type ConnectionLimits } from '../src/connection-guard.ts';
import { availableParallelism, hostname } from 'node:os';
import { DNS_SUBDOMAIN_PATTERN } from '../src/apis/v1alpha1/strings.ts';
import { DEFAULT_ARTIFACT_LIMITS } from '../src/app-artifacts/artifact.ts';
import { addressList } from '../src/address-range.ts';
import { isHostname, isNamespace } from '../src/config/checks.ts';
import { ConfigError, EnvReader, type Env } from '../src/config/env.ts';
import { runtimeStatusToken } from '../src/config/status-token-env.ts';
import { MIN_SHARED_SECRET_LENGTH } from '../src/auth/shared-secret.ts';
import type { S3Config } from '../src/object-store/s3-config.ts';
import { s3ConfigFromEnv } from '../src/object-store/s3-env.ts';
import { DEFAULT_REPLICA_LEASE_SECONDS } from '../src/platform/runtime-replicas.ts';
import { DEFAULT_PROJECT_UNPACKED_QUOTA } from '../src/platform/build-quota.ts';
import { DEFAULT_ASSET_RULES_PER_SHARD } from './engine/asset-rules-budget.ts';
import type { ForwardedTrust } from './engine/forwarded-trust.ts';
import { DEFAULT_PREPARE_CONCURRENCY } from './engine/build-store.ts';
import { LOG_LEVELS, type LogLevel } from '../src/logging/log.ts';
import type { ReplicaIdentity } from './replica-publisher.ts';
import { httpsConfig, type HttpsConfig } from './tls/https-config.ts';
import { DEFAULT_WEBSOCKETS_PER_PROJECT } from './engine/websocket-budget.ts';
import { DEFAULT_REQUEST_BODY_TIMEOUT_MS } from './engine/request-bodies.ts';
import { containerMemoryLimit, fittedShardMemoryMb, ownReserveBytes } from './memory-budget.ts';

/** cw-runtime's settings, all from the environment, read once at start (see `docs/runtime.md`, "Running the runtime"). */
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
  /** How cw-api reaches the status port (app logs), when given (CW_RUNTIME_STATUS_URL); else the server builds it from `podIP`. */
  readonly statusURL?: string;
  /** The pod's address (downward API), where cw-api reaches the status port in a cluster. */
  readonly podIP?: string;
  /** The secret cw-api presents to read apps' reports and logs on the status port (CW_RUNTIME_STATUS_TOKEN); absent: nobody may. */
  readonly statusToken?: string;
  /**
   * The secret rollout affinity cookies are signed with, the same on every replica so each honours the others'
   * cookies: CW_RUNTIME_AFFINITY_KEY, else derived from the status token (which every replica shares); absent
   * both, one of the process's own (a cookie holds on this replica until it restarts).
   */
  readonly affinityKey?: string;
  /** Default hosts are `<app>.<project>.<baseDomain>`. */
  readonly baseDomain: string;
  /** How clients reach the entry point: the scheme and port of each app's `url`. */
  readonly publicScheme: 'http' | 'https';
  readonly publicPort?: number;
  /**
   * The port clients reach HTTPS on, for the `Location` of an app's redirect to HTTPS (CW_RUNTIME_PUBLIC_HTTPS_PORT;
   * default: the public port when the public scheme is https, else 443).
   */
  readonly publicHttpsPort: number;
  /** Where builds are unpacked and workerd's sockets live; absent: a fresh temporary directory. */
  readonly dataDir?: string;
  /** The data directory's size (its volume's): builds may take {@link BUILDS_SHARE} of it, the rest is workerd's. */
  readonly dataDirSizeBytes: number;
  /** Builds fetched and unpacked at once. */
  readonly prepareConcurrency: number;
  /** What one project's unpacked builds may take on this replica (the same figure cw-api checks deploys against). */
  readonly projectUnpackedQuota: number;
  /** Log streams of one app one caller (an address) may follow at once on the status port. */
  readonly logStreamsPerCaller: number;
  readonly s3: S3Config;
  readonly bucket: string;
  readonly workers: number;
  /** CW_RUNTIME_TRUST_FORWARDED_HEADERS: whose `X-Forwarded-*` the entry point keeps (`forwarded-trust.ts`). */
  readonly trustForwardedHeaders: ForwardedTrust;
  /**
   * CW_RUNTIME_OUTBOUND_DENY: CIDRs apps may never reach, public ones included (a cluster's own NAT64 prefix), on top
   * of the IPv6 forms of private IPv4 addresses every workerd denies (`TRANSLATED_PRIVATE_DENY`, engine/dispatcher/config.ts).
   */
  readonly outboundDeny: readonly string[];
  /** CW_RUNTIME_MAX_CONNECTIONS and CW_RUNTIME_MAX_CONNECTIONS_PER_PEER: what the entry point's listeners hold at once. */
  readonly connections: ConnectionLimits;
  /** WebSockets each project holds open on the replica at once (CW_RUNTIME_WEBSOCKETS_PER_PROJECT, 1,000). */
  readonly webSocketsPerProject: number;
  /** CW_RUNTIME_REQUEST_BODY_TIMEOUT: the time a request's body has to arrive at the entry point (60 s; 0: Node's 300 s). */
  readonly requestBodyTimeoutMs: number;
  readonly logLevel: LogLevel;
  /** CW_WORKERD_BIN; absent: the installed `@cloudflare/workerd-*` package's binary. */
  readonly workerdBinary?: string;
  /** Who this replica is, where it publishes its RuntimeReplica and Lease (the platform's namespace). */
  readonly replica: ReplicaIdentity;
  /** How long after its last renewal the replica's lease expires (it renews every quarter of this). */
  readonly leaseDurationSeconds: number;
  /** workerd processes serving apps, the projects spread over them (default: one per core). */
  readonly shards: number;
  /** The bounds on apps' code (docs/runtime.md, "Bounded user code"). */
  /** `shardMemoryMb` as it applies; `configuredShardMemoryMb` when that is lower than configured, to fit the container. */
  readonly limits: {
    readonly cpuLimitMs: number;
    readonly startupLimitMs: number;
    /** CPU time each project's cold starts may take a minute on the replica (0: no bound). */
    readonly startupBudgetMsPerMinute: number;
    readonly sustainedWindowMs: number;
    readonly isolateHeapMb: number;
    readonly shardMemoryMb: number;
    readonly configuredShardMemoryMb?: number;
  };
  /** An app's first quarantine, doubling with each offence up to `maxMs`. */
  readonly quarantine: { readonly initialMs: number; readonly maxMs: number };
  /**
   * The platform's SQL endpoint as apps reach it (CW_RUNTIME_DATABASE_URL, else CW_DB_URL): the one private
   * destination their `fetch()` may have (`database-egress.ts`); absent: none.
   */
  readonly databaseUrl?: string;
  /** The HTTPS listener beside the entry point (`tls/https-config.ts`); absent: HTTP only (TLS ends at an ingress). */
  readonly https?: HttpsConfig;
  /** Apps served on demand (docs/runtime.md, "Apps served on demand"); absent (CW_RUNTIME_ON_DEMAND=false): every app prepared when deployed. */
  readonly onDemand?: OnDemandConfig;
}

/** What a replica keeps prepared when it serves apps on demand. */
export interface OnDemandConfig {
  /** Apps kept prepared at once (CW_RUNTIME_PREPARED_APPS). */
  readonly maxApps: number;
  /** Bytes their unpacked builds may take (CW_RUNTIME_BUILD_CACHE_SIZE; default {@link BUILD_CACHE_SHARE} of what builds may take). */
  readonly cacheBytes: number;
  /** Bytes of static-asset rules the apps kept in one shard may hold (CW_RUNTIME_ASSET_RULES_PER_SHARD). */
  readonly assetRulesPerShard: number;
}

/** The chart's volume for the data directory (`runtime.dataSize`), which it passes as CW_RUNTIME_DATA_DIR_SIZE. */
export const DEFAULT_DATA_DIR_SIZE = 2 * 1024 ** 3;
const MIN_DATA_DIR_SIZE = 1024 * 1024;
/** Builds may take this share of the data directory; workerd's configs, sockets and a build being renamed need the rest. */
export const BUILDS_SHARE = 0.9;
/** The prepared apps' builds are let go past this share of what builds may take: the rest is room for those being prepared. */
export const BUILD_CACHE_SHARE = 0.75;
/**
 * Each cw-api process follows an app's logs on every replica once per reader: this bounds what one address
 * (one API pod, or anything else that reaches the status port) holds open.
 */
export const DEFAULT_LOG_STREAMS_PER_CALLER = 256;

/** What the configuration reads of the machine: the replica's name outside a cluster, its cores and memory. */
export interface RuntimeHost {
  readonly hostname: string;
  readonly pid: number;
  /** Cores: the default shard count. */
  readonly cores?: number;
  /** The container's memory limit (none: unbounded), and what this process keeps of it: the shards' bound fits the rest. */
  readonly memory?: { readonly limitBytes: number | undefined; readonly reserveBytes: number };
}

/**
 * Reads the configuration; the answer is frozen. `host` is what it reads of the machine ({@link RuntimeHost}).
 *
 * @throws ConfigError naming the first variable with a bad value.
 */
export function runtimeServerConfig(
  env: Env,
  host: RuntimeHost = { hostname: hostname(), pid: process.pid, memory: { limitBytes: containerMemoryLimit(), reserveBytes: ownReserveBytes() } },
): RuntimeServerConfig {
  const read = new EnvReader(env);
  const kubeconfig = read.optional('KUBECONFIG');
  const watchNamespace = read.matching('CW_WATCH_NAMESPACE', undefined, isNamespace, 'a Kubernetes namespace name');
  const port = read.port('CW_RUNTIME_PORT', 8080);
  const statusPort = read.port('CW_RUNTIME_STATUS_PORT', 8081);
  const baseDomain = read.matching('CW_RUNTIME_BASE_DOMAIN', 'apps.localhost', isHostname, 'a host name (such as apps.example.com)').toLowerCase();
  const publicScheme = read.oneOf('CW_RUNTIME_PUBLIC_SCHEME', ['http', 'https'], 'https');
  const givenPublicPort = read.optional('CW_RUNTIME_PUBLIC_PORT') === undefined ? undefined : read.port('CW_RUNTIME_PUBLIC_PORT', 0);
  // The scheme's own port is left out of URLs, as browsers do.
  const publicPort = givenPublicPort === (publicScheme === 'http' ? 80 : 443) ? undefined : givenPublicPort;
  const publicHttpsPort = read.port('CW_RUNTIME_PUBLIC_HTTPS_PORT', publicScheme === 'https' ? (givenPublicPort ?? 443) : 443);
  const workers = read.integer('CW_RUNTIME_WORKERS', 64, { min: 1, max: 10_000 });
  const logLevel = read.oneOf('CW_LOG_LEVEL', LOG_LEVELS, 'info');
  // In a cluster the pod's name and uid (downward API); elsewhere one name per process, so two processes on one
  // machine are two replicas.
  const podName = read.optional('POD_NAME');
  const podUid = read.optional('POD_UID');
  const fallbackName = `${host.hostname
    .toLowerCase()
    .replace(/[^-a-z0-9.]+/g, '-')
    .slice(0, 48)
    .replace(/^[-.]+|[-.]+$/g, '')}-${host.pid}`;
  // At most 63 characters, as a pod's: the name is a label value on the replica's RuntimeReplicaReports.
  const isReplicaName = (text: string) => text.length <= 63 && new RegExp(DNS_SUBDOMAIN_PATTERN).test(text);
  const replicaName = podName ?? read.matching('CW_RUNTIME_REPLICA_NAME', fallbackName, isReplicaName, 'a DNS subdomain name of at most 63 characters');
  const replicaNamespace = read.matching('POD_NAMESPACE', 'default', isNamespace, 'a Kubernetes namespace name');
  const leaseDurationSeconds = read.integer('CW_RUNTIME_LEASE_DURATION_SECONDS', DEFAULT_REPLICA_LEASE_SECONDS, { min: 2, max: 3600 });
  const bucket = read.required('CW_S3_BUCKET', 'the bucket the API server stores build artifacts in');
  const s3 = s3ConfigFromEnv(read);
  const dataDir = read.optional('CW_RUNTIME_DATA_DIR');
  const dataDirSizeBytes = read.bytes('CW_RUNTIME_DATA_DIR_SIZE', DEFAULT_DATA_DIR_SIZE, { min: MIN_DATA_DIR_SIZE });
  const prepareConcurrency = read.integer('CW_RUNTIME_PREPARE_CONCURRENCY', DEFAULT_PREPARE_CONCURRENCY, { min: 1, max: 64 });
  const projectUnpackedQuota = read.bytes('CW_PROJECT_UNPACKED_QUOTA', DEFAULT_PROJECT_UNPACKED_QUOTA);
  const logStreamsPerCaller = read.integer('CW_RUNTIME_LOG_STREAMS_PER_CALLER', DEFAULT_LOG_STREAMS_PER_CALLER, { min: 1, max: 100_000 });
  const workerdBinary = read.optional('CW_WORKERD_BIN');
  const podIP = read.optional('POD_IP');
  const shards = read.integer('CW_RUNTIME_SHARDS', Math.min(host.cores ?? availableParallelism(), 64), { min: 1, max: 64 });
  const cpuLimitMs = read.durationMs('CW_RUNTIME_CPU_LIMIT', 500, { min: 50, max: 60_000 });
  const startupLimitMs = read.durationMs('CW_RUNTIME_STARTUP_CPU_LIMIT', 1000, { min: 0, max: 60_000 });
  const startupBudgetMsPerMinute = read.durationMs('CW_RUNTIME_STARTUP_CPU_BUDGET', 3000, { min: 0, max: 600_000 });
  const sustainedWindowMs = read.durationMs('CW_RUNTIME_SUSTAINED_CPU_WINDOW', 5000, { min: 0, max: 600_000 });
  const isolateHeapMb = read.integer('CW_RUNTIME_ISOLATE_HEAP_MB', 128, { min: 16, max: 16_384 });
  const configuredShardMemoryMb = read.integer('CW_RUNTIME_SHARD_MEMORY_MB', 2048, { min: 0, max: 1_048_576 });
  const shardMemoryMb = host.memory ? fittedShardMemoryMb({ configuredMb: configuredShardMemoryMb, shards, ...host.memory }) : configuredShardMemoryMb;
  const quarantineMs = read.durationMs('CW_RUNTIME_QUARANTINE', 60_000, { min: 1000, max: 86_400_000 });
  const quarantineMaxMs = read.durationMs('CW_RUNTIME_QUARANTINE_MAX', Math.max(3_600_000, quarantineMs), { min: quarantineMs, max: 7 * 86_400_000 });
  const statusToken = runtimeStatusToken(read);
  const affinityKey = read.optional('CW_RUNTIME_AFFINITY_KEY') ?? (statusToken && createHash('sha256').update(`cloudwright rollout affinity\n${statusToken}`).digest('hex'));
  if (affinityKey !== undefined && affinityKey.length < MIN_SHARED_SECRET_LENGTH) throw new ConfigError(`CW_RUNTIME_AFFINITY_KEY must be at least ${MIN_SHARED_SECRET_LENGTH} characters long`);
  const databaseUrl = read.url('CW_RUNTIME_DATABASE_URL') ?? read.url('CW_DB_URL');
  const entryHost = read.string('CW_RUNTIME_HOST', '0.0.0.0');
  const https = httpsConfig(read, entryHost);
  const statusURL = read.matching('CW_RUNTIME_STATUS_URL', undefined, (text) => /^https?:\/\/[^/?#@\s]+$/.test(text), 'an http(s) URL with no path, such as http://10.0.0.5:8081');
  const buildsBytes = Math.floor(dataDirSizeBytes * BUILDS_SHARE);
  const onDemand: OnDemandConfig | undefined = read.bool('CW_RUNTIME_ON_DEMAND', true)
    ? Object.freeze({
        maxApps: read.integer('CW_RUNTIME_PREPARED_APPS', 1000, { min: 1, max: 1_000_000 }),
        // At least the largest build (what an artifact may unpack to): an app whose build alone passed the bound
        // would be let go by the next app's first request and prepared anew by its own next one, turn after turn.
        // At most what builds may take less one such build: with the kept builds at the bound, a new one still fits.
        cacheBytes: read.bytes('CW_RUNTIME_BUILD_CACHE_SIZE', Math.floor(buildsBytes * BUILD_CACHE_SHARE), {
          min: Math.min(DEFAULT_ARTIFACT_LIMITS.maxUncompressedBytes, buildsBytes),
          max: Math.max(Math.min(DEFAULT_ARTIFACT_LIMITS.maxUncompressedBytes, buildsBytes), buildsBytes - DEFAULT_ARTIFACT_LIMITS.maxUncompressedBytes),
        }),
        // At least one app's rules at their limits (a shard keeps the app in use whatever its rules).
        assetRulesPerShard: read.bytes('CW_RUNTIME_ASSET_RULES_PER_SHARD', DEFAULT_ASSET_RULES_PER_SHARD, { min: 512 * 1024, max: 1024 ** 3 }),
      })
    : undefined;
  return Object.freeze({
    ...(kubeconfig ? { kubeconfig } : {}),
    ...(watchNamespace ? { watchNamespace } : {}),
    port,
    host: entryHost,
    statusPort,
    statusHost: read.string('CW_RUNTIME_STATUS_HOST', '0.0.0.0'),
    ...(statusURL ? { statusURL } : {}),
    ...(podIP ? { podIP } : {}),
    ...(statusToken ? { statusToken } : {}),
    ...(affinityKey ? { affinityKey } : {}),
    baseDomain,
    publicScheme,
    ...(publicPort !== undefined ? { publicPort } : {}),
    publicHttpsPort,
    ...(dataDir ? { dataDir } : {}),
    dataDirSizeBytes,
    prepareConcurrency,
    projectUnpackedQuota,
    logStreamsPerCaller,
    s3,
    bucket,
    workers,
    trustForwardedHeaders: forwardedTrustFromEnv(read),
    outboundDeny: outboundDenyFromEnv(read),
    connections: connectionLimitsFromEnv(read, 'CW_RUNTIME'),
    webSocketsPerProject: read.integer('CW_RUNTIME_WEBSOCKETS_PER_PROJECT', DEFAULT_WEBSOCKETS_PER_PROJECT, { min: 1, max: 1_000_000 }),
    requestBodyTimeoutMs: read.durationMs('CW_RUNTIME_REQUEST_BODY_TIMEOUT', DEFAULT_REQUEST_BODY_TIMEOUT_MS, { min: 0, max: 3_600_000 }),
    logLevel,
    ...(workerdBinary ? { workerdBinary } : {}),
    replica: Object.freeze({
      namespace: replicaNamespace,
      name: replicaName,
      ...(podName && podUid ? { pod: Object.freeze({ name: podName, uid: podUid }) } : {}),
    }),
    leaseDurationSeconds,
    shards,
    limits: Object.freeze({
      cpuLimitMs,
      startupLimitMs,
      startupBudgetMsPerMinute,
      sustainedWindowMs,
      isolateHeapMb,
      shardMemoryMb,
      ...(shardMemoryMb !== configuredShardMemoryMb ? { configuredShardMemoryMb } : {}),
    }),
    quarantine: Object.freeze({ initialMs: quarantineMs, maxMs: quarantineMaxMs }),
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(https ? { https } : {}),
    ...(onDemand ? { onDemand } : {}),
  });
}

/**
 * CW_RUNTIME_TRUST_FORWARDED_HEADERS: `false` (nobody's), the ingress's addresses and CIDR ranges, comma-separated,
 * or `true` (every peer's: only where nothing but the ingress reaches the entry point's HTTP port, since any client
 * reaching it could otherwise name its own address and scheme).
 */
function forwardedTrustFromEnv(read: EnvReader): ForwardedTrust {
  const raw = read.optional('CW_RUNTIME_TRUST_FORWARDED_HEADERS')?.trim();
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  const entries = addressList(raw);
  if (entries && entries.length > 0) return entries;
  throw new ConfigError(`CW_RUNTIME_TRUST_FORWARDED_HEADERS must be true, false (or 1, 0), or a comma-separated list of the ingress's addresses and CIDR ranges, got ${JSON.stringify(raw)}`);
}

/**
 * CW_RUNTIME_OUTBOUND_DENY: comma-separated addresses and CIDR ranges apps may never reach besides those every workerd
 * denies (default none more).
 */
function outboundDenyFromEnv(read: EnvReader): readonly string[] {
  const raw = read.optional('CW_RUNTIME_OUTBOUND_DENY')?.trim();
  if (!raw) return [];
  const entries = addressList(raw);
  if (entries) return entries;
  throw new ConfigError(`CW_RUNTIME_OUTBOUND_DENY must be a comma-separated list of addresses and CIDR ranges (such as 64:ff9b:1::/48), got ${JSON.stringify(raw)}`);
}
