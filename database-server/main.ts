import { createLogger, type Logger } from '../src/logging/log.ts';
import { startHranaServer, type HranaServer } from './hrana/http-server.ts';
import { ShardPool } from './shards/shard-pool.ts';
import { StreamRegistry } from './hrana/stream-registry.ts';
import { OpenDatabases, trackOpenDatabases } from './open-databases.ts';
import { shardIndex } from './shards/shard-index.ts';
import { ProjectMemory } from './hrana/project-memory.ts';
import { UsageMeter } from './sql/usage-meter.ts';
import { bucketStores } from './bucket-stores.ts';
import { adminServer } from './admin-server.ts';
import { bucketReplication } from './bucket-replication.ts';
import type { DatabaseServerConfig } from './config.ts';
import { TenantDirectory } from './tenant-directory.ts';
import { removeLeftoverFiles } from './leftover-files.ts';
import { TenantMetaStore } from './tenant-meta.ts';
import { randomBytes } from 'node:crypto';
import { Ownership } from './cluster/ownership.ts';
import { adminRouter, hranaRouter } from './cluster/routes.ts';
import { peerTokenHolders } from './cluster/peer-token-holders.ts';
import { TokenLocator } from './cluster/token-locator.ts';
import { StorageBudget } from './storage-budget.ts';
import { ownershipCluster } from './ownership-cluster.ts';

const USAGE_SAVE_MS = 10_000;
const PRUNE_MS = 3_600_000;
/** How often the storage each project holds and the disk's free space are measured: how long a burst goes unseen. */
const STORAGE_ROUND_MS = 2_000;
/** A database used this recently is not closed to bring its shard under its bound of open ones. */
const OPEN_GRACE_MS = 2_000;

/** A running cw-db. */
export interface DatabaseServer {
  port: number;
  adminPort: number;
  close(): Promise<void>;
}

// A shard's JavaScript heap: its pipelines' answers (at most 1.5 × PIPELINES_PER_SHARD × CW_DB_MAX_RESPONSE_BYTES, with the
// places lent beyond them: shards/project-slots.ts) and
// request bodies, with room to spare; SQLite's memory is bounded apart (CW_DB_SHARD_MEMORY_MIB).
const SHARD_HEAP_MIB = 512;
const PIPELINES_PER_SHARD = 8;
// A shard answers a ping between two statements, so one silent for twice the longest statement a database may
// run (plus scheduling slack) is stuck.
const hangMs = (maxStatementMs: number) => 2 * maxStatementMs + 2000;

/**
 * Starts cw-db: loads every tenant of the bucket (restoring those the disk lost) before serving, then serves Hrana
 * over HTTP on `port` and the operator's admin API on `adminPort`. Commits of asynchronous databases are shipped
 * every `flushIntervalMs`; usage counters are saved every 10 s; copies past the retention are pruned hourly.
 */
