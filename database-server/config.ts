import { connectionLimitsFromEnv, type ConnectionLimits } from '../src/connection-guard.ts';
import { availableParallelism } from 'node:os';
import { ConfigError, EnvReader, type Env } from '../src/config/env.ts';
import type { LimitPolicy } from './limit-policy.ts';
import type { StorageBounds } from './storage-budget.ts';
import type { AnswerLimits } from './sql/sql-limits.ts';
import type { S3Config } from '../src/object-store/s3-config.ts';
import { s3ConfigFromEnv } from '../src/object-store/s3-env.ts';
import { LOG_LEVELS, type LogLevel } from '../src/logging/log.ts';

/** cw-db's settings, all from the environment, read once at start (docs/databases.md, "Running cw-db"). */
/** Restores from the bucket that run at once by default (`CW_DB_RESTORE_CONCURRENCY`). */
export const DEFAULT_RESTORE_CONCURRENCY = 4;

export interface DatabaseServerConfig {
  /** Hrana over HTTP: the `db_url` every database URL starts with. */
  readonly port: number;
  /** CW_DB_MAX_CONNECTIONS and CW_DB_MAX_CONNECTIONS_PER_PEER: what the Hrana listener holds at once. */
  readonly connections: ConnectionLimits;
  readonly host: string;
  /** The operator's admin API (create, update, describe, delete tenants) and the probes; never public. */
  readonly adminPort: number;
  readonly adminHost: string;
  /** The bearer token the admin API accepts (CW_DB_ADMIN_TOKEN, at least 32 characters). */
  readonly adminToken: string;
  /** Where the tenants' SQLite files live; lost with the disk, restored from the bucket. */
  readonly dataDir: string;
  readonly bucket: string;
  readonly s3: S3Config;
  /** How often commits of asynchronous databases are shipped: the bound on what a crash can lose. */
  readonly flushIntervalMs: number;
  /** How far back point-in-time restore reaches; older copies are pruned. */
  readonly retentionMs: number;
  /** A stream idle this long is closed (its transaction rolled back). */
  readonly streamIdleMs: number;
  /** Hrana over WebSocket: a transaction open longer is rolled back; a connection idle longer (outside one) is closed; connections per database. */
  readonly transactionTimeoutMs: number;
  readonly webSocketIdleMs: number;
  readonly webSocketsPerDatabase: number;
  readonly maxBodyBytes: number;
  /** What one project's requests may hold in the main process: bodies, unread answers, WebSocket cursors and stored SQL. */
  readonly projectMemoryBytes: number;
  /** CW_DB_REQUEST_MEMORY_MIB: what all projects' requests may hold together in the main process (past it, those holding more than an equal share wait). */
  readonly requestMemoryBytes: number;
  /** Shard processes the tenants are spread over (docs/databases.md, "Limits and isolation"). */
  readonly shards: number;
  /** SQLite's memory in each shard (`hard_heap_limit`). */
  readonly shardMemoryBytes: number;
  /** Restores from the bucket that run at once (a start, a takeover); the others wait. */
  readonly restoreConcurrency: number;
  /** A database no request used for this long is closed until its next request (`CW_DB_IDLE_CLOSE_TIMEOUT`). */
  readonly idleCloseMs: number;
  /** Past this many open in a shard, the least recently used are closed too (`CW_DB_MAX_OPEN_PER_SHARD`). */
  readonly maxOpenPerShard: number;
  /** Databases' default limits, and the most one may ask for. */
  readonly limits: LimitPolicy;
  /** What one project's databases may hold together on this replica, and the free space kept on its volume. */
  readonly storage: StorageBounds;
  /** What one statement may answer. */
  readonly answer: AnswerLimits;
  /** What one pipeline request may answer in all. */
  readonly maxResponseBytes: number;
  /** The least a statement may run while other projects contend for its shard (`CW_DB_CONTENDED_STATEMENT_TIME`; 0: never cut). */
  readonly contendedStatementMs: number;
  /** After this long, one pipeline request starts no more statements (`CW_DB_MAX_REQUEST_TIME`): it holds one of its shard's slots. */
  readonly maxRequestMs: number;
  readonly logLevel: LogLevel;
  /** Several replicas on one bucket (CW_DB_REPLICA_NAME set): each database owned by one at a time through a lease. */
  readonly cluster?: ClusterConfig;
}

/** This replica among several (docs/databases.md, "Several replicas"). */
export interface ClusterConfig {
  /** Unique among the replicas and stable across restarts (the StatefulSet's pod name). */
  readonly name: string;
  /** Hrana's base URL as the other replicas reach it: requests for databases owned here are forwarded to it. */
  readonly url: string;
  /** The admin API's base URL as the other replicas reach it. */
  readonly adminUrl: string;
  /** How long a replica that stopped beating keeps its databases; it beats every third of it. */
  readonly leaseMs: number;
}

const MIB = 1024 * 1024;
/** Daily row quotas are counted in JavaScript numbers: integers stay exact far past this. */
const MAX_ROWS_PER_DAY = 1_000_000_000_000;

