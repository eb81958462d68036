import { connectionLimitsFromEnv, type ConnectionLimits } from '../src/connection-guard.ts';
import { fileURLToPath } from 'node:url';
import type { OpenIdSettings } from '../src/auth/openid.ts';
import type { SessionPolicy } from '../src/auth/sessions.ts';
import { addressList } from '../src/address-range.ts';
import { isHostname, isNamespace, PINO_LEVELS, type PinoLevel } from '../src/config/checks.ts';
import { runtimeTargetEnv, type RuntimeTargetEnv } from '../src/config/dns-env.ts';
import { ConfigError, configError, EnvReader, type Env } from '../src/config/env.ts';
import { runtimeStatusToken } from '../src/config/status-token-env.ts';
import type { S3Config } from '../src/object-store/s3-config.ts';
import { s3ConfigFromEnv } from '../src/object-store/s3-env.ts';
import { DEFAULT_AUDIT_RETENTION, type AuditRetention } from './audit/audit-trail.ts';
import { DEFAULT_PROJECT_UNPACKED_QUOTA } from '../src/platform/build-quota.ts';
import { DEFAULT_PROJECT_STORED_BUILDS_QUOTA } from '../src/platform/stored-builds-quota.ts';
import { DEFAULT_LOG_STREAM_LIMITS, type LogStreamLimits } from './routes/app-logs.ts';
import { DEFAULT_CALLER_LIMITS, type CallerLimits } from './plugins/rate-limit.ts';
import { DEFAULT_UPLOAD_LIMITS, type UploadLimits } from './routes/upload-slots.ts';

