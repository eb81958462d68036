import { defaultConnectionLimits } from '../src/connection-guard.ts';
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { configFailure } from '../src/config/testing/config-failure.ts';
import { databaseServerConfig } from './config.ts';

const MIB = 1024 * 1024;
const ADMIN_TOKEN = 'a-very-secret-admin-token-0123456789';
const REQUIRED = { CW_DB_ADMIN_TOKEN: ADMIN_TOKEN, CW_DB_DATA_DIR: '/var/lib/cw-db', CW_DB_BUCKET: 'cw-db' };

describe('databaseServerConfig', () => {
  it('takes the defaults for everything but the required variables', () => {
    expect(databaseServerConfig(REQUIRED)).toEqual({
      port: 8090,
      connections: defaultConnectionLimits(),
      host: '0.0.0.0',
      adminPort: 8091,
      adminHost: '0.0.0.0',
      adminToken: ADMIN_TOKEN,
      dataDir: '/var/lib/cw-db',
      bucket: 'cw-db',
      s3: { region: 'us-east-1', forcePathStyle: false },
      flushIntervalMs: 1000,
      retentionMs: 168 * 3_600_000,
      streamIdleMs: 10_000,
      transactionTimeoutMs: 300_000,
      webSocketIdleMs: 300_000,
      webSocketsPerDatabase: 100,
      maxBodyBytes: 10 * 1024 * 1024,
      projectMemoryBytes: 64 * MIB,
      requestMemoryBytes: 256 * MIB,
      contendedStatementMs: 250,
      shards: Math.min(64, availableParallelism()),
      shardMemoryBytes: 256 * MIB,
      restoreConcurrency: 4,
      idleCloseMs: 300_000,
      maxOpenPerShard: 819,
      limits: {
        defaults: { statementTimeoutMs: 5000, maxSizeBytes: 1024 * MIB, rowsReadPerDay: 100_000_000, rowsWrittenPerDay: 10_000_000 },
        maxima: { statementTimeoutMs: 30_000, maxSizeBytes: 10 * 1024 * MIB, rowsReadPerDay: 10_000_000_000, rowsWrittenPerDay: 1_000_000_000 },
      },
      answer: { maxRows: 1_000_000, maxBytes: 10 * MIB },
      maxResponseBytes: 16 * MIB,
      maxRequestMs: 30_000,
      storage: { projectQuotaBytes: 10 * 1024 * MIB, diskReserveBytes: 1024 * MIB },
      logLevel: 'info',
    });
  });

  it('runs as one of several replicas with CW_DB_REPLICA_NAME, reached at its address on its two ports', () => {
    expect(databaseServerConfig(REQUIRED).cluster).toBeUndefined();
    const named = { ...REQUIRED, CW_DB_REPLICA_NAME: 'cloudwright-db-1', CW_DB_PORT: '8080', CW_DB_ADMIN_PORT: '8081' };
    expect(databaseServerConfig({ ...named, CW_DB_REPLICA_ADDRESS: '10.0.0.7' }).cluster).toEqual({
      name: 'cloudwright-db-1',
      url: 'http://10.0.0.7:8080',
      adminUrl: 'http://10.0.0.7:8081',
      leaseMs: 15_000,
    });
    expect(databaseServerConfig({ ...named, CW_DB_REPLICA_ADDRESS: 'fd00::7', CW_DB_LEASE_DURATION: '5s' }).cluster).toMatchObject({ url: 'http://[fd00::7]:8080', leaseMs: 5000 });
    expect(configFailure(() => databaseServerConfig(named))).toMatch(/CW_DB_REPLICA_URL or CW_DB_REPLICA_ADDRESS is required/);
  });

  it('reads every variable, and freezes the answer', () => {
    const config = databaseServerConfig({
      ...REQUIRED,
      CW_DB_PORT: '9000',
      CW_DB_HOST: '127.0.0.1',
      CW_DB_ADMIN_PORT: '9001',
      CW_DB_ADMIN_HOST: '10.0.0.1',
      CW_S3_ENDPOINT: 'http://minio:9000',
      CW_DB_FLUSH_INTERVAL: '5s',
      CW_DB_RETENTION_HOURS: '24',
      CW_DB_STREAM_IDLE_TIMEOUT: '1m',
      CW_DB_MAX_BODY_BYTES: '2048',
      CW_DB_PROJECT_MEMORY_MIB: '16',
      CW_DB_REQUEST_MEMORY_MIB: '64',
      CW_DB_SHARDS: '3',
      CW_DB_SHARD_MEMORY_MIB: '128',
      CW_DB_RESTORE_CONCURRENCY: '2',
      CW_DB_IDLE_CLOSE_TIMEOUT: '90s',
      CW_DB_MAX_OPEN_PER_SHARD: '500',
      CW_DB_STATEMENT_TIMEOUT: '2s',
      CW_DB_MAX_STATEMENT_TIMEOUT: '1m',
      CW_DB_SIZE_QUOTA_MIB: '100',
      CW_DB_MAX_SIZE_QUOTA_MIB: '200',
      CW_DB_ROWS_READ_PER_DAY: '5000',
      CW_DB_MAX_ROWS_READ_PER_DAY: '10000',
      CW_DB_ROWS_WRITTEN_PER_DAY: '100',
      CW_DB_MAX_ROWS_WRITTEN_PER_DAY: '1000',
      CW_DB_MAX_RESULT_ROWS: '500',
      CW_DB_MAX_RESULT_BYTES: '4096',
      CW_DB_MAX_RESPONSE_BYTES: '8192',
      CW_DB_MAX_REQUEST_TIME: '45s',
      CW_DB_CONTENDED_STATEMENT_TIME: '0',
      CW_DB_PROJECT_STORAGE_QUOTA_MIB: '2048',
      CW_DB_DISK_RESERVE_MIB: '0',
      CW_LOG_LEVEL: 'debug',
    });
    expect(config).toMatchObject({
      port: 9000,
      host: '127.0.0.1',
      adminPort: 9001,
      adminHost: '10.0.0.1',
      s3: { endpoint: 'http://minio:9000', forcePathStyle: true },
      flushIntervalMs: 5000,
      retentionMs: 24 * 3_600_000,
      streamIdleMs: 60_000,
      maxBodyBytes: 2048,
      projectMemoryBytes: 16 * MIB,
      requestMemoryBytes: 64 * MIB,
      shards: 3,
      shardMemoryBytes: 128 * MIB,
      restoreConcurrency: 2,
      idleCloseMs: 90_000,
      maxOpenPerShard: 500,
      limits: {
        defaults: { statementTimeoutMs: 2000, maxSizeBytes: 100 * MIB, rowsReadPerDay: 5000, rowsWrittenPerDay: 100 },
        maxima: { statementTimeoutMs: 60_000, maxSizeBytes: 200 * MIB, rowsReadPerDay: 10_000, rowsWrittenPerDay: 1000 },
      },
      answer: { maxRows: 500, maxBytes: 4096 },
      maxResponseBytes: 8192,
      maxRequestMs: 45_000,
      contendedStatementMs: 0,
      storage: { projectQuotaBytes: 2048 * MIB, diskReserveBytes: 0 },
      logLevel: 'debug',
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it.each([
    ['CW_DB_ADMIN_TOKEN', 'CW_DB_ADMIN_TOKEN is required (the token the operator uses on the admin API)'],
    ['CW_DB_DATA_DIR', "CW_DB_DATA_DIR is required (the directory of the databases' files)"],
    ['CW_DB_BUCKET', 'CW_DB_BUCKET is required (the bucket the databases are shipped to)'],
  ])('requires %s (unset or empty)', (name, line) => {
    const { [name as keyof typeof REQUIRED]: _dropped, ...rest } = REQUIRED;
    expect(configFailure(() => databaseServerConfig(rest))).toBe(line);
    expect(configFailure(() => databaseServerConfig({ ...REQUIRED, [name]: '' }))).toBe(line);
  });

  it('refuses an admin token shorter than 32 characters without showing it', () => {
    const short = 'short-admin-token-31-characters';
    expect(short).toHaveLength(31);
    const line = configFailure(() => databaseServerConfig({ ...REQUIRED, CW_DB_ADMIN_TOKEN: short }));
    expect(line).toBe('CW_DB_ADMIN_TOKEN must be at least 32 characters long');
    expect(databaseServerConfig({ ...REQUIRED, CW_DB_ADMIN_TOKEN: `${short}x` }).adminToken).toBe(`${short}x`);
  });

  it.each([
    [{ CW_DB_PROJECT_MEMORY_MIB: '8' }, 'CW_DB_PROJECT_MEMORY_MIB must hold at least one request body of CW_DB_MAX_BODY_BYTES'],
    [{ CW_DB_REQUEST_MEMORY_MIB: '32' }, 'CW_DB_REQUEST_MEMORY_MIB must be at least CW_DB_PROJECT_MEMORY_MIB (what one project may hold)'],
    [{ CW_DB_PORT: '80a' }, 'CW_DB_PORT must be a port number from 1 to 65535, got "80a"'],
    [{ CW_DB_ADMIN_PORT: '70000' }, 'CW_DB_ADMIN_PORT must be a port number from 1 to 65535, got "70000"'],
    [{ CW_DB_FLUSH_INTERVAL: 'soon' }, 'CW_DB_FLUSH_INTERVAL must be a duration (milliseconds, or with a unit: 500ms, 20s, 5m, 1h) from 10 ms to 60000 ms, got "soon"'],
    [{ CW_DB_FLUSH_INTERVAL: '2m' }, 'CW_DB_FLUSH_INTERVAL must be a duration (milliseconds, or with a unit: 500ms, 20s, 5m, 1h) from 10 ms to 60000 ms, got "2m"'],
    [{ CW_DB_FLUSH_INTERVAL: '5' }, 'CW_DB_FLUSH_INTERVAL must be a duration (milliseconds, or with a unit: 500ms, 20s, 5m, 1h) from 10 ms to 60000 ms, got "5"'],
    [{ CW_DB_RETENTION_HOURS: '0' }, 'CW_DB_RETENTION_HOURS must be a whole number from 1 to 8784, got "0"'],
    [{ CW_DB_RETENTION_HOURS: '7d' }, 'CW_DB_RETENTION_HOURS must be a whole number from 1 to 8784, got "7d"'],
    [{ CW_LOG_LEVEL: 'loud' }, 'CW_LOG_LEVEL must be one of debug, info, warn, error, got "loud"'],
    [{ CW_DB_SHARDS: '0' }, 'CW_DB_SHARDS must be a whole number from 1 to 64, got "0"'],
    [{ CW_DB_STATEMENT_TIMEOUT: '1m' }, 'CW_DB_STATEMENT_TIMEOUT must not be longer than CW_DB_MAX_STATEMENT_TIMEOUT'],
    [{ CW_DB_SIZE_QUOTA_MIB: '20000' }, 'CW_DB_SIZE_QUOTA_MIB must not be more than CW_DB_MAX_SIZE_QUOTA_MIB'],
  ])('refuses %j with one line naming the variable', (bad, line) => {
    const message = configFailure(() => databaseServerConfig({ ...REQUIRED, ...bad }));
    expect(message).toBe(line);
    expect(message).not.toContain(ADMIN_TOKEN);
  });
});