/**
 * Reads the configuration; the answer is frozen.
 *
 * @throws ConfigError naming the first variable with a bad value (never showing a secret).
 */
export function databaseServerConfig(env: Env): DatabaseServerConfig {
  const read = new EnvReader(env);
  const adminToken = read.required('CW_DB_ADMIN_TOKEN', 'the token the operator uses on the admin API');
  if (adminToken.length < 32) throw new ConfigError('CW_DB_ADMIN_TOKEN must be at least 32 characters long');
  const port = read.port('CW_DB_PORT', 8090);
  const adminPort = read.port('CW_DB_ADMIN_PORT', 8091);
  const shardMemoryMiB = read.integer('CW_DB_SHARD_MEMORY_MIB', 256, { min: 16, max: 64 * 1024 });
  const maxBodyBytes = read.integer('CW_DB_MAX_BODY_BYTES', 10 * MIB, { min: 1024, max: 256 * MIB });
  const projectMemoryBytes = read.integer('CW_DB_PROJECT_MEMORY_MIB', 64, { min: 1, max: 64 * 1024 }) * MIB;
  // A project must be able to send at least one request of the largest size.
  if (projectMemoryBytes < maxBodyBytes) throw new ConfigError('CW_DB_PROJECT_MEMORY_MIB must hold at least one request body of CW_DB_MAX_BODY_BYTES');
  const requestMemoryBytes = read.integer('CW_DB_REQUEST_MEMORY_MIB', 256, { min: 1, max: 256 * 1024 }) * MIB;
  if (requestMemoryBytes < projectMemoryBytes) throw new ConfigError('CW_DB_REQUEST_MEMORY_MIB must be at least CW_DB_PROJECT_MEMORY_MIB (what one project may hold)');
  return Object.freeze({
    port,
    connections: connectionLimitsFromEnv(read, 'CW_DB'),
    host: read.string('CW_DB_HOST', '0.0.0.0'),
    adminPort,
    adminHost: read.string('CW_DB_ADMIN_HOST', '0.0.0.0'),
    adminToken,
    dataDir: read.required('CW_DB_DATA_DIR', "the directory of the databases' files"),
    bucket: read.required('CW_DB_BUCKET', 'the bucket the databases are shipped to'),
    s3: s3ConfigFromEnv(read),
    flushIntervalMs: read.durationMs('CW_DB_FLUSH_INTERVAL', 1000, { min: 10, max: 60_000 }),
    retentionMs: read.integer('CW_DB_RETENTION_HOURS', 168, { min: 1, max: 24 * 366 }) * 3_600_000,
    streamIdleMs: read.durationMs('CW_DB_STREAM_IDLE_TIMEOUT', 10_000, { min: 100, max: 600_000 }),
    transactionTimeoutMs: read.durationMs('CW_DB_TRANSACTION_TIMEOUT', 300_000, { min: 100, max: 3_600_000 }),
    webSocketIdleMs: read.durationMs('CW_DB_WEBSOCKET_IDLE_TIMEOUT', 300_000, { min: 1000, max: 3_600_000 }),
    webSocketsPerDatabase: read.integer('CW_DB_WEBSOCKETS_PER_DATABASE', 100, { min: 1, max: 10_000 }),
    maxBodyBytes,
    projectMemoryBytes,
    requestMemoryBytes,
    shards: read.integer('CW_DB_SHARDS', Math.min(64, availableParallelism()), { min: 1, max: 64 }),
    shardMemoryBytes: shardMemoryMiB * MIB,
    restoreConcurrency: read.integer('CW_DB_RESTORE_CONCURRENCY', DEFAULT_RESTORE_CONCURRENCY, { min: 1, max: 256 }),
    idleCloseMs: read.durationMs('CW_DB_IDLE_CLOSE_TIMEOUT', 300_000, { min: 1000, max: 86_400_000 }),
    // An open database takes 165–200 KiB of its shard's SQLite memory: the default leaves a third of it to statements.
    maxOpenPerShard: read.integer('CW_DB_MAX_OPEN_PER_SHARD', Math.max(1, Math.floor((shardMemoryMiB * 1024) / 320)), { min: 1, max: 1_000_000 }),
    limits: limitPolicy(read),
    storage: {
      projectQuotaBytes: read.integer('CW_DB_PROJECT_STORAGE_QUOTA_MIB', 10 * 1024, { min: 1, max: 1024 * 1024 * 1024 }) * MIB,
      diskReserveBytes: read.integer('CW_DB_DISK_RESERVE_MIB', 1024, { min: 0, max: 1024 * 1024 }) * MIB,
    },
    answer: {
      maxRows: read.integer('CW_DB_MAX_RESULT_ROWS', 1_000_000, { min: 1, max: 100_000_000 }),
      maxBytes: read.integer('CW_DB_MAX_RESULT_BYTES', 10 * MIB, { min: 1024, max: 1024 * MIB }),
    },
    maxResponseBytes: read.integer('CW_DB_MAX_RESPONSE_BYTES', 16 * MIB, { min: 1024, max: 1024 * MIB }),
    maxRequestMs: read.durationMs('CW_DB_MAX_REQUEST_TIME', 30_000, { min: 100, max: 3_600_000 }),
    contendedStatementMs: read.durationMs('CW_DB_CONTENDED_STATEMENT_TIME', 250, { min: 0, max: 3_600_000 }),
    logLevel: read.oneOf('CW_LOG_LEVEL', LOG_LEVELS, 'info'),
    ...clusterConfig(read, { port, adminPort }),
  });
}

