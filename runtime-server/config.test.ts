import { defaultConnectionLimits } from '../src/connection-guard.ts';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { configFailure } from '../src/config/testing/config-failure.ts';
import { runtimeServerConfig } from './config.ts';

const KEY = randomBytes(32).toString('base64');

describe('runtimeServerConfig', () => {
  it('has defaults for everything but the bucket', () => {
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'artifacts' }, { hostname: 'Laptop.local', pid: 42, cores: 6 })).toEqual({
      port: 8080,
      host: '0.0.0.0',
      connections: defaultConnectionLimits(),
      webSocketsPerProject: 1000,
      requestBodyTimeoutMs: 60_000,
      statusPort: 8081,
      statusHost: '0.0.0.0',
      baseDomain: 'apps.localhost',
      publicScheme: 'https',
      publicHttpsPort: 443,
      s3: { region: 'us-east-1', forcePathStyle: false },
      bucket: 'artifacts',
      workers: 64,
      trustForwardedHeaders: false,
      outboundDeny: [],
      logLevel: 'info',
      replica: { namespace: 'default', name: 'laptop.local-42' },
      leaseDurationSeconds: 40,
      dataDirSizeBytes: 2 * 1024 ** 3,
      prepareConcurrency: 2,
      projectUnpackedQuota: 256 * 1024 * 1024,
      logStreamsPerCaller: 256,
      shards: 6,
      limits: { cpuLimitMs: 500, startupLimitMs: 1000, startupBudgetMsPerMinute: 3000, sustainedWindowMs: 5000, isolateHeapMb: 128, shardMemoryMb: 2048 },
      quarantine: { initialMs: 60_000, maxMs: 3_600_000 },
      onDemand: { maxApps: 1000, cacheBytes: Math.floor(Math.floor(2 * 1024 ** 3 * 0.9) * 0.75), assetRulesPerShard: 4 * 1024 ** 2 },
    });
  });

  it('serves apps on demand unless told not to, within the prepared apps and build cache it is given', () => {
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_ON_DEMAND: 'false' }).onDemand).toBeUndefined();
    const config = runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_PREPARED_APPS: '50', CW_RUNTIME_BUILD_CACHE_SIZE: '300Mi', CW_RUNTIME_ASSET_RULES_PER_SHARD: '1Mi' });
    expect(config.onDemand).toEqual({ maxApps: 50, cacheBytes: 300 * 1024 ** 2, assetRulesPerShard: 1024 ** 2 });
    // Less than one app's rules at their limits: the app in use would be over it alone.
    expect(() => runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_ASSET_RULES_PER_SHARD: '100Ki' })).toThrow(/CW_RUNTIME_ASSET_RULES_PER_SHARD/);
    // A cache smaller than the largest build would let that build go and fetch it again on every other request.
    expect(() => runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_BUILD_CACHE_SIZE: '100Mi' })).toThrow(/CW_RUNTIME_BUILD_CACHE_SIZE.*268435456/);
    // A cache larger than what builds may take would never let a build go before the store refuses new ones.
    expect(() => runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_DATA_DIR_SIZE: '1Gi', CW_RUNTIME_BUILD_CACHE_SIZE: '1Gi' })).toThrow(/CW_RUNTIME_BUILD_CACHE_SIZE/);
    // Nor one that leaves no room for a new build beside the kept ones: builds may take 0.9 × 2 GiB, less 256 MiB.
    const most = Math.floor(2 * 1024 ** 3 * 0.9) - 256 * 1024 ** 2;
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_DATA_DIR_SIZE: '2Gi', CW_RUNTIME_BUILD_CACHE_SIZE: String(most) }).onDemand?.cacheBytes).toBe(most);
    expect(() => runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_DATA_DIR_SIZE: '2Gi', CW_RUNTIME_BUILD_CACHE_SIZE: String(most + 1) })).toThrow(/CW_RUNTIME_BUILD_CACHE_SIZE/);
  });

  it('has an HTTPS listener only with a port, on the entry host by default, with the sealing key', () => {
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_TLS_SEALING_KEY: KEY }).https).toBeUndefined();
    const config = runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_HOST: '127.0.0.1', CW_RUNTIME_HTTPS_PORT: '8443', CW_TLS_SEALING_KEY: KEY });
    expect(config.https).toEqual({ port: 8443, host: '127.0.0.1', sealingKey: Buffer.from(KEY, 'base64'), cacheSize: 1000 });
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_HTTPS_PORT: '443', CW_RUNTIME_HTTPS_HOST: '::', CW_RUNTIME_TLS_CACHE: '5', CW_TLS_SEALING_KEY: KEY }).https).toMatchObject({
      host: '::',
      cacheSize: 5,
    });
  });

  it('reads the data directory size as bytes or a quantity, as the chart passes its volume size', () => {
    const config = runtimeServerConfig({
      CW_S3_BUCKET: 'b',
      CW_RUNTIME_DATA_DIR_SIZE: '5Gi',
      CW_RUNTIME_PREPARE_CONCURRENCY: '4',
      CW_PROJECT_UNPACKED_QUOTA: '100000000',
      CW_RUNTIME_LOG_STREAMS_PER_CALLER: '8',
    });
    expect([config.dataDirSizeBytes, config.prepareConcurrency, config.projectUnpackedQuota, config.logStreamsPerCaller]).toEqual([5 * 1024 ** 3, 4, 100_000_000, 8]);
  });

  it('reads the shards and the bounds on apps', () => {
    const config = runtimeServerConfig({
      CW_S3_BUCKET: 'b',
      CW_RUNTIME_SHARDS: '3',
      CW_RUNTIME_CPU_LIMIT: '250ms',
      CW_RUNTIME_STARTUP_CPU_LIMIT: '2s',
      CW_RUNTIME_STARTUP_CPU_BUDGET: '10s',
      CW_RUNTIME_SUSTAINED_CPU_WINDOW: '10s',
      CW_RUNTIME_ISOLATE_HEAP_MB: '64',
      CW_RUNTIME_SHARD_MEMORY_MB: '0',
      CW_RUNTIME_QUARANTINE: '2m',
      CW_RUNTIME_QUARANTINE_MAX: '6h',
    });
    expect(config).toMatchObject({
      shards: 3,
      limits: { cpuLimitMs: 250, startupLimitMs: 2000, startupBudgetMsPerMinute: 10_000, sustainedWindowMs: 10_000, isolateHeapMb: 64, shardMemoryMb: 0 },
      quarantine: { initialMs: 120_000, maxMs: 21_600_000 },
    });
    // In a container whose limit cannot hold every shard at its bound, the bound is lowered to fit, and says so.
    const host = { hostname: 'node', pid: 1, cores: 2, memory: { limitBytes: 2048 * 1048576, reserveBytes: 640 * 1048576 } };
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_SHARD_MEMORY_MB: '1536' }, host).limits).toEqual({
      cpuLimitMs: 500,
      startupLimitMs: 1000,
      startupBudgetMsPerMinute: 3000,
      sustainedWindowMs: 5000,
      isolateHeapMb: 128,
      shardMemoryMb: 704,
      configuredShardMemoryMb: 1536,
    });
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_SHARD_MEMORY_MB: '512' }, host).limits).toEqual({
      cpuLimitMs: 500,
      startupLimitMs: 1000,
      startupBudgetMsPerMinute: 3000,
      sustainedWindowMs: 5000,
      isolateHeapMb: 128,
      shardMemoryMb: 512,
    });
    // A first quarantine longer than the default maximum raises the maximum with it.
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_QUARANTINE: '2h' }).quarantine).toEqual({ initialMs: 7_200_000, maxMs: 7_200_000 });
  });

  it('names the replica after its pod in a cluster (the pod owns its report), and reads the lease duration', () => {
    const config = runtimeServerConfig({ CW_S3_BUCKET: 'b', POD_NAME: 'runtime-7d9-x2', POD_UID: 'u-1', POD_NAMESPACE: 'cloudwright', CW_RUNTIME_LEASE_DURATION_SECONDS: '3' });
    expect(config.replica).toEqual({ namespace: 'cloudwright', name: 'runtime-7d9-x2', pod: { name: 'runtime-7d9-x2', uid: 'u-1' } });
    expect(config.leaseDurationSeconds).toBe(3);
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_REPLICA_NAME: 'r1' }).replica).toEqual({ namespace: 'default', name: 'r1' });
  });

  it('reads the S3 settings the API server reads too', () => {
    const config = runtimeServerConfig({
      CW_S3_BUCKET: 'b',
      CW_S3_ENDPOINT: 'http://127.0.0.1:9000',
      CW_S3_ACCESS_KEY_ID: 'id',
      CW_S3_SECRET_ACCESS_KEY: 'secret',
      CW_S3_REGION: 'eu-west-1',
    });
    expect(config.s3).toEqual({ endpoint: 'http://127.0.0.1:9000', region: 'eu-west-1', forcePathStyle: true, credentials: { accessKeyId: 'id', secretAccessKey: 'secret' } });
  });

  it('reads ports, the public URL and the namespace', () => {
    const config = runtimeServerConfig({
      CW_S3_BUCKET: 'b',
      KUBECONFIG: '/k',
      CW_WATCH_NAMESPACE: 'ns',
      CW_RUNTIME_PORT: '8000',
      CW_RUNTIME_STATUS_PORT: '9001',
      CW_RUNTIME_BASE_DOMAIN: 'Apps.Example.com',
      CW_RUNTIME_PUBLIC_SCHEME: 'http',
      CW_RUNTIME_PUBLIC_PORT: '8080',
      CW_RUNTIME_TRUST_FORWARDED_HEADERS: 'true',
      CW_RUNTIME_STATUS_TOKEN: 's'.repeat(40),
    });
    expect(config).toMatchObject({
      statusToken: 's'.repeat(40),
      kubeconfig: '/k',
      watchNamespace: 'ns',
      port: 8000,
      statusPort: 9001,
      baseDomain: 'apps.example.com',
      publicScheme: 'http',
      publicPort: 8080,
      trustForwardedHeaders: true,
    });
  });

  it("keeps X-Forwarded-* of nobody, everybody, or the ingress's addresses and ranges, and says what it wants otherwise", () => {
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b' }).trustForwardedHeaders).toBe(false);
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_TRUST_FORWARDED_HEADERS: ' 10.0.0.0/8, fd00::/8 ,192.0.2.1' }).trustForwardedHeaders).toEqual(['10.0.0.0/8', 'fd00::/8', '192.0.2.1']);
    expect(() => runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_TRUST_FORWARDED_HEADERS: '10.0.0.0/33' })).toThrow(/CW_RUNTIME_TRUST_FORWARDED_HEADERS/);
  });

  it('gives a request body a bounded time to arrive at the entry point: 60 s unless told, 0 for none', () => {
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b' }).requestBodyTimeoutMs).toBe(60_000);
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_REQUEST_BODY_TIMEOUT: '5m' }).requestBodyTimeoutMs).toBe(300_000);
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_REQUEST_BODY_TIMEOUT: '0' }).requestBodyTimeoutMs).toBe(0);
  });

  it("denies apps the addresses it is told, public ones included (a cluster's own NAT64 prefix)", () => {
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b' }).outboundDeny).toEqual([]);
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_OUTBOUND_DENY: '64:ff9b:1::/48, 198.51.100.7' }).outboundDeny).toEqual(['64:ff9b:1::/48', '198.51.100.7']);
    expect(() => runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_OUTBOUND_DENY: 'nat64.example' })).toThrow(/CW_RUNTIME_OUTBOUND_DENY must be a comma-separated list of addresses and CIDR ranges/);
  });

  it('signs affinity cookies with a key every replica shares: its own, else one from the status token, never the token itself', () => {
    const fromToken = runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_STATUS_TOKEN: 's'.repeat(40) }).affinityKey;
    expect(fromToken).toMatch(/^[0-9a-f]{64}$/);
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_STATUS_TOKEN: 's'.repeat(40) }).affinityKey).toBe(fromToken);
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_STATUS_TOKEN: 't'.repeat(40) }).affinityKey).not.toBe(fromToken);
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_STATUS_TOKEN: 's'.repeat(40), CW_RUNTIME_AFFINITY_KEY: 'k'.repeat(40) }).affinityKey).toBe('k'.repeat(40));
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b' }).affinityKey).toBeUndefined();
    expect(() => runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_AFFINITY_KEY: 'short' })).toThrow(/CW_RUNTIME_AFFINITY_KEY must be at least/);
  });

  it("leaves the scheme's own port out of app URLs", () => {
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_PUBLIC_PORT: '443' }).publicPort).toBeUndefined();
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_PUBLIC_SCHEME: 'http', CW_RUNTIME_PUBLIC_PORT: '80' }).publicPort).toBeUndefined();
  });

  it('says which port redirects to HTTPS name: the public one under https, else 443, unless given', () => {
    const port = (env: Record<string, string>) => runtimeServerConfig({ CW_S3_BUCKET: 'b', ...env }).publicHttpsPort;
    expect(port({ CW_RUNTIME_PUBLIC_PORT: '8443' })).toBe(8443);
    expect(port({ CW_RUNTIME_PUBLIC_SCHEME: 'http', CW_RUNTIME_PUBLIC_PORT: '8080' })).toBe(443);
    expect(port({ CW_RUNTIME_PUBLIC_SCHEME: 'http', CW_RUNTIME_PUBLIC_HTTPS_PORT: '9443' })).toBe(9443);
    expect(() => port({ CW_RUNTIME_PUBLIC_HTTPS_PORT: 'x' })).toThrow('CW_RUNTIME_PUBLIC_HTTPS_PORT must be a port number from 1 to 65535, got "x"');
  });

  it('reads the SQL endpoint apps may reach, CW_DB_URL when it is not given', () => {
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_RUNTIME_DATABASE_URL: 'http://cloudwright-db.cw.svc' }).databaseUrl).toBe('http://cloudwright-db.cw.svc');
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_DB_URL: 'http://127.0.0.2:7000' }).databaseUrl).toBe('http://127.0.0.2:7000');
    expect(runtimeServerConfig({ CW_S3_BUCKET: 'b', CW_DB_URL: 'http://x', CW_RUNTIME_DATABASE_URL: 'http://y' }).databaseUrl).toBe('http://y');
  });

  it('answers a frozen object', () => {
    expect(Object.isFrozen(runtimeServerConfig({ CW_S3_BUCKET: 'b' }))).toBe(true);
  });

  it.each([
    [{ CW_S3_BUCKET: '' }, 'CW_S3_BUCKET is required (the bucket the API server stores build artifacts in)'],
    [{ CW_RUNTIME_PORT: 'x' }, 'CW_RUNTIME_PORT must be a port number from 1 to 65535, got "x"'],
    [{ CW_RUNTIME_PORT: '0' }, 'CW_RUNTIME_PORT must be a port number from 1 to 65535, got "0"'],
    [{ CW_RUNTIME_STATUS_PORT: '65536' }, 'CW_RUNTIME_STATUS_PORT must be a port number from 1 to 65535, got "65536"'],
    [{ CW_RUNTIME_PUBLIC_PORT: '443x' }, 'CW_RUNTIME_PUBLIC_PORT must be a port number from 1 to 65535, got "443x"'],
    [{ CW_RUNTIME_BASE_DOMAIN: 'not a domain' }, 'CW_RUNTIME_BASE_DOMAIN must be a host name (such as apps.example.com), got "not a domain"'],
    [{ CW_RUNTIME_PUBLIC_SCHEME: 'ftp' }, 'CW_RUNTIME_PUBLIC_SCHEME must be one of http, https, got "ftp"'],
    [{ CW_RUNTIME_WORKERS: '0' }, 'CW_RUNTIME_WORKERS must be a whole number from 1 to 10000, got "0"'],
    [
      { CW_RUNTIME_TRUST_FORWARDED_HEADERS: 'yes' },
      'CW_RUNTIME_TRUST_FORWARDED_HEADERS must be true, false (or 1, 0), or a comma-separated list of the ingress\'s addresses and CIDR ranges, got "yes"',
    ],
    [{ CW_LOG_LEVEL: 'trace' }, 'CW_LOG_LEVEL must be one of debug, info, warn, error, got "trace"'],
    [{ CW_WATCH_NAMESPACE: 'Not_A_Namespace' }, 'CW_WATCH_NAMESPACE must be a Kubernetes namespace name, got "Not_A_Namespace"'],
    [{ CW_S3_ENDPOINT: 'minio:9000' }, 'CW_S3_ENDPOINT must be an http:// or https:// URL, got "minio:9000"'],
    [{ CW_S3_ACCESS_KEY_ID: 'id' }, 'CW_S3_ACCESS_KEY_ID and CW_S3_SECRET_ACCESS_KEY go together (or neither: the default AWS credential chain)'],
    [{ CW_RUNTIME_LEASE_DURATION_SECONDS: '1' }, 'CW_RUNTIME_LEASE_DURATION_SECONDS must be a whole number from 2 to 3600, got "1"'],
    [{ CW_RUNTIME_REPLICA_NAME: 'Not A Name' }, 'CW_RUNTIME_REPLICA_NAME must be a DNS subdomain name of at most 63 characters, got "Not A Name"'],
    [{ POD_NAMESPACE: 'a.b' }, 'POD_NAMESPACE must be a Kubernetes namespace name, got "a.b"'],
    [{ CW_RUNTIME_DATABASE_URL: 'cloudwright-db:80' }, 'CW_RUNTIME_DATABASE_URL must be an http:// or https:// URL, got "cloudwright-db:80"'],
    [{ CW_RUNTIME_SHARDS: '0' }, 'CW_RUNTIME_SHARDS must be a whole number from 1 to 64, got "0"'],
    [{ CW_RUNTIME_CPU_LIMIT: '10ms' }, 'CW_RUNTIME_CPU_LIMIT must be a duration (milliseconds, or with a unit: 500ms, 20s, 5m, 1h) from 50 ms to 60000 ms, got "10ms"'],
    [{ CW_RUNTIME_STARTUP_CPU_LIMIT: '2m' }, 'CW_RUNTIME_STARTUP_CPU_LIMIT must be a duration (milliseconds, or with a unit: 500ms, 20s, 5m, 1h) from 0 ms to 60000 ms, got "2m"'],
    [{ CW_RUNTIME_ISOLATE_HEAP_MB: 'lots' }, 'CW_RUNTIME_ISOLATE_HEAP_MB must be a whole number from 16 to 16384, got "lots"'],
    [{ CW_RUNTIME_SHARD_MEMORY_MB: '-1' }, 'CW_RUNTIME_SHARD_MEMORY_MB must be a whole number from 0 to 1048576, got "-1"'],
    [
      { CW_RUNTIME_HTTPS_PORT: '8443' },
      'CW_RUNTIME_HTTPS_PORT is set but CW_TLS_SEALING_KEY is not: the HTTPS listener reads certificates sealed with that key (the Secret cloudwright-tls-sealing, key `key`, as the operator has it)',
    ],
    [{ CW_RUNTIME_HTTPS_PORT: 'https' }, 'CW_RUNTIME_HTTPS_PORT must be a port number from 1 to 65535, got "https"'],
    [{ CW_RUNTIME_HTTPS_PORT: '8443', CW_TLS_SEALING_KEY: 'c2hvcnQ=' }, 'CW_TLS_SEALING_KEY must be base64 of 32 random bytes (openssl rand -base64 32)'],
    [{ CW_RUNTIME_HTTPS_PORT: '8443', CW_TLS_SEALING_KEY: KEY, CW_RUNTIME_TLS_CACHE: '0' }, 'CW_RUNTIME_TLS_CACHE must be a whole number from 1 to 1000000, got "0"'],
    [
      { CW_RUNTIME_QUARANTINE: '1h', CW_RUNTIME_QUARANTINE_MAX: '1m' },
      'CW_RUNTIME_QUARANTINE_MAX must be a duration (milliseconds, or with a unit: 500ms, 20s, 5m, 1h) from 3600000 ms to 604800000 ms, got "1m"',
    ],
  ])('refuses %j in one line naming the variable', (env, message) => {
    expect(configFailure(() => runtimeServerConfig({ CW_S3_BUCKET: 'b', ...env }))).toBe(message);
  });
});
