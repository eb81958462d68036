import { defaultConnectionLimits } from '../src/connection-guard.ts';
import { describe, expect, it } from 'vitest';
import { configFailure } from '../src/config/testing/config-failure.ts';
import { apiConfig, platformHostNames } from './config.ts';
import { platformProjectIds } from '../src/platform/host-admission.ts';

const TRUST_PROXY_EXPECTS = "a comma-separated list of the proxies' addresses and CIDR ranges (not true, nor a hop count: a client could then pick its own address)";

describe('apiConfig', () => {
  it('reads the console sign-in settings: session lifetimes and an OpenID provider', () => {
    const config = apiConfig({
      CW_API_PUBLIC_URL: 'https://api.example.com/',
      CW_API_SESSION_IDLE_MINUTES: '30',
      CW_API_SESSION_MAX_HOURS: '8',
      CW_OIDC_ISSUER: 'https://id.example.com',
      CW_OIDC_CLIENT_ID: 'cloudwright',
      CW_OIDC_CLIENT_SECRET: 'a-secret',
      CW_OIDC_CREATE_USERS: 'false',
    });
    expect(config.sessionPolicy).toEqual({ idleTimeoutSeconds: 1800, maxAgeSeconds: 28_800 });
    expect(config.openId).toEqual({
      settings: { issuer: 'https://id.example.com', clientId: 'cloudwright', clientSecret: 'a-secret', redirectUri: 'https://api.example.com/v1/session/openid/callback', name: 'id.example.com' },
      createUsers: false,
    });
    // Links are the public URL and a path: the device page too (it was …//device).
    expect(config.publicUrl).toBe('https://api.example.com');
  });

  it('reads where users reach the repository service, without a trailing slash, and refuses what is no URL', () => {
    expect(apiConfig({ CW_GIT_PUBLIC_URL: 'https://git.example.com/' }).gitPublicUrl).toBe('https://git.example.com');
    expect(configFailure(() => apiConfig({ CW_GIT_PUBLIC_URL: 'git.example.com' }))).toMatch(/CW_GIT_PUBLIC_URL/);
  });

  it("has today's defaults, frozen", () => {
    const config = apiConfig({});
    expect(config).toEqual({
      host: '127.0.0.1',
      port: 8080,
      connections: defaultConnectionLimits(),
      dependencyCheckMs: 10_000,
      publicUrl: 'http://127.0.0.1:8080',
      systemNamespace: 'cloudwright-system',
      rateLimit: { perSecond: 50, burst: 200, writes: { perSecond: 10, burst: 100 }, inFlight: 32 },
      logLevel: 'info',
      podNamespace: 'default',
      runtimeTargetEnv: {},
      sessionPolicy: { idleTimeoutSeconds: 3600, maxAgeSeconds: 43_200 },
      consoleDir: expect.stringMatching(/\/console\/dist$/),
      projectUnpackedQuota: 256 * 1024 * 1024,
      projectStoredBuildsQuota: 2 * 1024 ** 3,
      uploadLimits: { total: 8, perUser: 2, timeoutMs: 120_000, minBytesPerSecond: 16_384, graceMs: 10_000, yieldBelowBytesPerSecond: 262_144 },
      logStreamLimits: { total: 200, perUser: 8 },
      audit: { retention: { maxAgeMs: 90 * 86_400_000, maxEntries: 10_000 }, pruneIntervalMs: 3_600_000 },
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.rateLimit)).toBe(true);
  });

  it('reads every variable', () => {
    const config = apiConfig({
      KUBECONFIG: '/k',
      CW_API_HOST: '0.0.0.0',
      CW_API_PORT: '9000',
      CW_API_MAX_CONNECTIONS: '2000',
      CW_API_MAX_CONNECTIONS_PER_PEER: '2000',
      CW_API_METRICS_PORT: '9090',
      CW_API_DEPENDENCY_CHECK_SECONDS: '30',
      CW_API_PUBLIC_URL: 'https://api.example.com',
      CW_API_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1',
      CW_SYSTEM_NAMESPACE: 'cw',
      CW_API_RATE_LIMIT: '0.5',
      CW_API_RATE_BURST: '1000000000',
      CW_API_WRITE_RATE_LIMIT: '2',
      CW_API_WRITE_RATE_BURST: '20',
      CW_API_IN_FLIGHT_PER_USER: '4',
      CW_LOG_LEVEL: 'warn',
      CW_RUNTIME_BASE_DOMAIN: 'Apps.Example.COM',
      CW_DB_PUBLIC_URL: 'https://sql.eu.apps.example.com',
      CW_S3_BUCKET: 'builds',
      CW_S3_ENDPOINT: 'http://127.0.0.1:9000',
      POD_NAMESPACE: 'cloudwright',
      CW_RUNTIME_DNS_IPV4: '192.0.2.1',
      CW_WORKERD_BIN: '/bin/workerd',
      CW_API_CONSOLE_DIR: '/srv/console',
      CW_PROJECT_UNPACKED_QUOTA: '1Gi',
      CW_PROJECT_STORED_BUILDS_QUOTA: '8Gi',
      CW_API_UPLOADS: '16',
      CW_API_UPLOADS_PER_USER: '4',
      CW_API_UPLOAD_TIMEOUT: '5m',
      CW_API_UPLOAD_MIN_RATE: '64Ki',
      CW_API_UPLOAD_YIELD_RATE: '1Mi',
      CW_API_LOG_STREAMS: '50',
      CW_API_LOG_STREAMS_PER_USER: '3',
      CW_RUNTIME_STATUS_TOKEN: 's'.repeat(40),
      CW_AUDIT_RETENTION_DAYS: '30',
      CW_AUDIT_MAX_ENTRIES: '500',
      CW_AUDIT_PRUNE_MINUTES: '5',
    });
    expect(config).toEqual({
      runtimeStatusToken: 's'.repeat(40),
      kubeconfig: '/k',
      host: '0.0.0.0',
      port: 9000,
      connections: { total: 2000, perPeer: 2000 },
      metricsPort: 9090,
      dependencyCheckMs: 30_000,
      publicUrl: 'https://api.example.com',
      trustProxy: ['10.0.0.0/8', '127.0.0.1'],
      systemNamespace: 'cw',
      rateLimit: { perSecond: 0.5, burst: 1e9, writes: { perSecond: 2, burst: 20 }, inFlight: 4 },
      logLevel: 'warn',
      runtimeBaseDomain: 'apps.example.com',
      dbPublicUrl: 'https://sql.eu.apps.example.com',
      artifacts: { bucket: 'builds', s3: { endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', forcePathStyle: true } },
      podNamespace: 'cloudwright',
      runtimeTargetEnv: { CW_RUNTIME_DNS_IPV4: '192.0.2.1' },
      workerdBinary: '/bin/workerd',
      sessionPolicy: { idleTimeoutSeconds: 3600, maxAgeSeconds: 43_200 },
      consoleDir: '/srv/console',
      projectUnpackedQuota: 1024 ** 3,
      projectStoredBuildsQuota: 8 * 1024 ** 3,
      uploadLimits: { total: 16, perUser: 4, timeoutMs: 300_000, minBytesPerSecond: 65_536, graceMs: 10_000, yieldBelowBytesPerSecond: 1_048_576 },
      logStreamLimits: { total: 50, perUser: 3 },
      audit: { retention: { maxAgeMs: 30 * 86_400_000, maxEntries: 500 }, pruneIntervalMs: 300_000 },
    });
  });

  it.each([
    ['', undefined],
    ['false', undefined],
    ['10.0.0.0/8, 127.0.0.1', ['10.0.0.0/8', '127.0.0.1']],
    ['fd00::/8', ['fd00::/8']],
  ])('reads CW_API_TRUST_PROXY=%j as %j', (value, expected) => {
    expect(apiConfig({ CW_API_TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it.each([
    [{ CW_API_PORT: '80a' }, 'CW_API_PORT must be a port number from 1 to 65535, got "80a"'],
    [{ CW_API_PORT: '0' }, 'CW_API_PORT must be a port number from 1 to 65535, got "0"'],
    [{ CW_API_PUBLIC_URL: 'api.example.com' }, 'CW_API_PUBLIC_URL must be an http:// or https:// URL, got "api.example.com"'],
    [{ CW_API_TRUST_PROXY: 'true' }, `CW_API_TRUST_PROXY must be ${TRUST_PROXY_EXPECTS}, got "true"`],
    [{ CW_API_TRUST_PROXY: '2' }, `CW_API_TRUST_PROXY must be ${TRUST_PROXY_EXPECTS}, got "2"`],
    [{ CW_API_TRUST_PROXY: 'yes' }, `CW_API_TRUST_PROXY must be ${TRUST_PROXY_EXPECTS}, got "yes"`],
    [{ CW_API_TRUST_PROXY: '10.0.0.0/8;127.0.0.1' }, `CW_API_TRUST_PROXY must be ${TRUST_PROXY_EXPECTS}, got "10.0.0.0/8;127.0.0.1"`],
    [{ CW_API_TRUST_PROXY: 'proxy.internal' }, `CW_API_TRUST_PROXY must be ${TRUST_PROXY_EXPECTS}, got "proxy.internal"`],
    [{ CW_SYSTEM_NAMESPACE: 'Cloudwright' }, 'CW_SYSTEM_NAMESPACE must be a Kubernetes namespace name, got "Cloudwright"'],
    [{ CW_API_RATE_LIMIT: 'fast' }, 'CW_API_RATE_LIMIT must be a number greater than 0 and at most 1000000000, got "fast"'],
    [{ CW_API_RATE_BURST: '0' }, 'CW_API_RATE_BURST must be a whole number from 1 to 1000000000, got "0"'],
    [{ CW_API_WRITE_RATE_LIMIT: '0' }, 'CW_API_WRITE_RATE_LIMIT must be a number greater than 0 and at most 1000000000, got "0"'],
    [{ CW_API_IN_FLIGHT_PER_USER: '0' }, 'CW_API_IN_FLIGHT_PER_USER must be a whole number from 1 to 100000, got "0"'],
    [{ CW_LOG_LEVEL: 'verbose' }, 'CW_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"'],
    [{ CW_RUNTIME_BASE_DOMAIN: 'localhost' }, 'CW_RUNTIME_BASE_DOMAIN must be a host name (such as apps.example.com), got "localhost"'],
    [{ CW_S3_FORCE_PATH_STYLE: 'yes' }, 'CW_S3_FORCE_PATH_STYLE must be true or false (or 1 or 0), got "yes"'],
    [{ CW_S3_SECRET_ACCESS_KEY: 'hunter2-secret' }, 'CW_S3_ACCESS_KEY_ID and CW_S3_SECRET_ACCESS_KEY go together (or neither: the default AWS credential chain)'],
    [{ POD_NAMESPACE: 'a.b' }, 'POD_NAMESPACE must be a Kubernetes namespace name, got "a.b"'],
    [{ CW_OIDC_ISSUER: 'https://id.example.com', CW_OIDC_CLIENT_ID: 'cw' }, 'CW_OIDC_ISSUER, CW_OIDC_CLIENT_ID and CW_OIDC_CLIENT_SECRET go together: set all three, or none'],
    [{ CW_API_SESSION_IDLE_MINUTES: '0' }, 'CW_API_SESSION_IDLE_MINUTES must be a whole number from 1 to 10080, got "0"'],
    [{ CW_RUNTIME_DNS_IPV4: '192.0.2.300' }, 'CW_RUNTIME_DNS_IPV4 must be a comma-separated list of IPv4 addresses, got "192.0.2.300"'],
  ])('refuses %j in one line naming the variable', (env, message) => {
    expect(configFailure(() => apiConfig(env))).toBe(message);
  });
});

describe('platformHostNames', () => {
  it('names the SQL endpoint among the platform’s hosts, so no project may cover it (review-163 F3)', () => {
    const config = apiConfig({ CW_API_PUBLIC_URL: 'https://api.example.com', CW_GIT_PUBLIC_URL: 'https://git.apps.example.com', CW_DB_PUBLIC_URL: 'https://sql.eu.apps.example.com' });
    const hosts = platformHostNames(config, 'runtime.apps.example.com');
    expect(hosts).toEqual(['runtime.apps.example.com', 'api.example.com', 'git.apps.example.com', 'sql.eu.apps.example.com']);
    // A project `eu` would hold sql.eu.apps.example.com (its default wildcard covers it): reserved.
    expect(platformProjectIds('apps.example.com', hosts)).toEqual(['runtime', 'git', 'eu']);
  });
});