/**
 * Present when CW_DB_REPLICA_NAME is set. The others reach this replica at CW_DB_REPLICA_URL and
 * CW_DB_REPLICA_ADMIN_URL, or else at CW_DB_REPLICA_ADDRESS (a host name or an IP, the pod's) on the two ports.
 */
function clusterConfig(read: EnvReader, ports: { port: number; adminPort: number }): { cluster?: ClusterConfig } {
  const name = read.string('CW_DB_REPLICA_NAME', '');
  if (name === '') return {};
  if (!/^[a-z0-9][a-z0-9.-]{0,62}$/.test(name)) throw new ConfigError('CW_DB_REPLICA_NAME must be a DNS label (the pod name)');
  const address = read.string('CW_DB_REPLICA_ADDRESS', '');
  const host = address.includes(':') ? `[${address}]` : address;
  const at = (port: number, variable: string) => {
    const url = read.string(variable, address === '' ? '' : `http://${host}:${port}`);
    if (url === '') throw new ConfigError(`${variable} or CW_DB_REPLICA_ADDRESS is required with CW_DB_REPLICA_NAME`);
    return url;
  };
  return {
    cluster: {
      name,
      url: at(ports.port, 'CW_DB_REPLICA_URL'),
      adminUrl: at(ports.adminPort, 'CW_DB_REPLICA_ADMIN_URL'),
      leaseMs: read.durationMs('CW_DB_LEASE_DURATION', 15_000, { min: 1000, max: 300_000 }),
    },
  };
}

/** The databases' limits: defaults and maxima; a default above its maximum is a configuration error. */
function limitPolicy(read: EnvReader): LimitPolicy {
  const statementTimeoutMs = read.durationMs('CW_DB_STATEMENT_TIMEOUT', 5000, { min: 10, max: 3_600_000 });
  const maxStatementTimeoutMs = read.durationMs('CW_DB_MAX_STATEMENT_TIMEOUT', 30_000, { min: 10, max: 3_600_000 });
  const sizeQuota = read.integer('CW_DB_SIZE_QUOTA_MIB', 1024, { min: 1, max: 1024 * 1024 }) * MIB;
  const maxSizeQuota = read.integer('CW_DB_MAX_SIZE_QUOTA_MIB', 10 * 1024, { min: 1, max: 1024 * 1024 }) * MIB;
  const rowsReadPerDay = read.integer('CW_DB_ROWS_READ_PER_DAY', 100_000_000, { min: 1, max: MAX_ROWS_PER_DAY });
  const maxRowsReadPerDay = read.integer('CW_DB_MAX_ROWS_READ_PER_DAY', 10_000_000_000, { min: 1, max: MAX_ROWS_PER_DAY });
  const rowsWrittenPerDay = read.integer('CW_DB_ROWS_WRITTEN_PER_DAY', 10_000_000, { min: 1, max: MAX_ROWS_PER_DAY });
  const maxRowsWrittenPerDay = read.integer('CW_DB_MAX_ROWS_WRITTEN_PER_DAY', 1_000_000_000, { min: 1, max: MAX_ROWS_PER_DAY });
  if (statementTimeoutMs > maxStatementTimeoutMs) throw new ConfigError('CW_DB_STATEMENT_TIMEOUT must not be longer than CW_DB_MAX_STATEMENT_TIMEOUT');
  if (sizeQuota > maxSizeQuota) throw new ConfigError('CW_DB_SIZE_QUOTA_MIB must not be more than CW_DB_MAX_SIZE_QUOTA_MIB');
  if (rowsReadPerDay > maxRowsReadPerDay) throw new ConfigError('CW_DB_ROWS_READ_PER_DAY must not be more than CW_DB_MAX_ROWS_READ_PER_DAY');
  if (rowsWrittenPerDay > maxRowsWrittenPerDay) throw new ConfigError('CW_DB_ROWS_WRITTEN_PER_DAY must not be more than CW_DB_MAX_ROWS_WRITTEN_PER_DAY');
  return {
    defaults: { statementTimeoutMs, maxSizeBytes: sizeQuota, rowsReadPerDay, rowsWrittenPerDay },
    maxima: { statementTimeoutMs: maxStatementTimeoutMs, maxSizeBytes: maxSizeQuota, rowsReadPerDay: maxRowsReadPerDay, rowsWrittenPerDay: maxRowsWrittenPerDay },
  };
}