/** Everything cw-api reads from its environment, read once at start (`apiConfig`). */
export interface ApiConfig {
  /** KUBECONFIG; absent: in-cluster. */
  readonly kubeconfig?: string;
  /** CW_API_HOST (default 127.0.0.1; a host name listens on its first address only). */
  readonly host: string;
  /** CW_API_PORT (default 8080). */
  readonly port: number;
  /** CW_API_MAX_CONNECTIONS and CW_API_MAX_CONNECTIONS_PER_PEER: what its listener holds at once. */
  readonly connections: ConnectionLimits;
  /** CW_API_METRICS_PORT: where `/metrics` is served, on CW_API_HOST; unset: no metrics endpoint. */
  readonly metricsPort?: number;
  /** CW_API_DEPENDENCY_CHECK_SECONDS (default 10, at most 300): how often the dependencies `/readyz` reports are checked. */
  readonly dependencyCheckMs: number;
  /** CW_API_PUBLIC_URL: how users reach the API, for links such as the device verification page. */
  readonly publicUrl: string;
  /** CW_API_SESSION_IDLE_MINUTES (60) and CW_API_SESSION_MAX_HOURS (12): console sessions' idle and absolute expiry. */
  readonly sessionPolicy: SessionPolicy;
  /**
   * Console sign-in through an OpenID Connect provider: CW_OIDC_ISSUER, CW_OIDC_CLIENT_ID and
   * CW_OIDC_CLIENT_SECRET (all three or none), CW_OIDC_NAME (the button's label) and CW_OIDC_CREATE_USERS
   * (default false: only accounts matching a user sign in; true lets anyone the provider knows become a user).
   */
  readonly openId?: { readonly settings: OpenIdSettings; readonly createUsers: boolean };
  /** CW_API_CONSOLE_DIR: the web console's build, served under /console/ (default: the checkout's console/dist). */
  readonly consoleDir: string;
  /** CW_API_TRUST_PROXY, Fastify's `trustProxy`: the proxies' addresses and CIDR ranges; absent: nothing is trusted. */
  readonly trustProxy?: readonly string[];
  /** CW_SYSTEM_NAMESPACE: where device sign-ins live (default cloudwright-system). */
  readonly systemNamespace: string;
  /**
   * CW_API_RATE_LIMIT and CW_API_RATE_BURST: requests per second and burst per caller (default 50 and 200);
   * CW_API_WRITE_RATE_LIMIT and CW_API_WRITE_RATE_BURST: of them, writes per user (10 and 100);
   * CW_API_IN_FLIGHT_PER_USER: requests one user has open at once (32).
   */
  readonly rateLimit: CallerLimits;
  /** CW_LOG_LEVEL (default info). */
  readonly logLevel: PinoLevel;
  /** CW_RUNTIME_BASE_DOMAIN, lowercased; absent: the platform's default. */
  readonly runtimeBaseDomain?: string;
  /**
   * CW_AUDIT_RETENTION_DAYS (default 90), CW_AUDIT_MAX_ENTRIES (per project, default 10,000) and
   * CW_AUDIT_PRUNE_MINUTES (default 60): how long projects' audit entries are kept and how often they are pruned.
   */
  readonly audit: { readonly retention: AuditRetention; readonly pruneIntervalMs: number };
  /** CW_S3_BUCKET with the CW_S3_* settings: where build artifacts and audit trails go; absent: deploys answer 503, nothing is audited. */
  readonly artifacts?: { readonly bucket: string; readonly s3: S3Config };
  /** POD_NAMESPACE: the platform's namespace, where cw-runtime's replicas report (default `default`). */
  readonly podNamespace: string;
  /** CW_RUNTIME_DNS_TARGET, CW_RUNTIME_DNS_IPV4, CW_RUNTIME_DNS_IPV6, checked: where app hostname records point. */
  readonly runtimeTargetEnv: RuntimeTargetEnv;
  /** CW_WORKERD_BIN; absent: the installed `@cloudflare/workerd-*` package's binary. */
  readonly workerdBinary?: string;
  /** CW_PROJECT_UNPACKED_QUOTA: what a project's apps' active builds may unpack to together (default 256 MiB). */
  readonly projectUnpackedQuota: number;
  /** CW_PROJECT_STORED_BUILDS_QUOTA: what a project's stored builds may take in the bucket, compressed (default 2 GiB). */
  readonly projectStoredBuildsQuota: number;
  /** CW_API_UPLOADS, CW_API_UPLOADS_PER_USER, CW_API_UPLOAD_TIMEOUT, CW_API_UPLOAD_MIN_RATE: deploy uploads read at once and how slowly. */
  readonly uploadLimits: UploadLimits;
  /** CW_API_LOG_STREAMS, CW_API_LOG_STREAMS_PER_USER: app log streams followed at once, in all and per user. */
  readonly logStreamLimits: LogStreamLimits;
  /** CW_DB_URL: cw-db's Hrana address as the API reaches it (the query route, and /readyz); absent: the database routes are not served. */
  readonly dbUrl?: string;
  /** CW_GIT_PUBLIC_URL: the repository service (cw-git) as users reach it, named in git token answers; absent: they say null. */
  readonly gitPublicUrl?: string;
  /**
   * CW_DB_PUBLIC_URL: the SQL endpoint as clients reach it (the start of every database_url). Only its host is read: no
   * project may take a name that would cover it (a project's default wildcard certificate), as for the API's and cw-git's.
   */
  readonly dbPublicUrl?: string;
  /** CW_RUNTIME_STATUS_TOKEN: presented on cw-runtime's status port to read apps' logs; absent: the replicas give none. */
  readonly runtimeStatusToken?: string;
}

/**
 * Reads cw-api's configuration (the variables of {@link ApiConfig}); the answer is frozen.
 *
 * @throws ConfigError naming the first variable with a bad value.
 */