export async function startDatabaseServer(config: DatabaseServerConfig, log: Logger = createLogger({ level: config.logLevel })): Promise<DatabaseServer> {
  // Copies and restores a process that died left behind, each the size of a database, never counted anywhere; with
  // several replicas, the databases' files too (none is opened again: each is restored as its lease is taken).
  const leftovers = await removeLeftoverFiles(config.dataDir, { databases: config.cluster !== undefined });
  if (leftovers > 0) log.info('removed files an earlier process left behind', { files: leftovers });
  const stores = bucketStores(config);
  const store = stores.data;
  // A database's project, from its metadata: the shards' slots and open databases are shared out by project. Asked
  // only once requests run, after the directory below exists.
  let directory: TenantDirectory | undefined;
  const projectOf = (tenant: string) => directory?.projectOf(tenant) ?? tenant;
  const pool = new ShardPool({
    shards: config.shards,
    config: {
      directory: config.dataDir,
      manualCheckpoints: true,
      defaultLimits: config.limits.defaults,
      memoryLimitBytes: config.shardMemoryBytes,
      answer: config.answer,
      maxPipelineAnswerBytes: config.maxResponseBytes,
      maxPipelineMs: config.maxRequestMs,
      contendedStatementMs: config.contendedStatementMs,
    },
    heapMiB: SHARD_HEAP_MIB,
    pipelinesPerShard: PIPELINES_PER_SHARD,
    projectOf,
    hangMs: hangMs(config.limits.maxima.statementTimeoutMs),
    log,
  });
  // The shards boot while the bucket is read and tenants are restored: a tenant's open waits for its shard.
  const shardsStarted = pool.start();
  // Every call to the engine passes through what tracks open connections, so idle ones can be closed.
  const openDatabases = new OpenDatabases({ shardOf: (tenant) => shardIndex(tenant, config.shards), projectOf });
  const engine = trackOpenDatabases(pool, openDatabases);
  const streams = new StreamRegistry({ idleTimeoutMs: config.streamIdleMs, transactionTimeoutMs: config.transactionTimeoutMs, projectOf });
  const meter = new UsageMeter();
  const storage = new StorageBudget({ bounds: config.storage, dataDir: config.dataDir, databasePath: (tenant) => engine.databasePath(tenant), projectOf });
  const metas = new TenantMetaStore(store);
  const replication = bucketReplication(store, undefined, config.restoreConcurrency);
  // Several replicas: each database is opened as this replica takes its lease, not all at start (cluster/).
  const cluster = config.cluster;
  let ownership: Ownership | undefined;
  // Known once it listens; a database released before that has no WebSocket to close.
  let hrana: HranaServer | undefined;
  directory = new TenantDirectory({
    engine,
    limitPolicy: config.limits,
    streams,
    meter,
    metas,
    replication,
    log,
    openDatabases,
    storage,
    ...(cluster
      ? {
          // Shipped elsewhere through this replica's own admin API, which routes it to the owner.
          cluster: ownershipCluster(
            cluster.name,
            () => ownership,
            async (tenant: string) => {
              const answer = await fetch(`${cluster.adminUrl}/v1/tenants/${tenant}/ship`, { method: 'POST', headers: { authorization: `Bearer ${config.adminToken}` } });
              if (answer.status === 404) return false;
              if (!answer.ok) throw new Error(`shipping ${tenant} on its replica answered ${answer.status}`);
              return true;
            },
          ),
        }
      : {}),
  });
  if (cluster) {
    ownership = new Ownership({
      // Its own connections: the heartbeat never waits behind the uploads and restores of `store` (bucket-stores.ts).
      store: stores.leases,
      confirmStore: store,
      self: { name: cluster.name, nonce: randomBytes(8).toString('hex'), url: cluster.url, adminUrl: cluster.adminUrl },
      leaseMs: cluster.leaseMs,
      log: log.child({ replica: cluster.name }),
      hooks: {
        tenants: () => metas.names(),
        adopt: (tenant, fencing, resumed) => directory.adopt(tenant, fencing, resumed),
        drop: (tenant, reason) => {
          hrana?.closeSockets(tenant);
          return directory.release(tenant, reason);
        },
        discard: (tenant) => directory.discard(tenant),
        highestEpoch: (tenant) => replication.highestEpoch(tenant),
      },
    });
    await Promise.all([shardsStarted, ownership.start()]);
  } else await Promise.all([shardsStarted, directory.load()]);
  // Served as each is restored (its requests wait for its own `ready`), not once all are: after a lost disk, a tenant's
  // small database answered only once another's gigabytes were restored, 31 s later in a hostile run.
  const restored = directory.whenAllReady();

  // The storage bounds hold from the first request: what the disk already holds is measured before serving.
  await storage.measure(directory.tenantNames());
  // Several replicas: which database a token opens, asked of the other replicas, else read from the bucket.
  const locator = new TokenLocator(metas, ownership ? peerTokenHolders(() => ownership?.peers() ?? [], config.adminToken) : undefined);
  hrana = await startHranaServer({
    port: config.port,
    host: config.host,
    connections: config.connections,
    engine,
    streams,
    meter,
    maxBodyBytes: config.maxBodyBytes,
    memory: new ProjectMemory({ limitBytes: config.projectMemoryBytes, totalLimitBytes: config.requestMemoryBytes, projectOf }),
    authorize: (request, pathTenant) => directory.authorize(request, pathTenant),
    websocket: {
      authorize: (token, pathTenant) => directory.authorizeToken(token, pathTenant),
      idleTimeoutMs: config.webSocketIdleMs,
      maxConnectionsPerDatabase: config.webSocketsPerDatabase,
    },
    afterCommit: (tenant, after) => directory.afterCommit(tenant, after),
    quota: (tenant) => directory.quotaRefusal(tenant),
    growth: (tenant) => storage.freezeOf(tenant),
    vacuumRoom: () => storage.vacuumRoom(),
    afterRequest: (tenant, outcome) => directory.afterRequest(tenant, outcome),
    unserved: (tenant) => directory.unserved(tenant),
    ...(ownership ? { route: hranaRouter(ownership, metas, locator, (token) => directory.tenantOfToken(token)) } : {}),
  });
  const admin = await adminServer({
    directory,
    token: config.adminToken,
    shards: () => pool.state(),
    openDatabases: () => openDatabases.count,
    ...(ownership && cluster ? { route: adminRouter(ownership, metas, cluster.name) } : {}),
  });
  await admin.listen({ port: config.adminPort, host: config.adminHost });
  const adminPort = (admin.server.address() as { port: number }).port;

  const savedUsage = new Map<string, string>();
  const timers = [
    directory.shipEvery(config.flushIntervalMs),
    every(USAGE_SAVE_MS, () => directory.saveUsage(savedUsage)),
    every(PRUNE_MS, () => directory.prune(config.retentionMs)),
    every(STORAGE_ROUND_MS, () => storage.measure(directory.tenantNames())),
    // Every second at most, so a shard past its bound of open databases is brought back under it within about one.
    every(Math.min(Math.max(config.idleCloseMs / 4, 250), 1000), async () => {
      await directory.closeIdle({ idleMs: config.idleCloseMs, maxOpenPerShard: config.maxOpenPerShard, graceMs: OPEN_GRACE_MS });
    }),
  ];
  log.info('cw-db serving', { port: hrana.port, adminPort, dataDir: config.dataDir, bucket: config.bucket, shards: config.shards });
  // What the restores wrote counts toward the storage bounds from then on, not at the next round only.
  const tenants = directory;
  void restored
    .then(async () => {
      await storage.measure(tenants.tenantNames());
      log.info('every database restored', { databases: [...tenants.tenantNames()].length });
    })
    .catch((err: unknown) => log.warn('measuring the restored databases failed; the next round does', { err }));

  return {
    port: hrana.port,
    adminPort,
    close: async () => {
      for (const timer of timers) timer.stop();
      await admin.close();
      await hrana.close();
      // Ships and closes every database this replica owns, and frees their leases for the others at once.
      await ownership?.stop();
      await directory.close();
      await directory.saveUsage(savedUsage);
      stores.destroy();
    },
  };

  /** Runs `task` every `ms`, never two at once; a failure is logged and the next round tries again. */
  function every(ms: number, task: () => Promise<void>): { stop(): void } {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      task()
        .catch((err: unknown) => log.warn('a periodic task failed', { err }))
        .finally(() => (running = false));
    }, ms);
    timer.unref();
    return { stop: () => clearInterval(timer) };
  }
}