export function apiConfig(env: Env): ApiConfig {
  const read = new EnvReader(env);
  const kubeconfig = read.optional('KUBECONFIG');
  const host = read.string('CW_API_HOST', '127.0.0.1');
  const port = read.port('CW_API_PORT', 8080);
  const metricsPort = read.optional('CW_API_METRICS_PORT') === undefined ? undefined : read.port('CW_API_METRICS_PORT', 0);
  const dependencyCheckMs = read.integer('CW_API_DEPENDENCY_CHECK_SECONDS', 10, { min: 1, max: 300 }) * 1000;
  // Without its trailing slashes: links are made by appending a path (`${publicUrl}/device`).
  const publicUrl = (read.url('CW_API_PUBLIC_URL') ?? `http://${host}:${port}`).replace(/\/+$/, '');
  const trustProxy = trustProxyFromEnv(read);
  const systemNamespace = read.matching('CW_SYSTEM_NAMESPACE', 'cloudwright-system', isNamespace, 'a Kubernetes namespace name');
  const rateLimit = Object.freeze({
    perSecond: read.positiveNumber('CW_API_RATE_LIMIT', DEFAULT_CALLER_LIMITS.perSecond, { max: 1e9 }),
    burst: read.integer('CW_API_RATE_BURST', DEFAULT_CALLER_LIMITS.burst, { min: 1, max: 1e9 }),
    writes: Object.freeze({
      perSecond: read.positiveNumber('CW_API_WRITE_RATE_LIMIT', DEFAULT_CALLER_LIMITS.writes.perSecond, { max: 1e9 }),
      burst: read.integer('CW_API_WRITE_RATE_BURST', DEFAULT_CALLER_LIMITS.writes.burst, { min: 1, max: 1e9 }),
    }),
    inFlight: read.integer('CW_API_IN_FLIGHT_PER_USER', DEFAULT_CALLER_LIMITS.inFlight, { min: 1, max: 100_000 }),
  });
  const logLevel = read.oneOf('CW_LOG_LEVEL', PINO_LEVELS, 'info');
  // Lowercased, as cw-runtime and the operator read it: the project ids reserved for the platform's own hosts are
  // found by comparing them with it, and a base domain given in capitals reserved none (review-163 F2).
  const runtimeBaseDomain = read.matching('CW_RUNTIME_BASE_DOMAIN', undefined, isHostname, 'a host name (such as apps.example.com)')?.toLowerCase();
  const bucket = read.optional('CW_S3_BUCKET');
  const audit = Object.freeze({
    retention: Object.freeze({
      maxAgeMs: read.integer('CW_AUDIT_RETENTION_DAYS', DEFAULT_AUDIT_RETENTION.maxAgeMs / 86_400_000, { min: 1, max: 3650 }) * 86_400_000,
      maxEntries: read.integer('CW_AUDIT_MAX_ENTRIES', DEFAULT_AUDIT_RETENTION.maxEntries, { min: 100, max: 1_000_000 }),
    }),
    pruneIntervalMs: read.integer('CW_AUDIT_PRUNE_MINUTES', 60, { min: 1, max: 1440 }) * 60_000,
  });
  const s3 = s3ConfigFromEnv(read);
  const podNamespace = read.matching('POD_NAMESPACE', 'default', isNamespace, 'a Kubernetes namespace name');
  const runtimeTarget = runtimeTargetEnv(read);
  const workerdBinary = read.optional('CW_WORKERD_BIN');
  const dbUrl = read.url('CW_DB_URL');
  const gitPublicUrl = read.url('CW_GIT_PUBLIC_URL')?.replace(/\/+$/, '');
  const dbPublicUrl = read.url('CW_DB_PUBLIC_URL');
  const statusToken = runtimeStatusToken(read);
  const sessionPolicy = Object.freeze({
    idleTimeoutSeconds: read.integer('CW_API_SESSION_IDLE_MINUTES', 60, { min: 1, max: 10_080 }) * 60,
    maxAgeSeconds: read.integer('CW_API_SESSION_MAX_HOURS', 12, { min: 1, max: 720 }) * 3600,
  });
  const openId = openIdFromEnv(read, publicUrl);
  const projectUnpackedQuota = read.bytes('CW_PROJECT_UNPACKED_QUOTA', DEFAULT_PROJECT_UNPACKED_QUOTA);
  const projectStoredBuildsQuota = read.bytes('CW_PROJECT_STORED_BUILDS_QUOTA', DEFAULT_PROJECT_STORED_BUILDS_QUOTA);
  const uploadLimits = Object.freeze({
    total: read.integer('CW_API_UPLOADS', DEFAULT_UPLOAD_LIMITS.total, { max: 1000 }),
    perUser: read.integer('CW_API_UPLOADS_PER_USER', DEFAULT_UPLOAD_LIMITS.perUser, { max: 1000 }),
    timeoutMs: read.durationMs('CW_API_UPLOAD_TIMEOUT', DEFAULT_UPLOAD_LIMITS.timeoutMs, { min: 1000, max: 3_600_000 }),
    minBytesPerSecond: read.bytes('CW_API_UPLOAD_MIN_RATE', DEFAULT_UPLOAD_LIMITS.minBytesPerSecond),
    graceMs: DEFAULT_UPLOAD_LIMITS.graceMs,
    yieldBelowBytesPerSecond: read.bytes('CW_API_UPLOAD_YIELD_RATE', DEFAULT_UPLOAD_LIMITS.yieldBelowBytesPerSecond),
  });
  const logStreamLimits = Object.freeze({
    total: read.integer('CW_API_LOG_STREAMS', DEFAULT_LOG_STREAM_LIMITS.total, { max: 100_000 }),
    perUser: read.integer('CW_API_LOG_STREAMS_PER_USER', DEFAULT_LOG_STREAM_LIMITS.perUser, { max: 100_000 }),
  });
  const consoleDir = read.string('CW_API_CONSOLE_DIR', fileURLToPath(new URL('../console/dist', import.meta.url)));
  return Object.freeze({
    consoleDir,
    sessionPolicy,
    ...(openId ? { openId } : {}),
    ...(kubeconfig ? { kubeconfig } : {}),
    host,
    port,
    connections: connectionLimitsFromEnv(read, 'CW_API'),
    ...(metricsPort !== undefined ? { metricsPort } : {}),
    dependencyCheckMs,
    publicUrl,
    ...(trustProxy !== undefined ? { trustProxy } : {}),
    systemNamespace,
    rateLimit,
    logLevel,
    ...(runtimeBaseDomain ? { runtimeBaseDomain } : {}),
    ...(bucket ? { artifacts: Object.freeze({ bucket, s3 }) } : {}),
    audit,
    podNamespace,
    runtimeTargetEnv: runtimeTarget,
    ...(workerdBinary ? { workerdBinary } : {}),
    ...(dbUrl ? { dbUrl } : {}),
    ...(gitPublicUrl ? { gitPublicUrl } : {}),
    ...(dbPublicUrl ? { dbPublicUrl } : {}),
    ...(statusToken ? { runtimeStatusToken: statusToken } : {}),
    projectUnpackedQuota,
    projectStoredBuildsQuota,
    uploadLimits,
    logStreamLimits,
  });
}

/**
 * `CW_API_TRUST_PROXY`: unset or `false`, nothing is trusted (the client is the peer address); `true`, every
 * proxy; or a comma-separated list of proxy addresses and CIDR ranges (`10.0.0.0/8,127.0.0.1`). Behind an ingress
 * the peer is the ingress for every caller, so per-address limits (requests without a token, starting device
 * sign-ins) would be shared by all of them without it.
 */
function openIdFromEnv(read: EnvReader, publicUrl: string): ApiConfig['openId'] {
  const issuer = read.url('CW_OIDC_ISSUER');
  const clientId = read.optional('CW_OIDC_CLIENT_ID');
  const clientSecret = read.optional('CW_OIDC_CLIENT_SECRET');
  const set = [issuer, clientId, clientSecret].filter((v) => v !== undefined).length;
  if (set === 0) return undefined;
  if (!issuer || !clientId || !clientSecret) throw new ConfigError('CW_OIDC_ISSUER, CW_OIDC_CLIENT_ID and CW_OIDC_CLIENT_SECRET go together: set all three, or none');
  return {
    settings: { issuer, clientId, clientSecret, redirectUri: `${publicUrl}/v1/session/openid/callback`, name: read.string('CW_OIDC_NAME', new URL(issuer).hostname) },
    createUsers: read.bool('CW_OIDC_CREATE_USERS', false),
  };
}

/**
 * The proxies whose `X-Forwarded-For` names the client, by address. Not "every hop" (`true`): any client could then
 * name itself anyone with the header, and pass every per-address limit by rotating it. Not a hop count either: it
 * cannot tell a proxy from a client that sends enough hops itself (Fastify ignores one for that reason).
 */
function trustProxyFromEnv(read: EnvReader): readonly string[] | undefined {
  const raw = read.optional('CW_API_TRUST_PROXY');
  const text = raw?.trim();
  if (raw === undefined || !text || text === 'false') return undefined;
  const entries = addressList(text);
  if (entries && entries.length > 0) return entries;
  throw configError('CW_API_TRUST_PROXY', raw, "a comma-separated list of the proxies' addresses and CIDR ranges (not true, nor a hop count: a client could then pick its own address)");
}

/** The platform's own host names (the runtime's DNS target, the API's, cw-git's and the SQL endpoint's): no project may cover them. */
export function platformHostNames(config: Pick<ApiConfig, 'publicUrl' | 'gitPublicUrl' | 'dbPublicUrl'>, runtimeTarget: string | undefined): string[] {
  const urls = [config.publicUrl, config.gitPublicUrl, config.dbPublicUrl];
  return [runtimeTarget, ...urls.map((url) => (url ? new URL(url).hostname : undefined))].filter((host): host is string => Boolean(host));
}
