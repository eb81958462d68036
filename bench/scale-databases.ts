// `make bench-scale-databases`: many databases on cw-db as several replicas (issue 45 item 4). Starts MinIO and
// `--replicas` real cw-db processes on one bucket (`node bin/cw-db.ts`, as the chart's StatefulSet runs them), then:
//
//   1. creates `--databases` databases through the replicas' admin APIs (round robin, `--concurrency` at a time),
//      and asks each `SELECT 1` through a replica that does not own it (forwarded), with the official client;
//      reports the time to create and to answer, the placement (databases per replica), each replica's RSS (its
//      shard processes included) before and after, and the bucket's objects;
//   2. the same creation on ONE cw-db without cluster mode (`--reference-databases`, a tenth by default), before the
//      replicas start: the ratio per database is what the leases, placement and forwarding cost;
//   3. a failover: one replica SIGKILLed and its disk wiped (a lost pod) while `--sync-databases` synchronous
//      databases take inserts; the time until each database it owned answers through a survivor, against the lease
//      (the documented bound is the lease plus a restore), the survivors' RSS after, and every acknowledged insert
//      read back (the bench fails on a lost one).
//
// Prints figures; exits non-zero only when the run itself failed (a database that never answered, a lost insert).
// Not a test.
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startCwDbCluster } from '../e2e/harness/cw-db-cluster.ts';
import { cwDbProcess, type CwDbProcess } from '../e2e/harness/cw-db-process.ts';
import { createRunBucket, startMinio } from '../e2e/harness/minio.ts';
import { EnvReader } from '../src/config/env.ts';
import { S3ObjectStore } from '../src/object-store/s3-object-store.ts';
import { measureFailover } from './database-failover.ts';
import { mib, percentiles, placement, rss, rssText, say, seconds as s } from './database-figures.ts';
import { bucketTotals, createDatabases, firstAnswers, leaseHolders, type CreatedDatabase, type DbEndpoint } from './database-fleet.ts';
import { benchRun, runBench } from './run.ts';

const { values: flags } = parseArgs({
  options: {
    databases: { type: 'string', default: '10000' },
    replicas: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '16' },
    'reference-databases': { type: 'string' },
    'sync-databases': { type: 'string', default: '6' },
    // The chart's values (database.leaseDuration, database.shards).
    lease: { type: 'string', default: '15s' },
    shards: { type: 'string', default: '2' },
    'failover-timeout': { type: 'string', default: '1200' },
  },
});

function whole(name: keyof typeof flags, min: number, fallback?: number): number {
  const raw = flags[name];
  const value = raw === undefined ? fallback : Number(raw);
  if (value === undefined || !Number.isInteger(value) || value < min) {
    process.stderr.write(`bench: --${name} must be a whole number of at least ${min}, not ${JSON.stringify(raw)}\n`);
    process.exit(2);
  }
  return value;
}
const databases = whole('databases', 1);
const replicaCount = whole('replicas', 2);
const concurrency = whole('concurrency', 1);
const referenceCount = whole('reference-databases', 1, Math.max(1, Math.round(databases / 10)));
const syncCount = Math.min(databases, whole('sync-databases', 1));
const failoverTimeoutMs = whole('failover-timeout', 1) * 1000;
const shards = String(whole('shards', 1));
// Read as cw-db reads CW_DB_LEASE_DURATION, with its bounds.
const leaseMs = new EnvReader({ CW_DB_LEASE_DURATION: flags.lease }).durationMs('CW_DB_LEASE_DURATION', 15_000, { min: 1000, max: 300_000 });
/** A database that failed to answer is asked again this long after, at the soonest: the resolution of the failover times. */
const RETRY_MS = 100;

const names = (count: number, prefix: string) => Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(5, '0')}`);

/** Creates the databases, then asks each `SELECT 1` through `via` until it answers; times both from the first creation. */
async function createAndOpen(
  tenants: readonly { tenant: string; durability: 'sync' | 'async' }[],
  adminToken: string,
  creator: (i: number) => DbEndpoint,
  reader: (database: CreatedDatabase) => DbEndpoint,
) {
  const t0 = performance.now();
  const { created, retries } = await createDatabases(tenants, { adminToken, concurrency, via: creator });
  const createdMs = performance.now() - t0;
  const open = await firstAnswers(created, { concurrency, via: reader, retryMs: RETRY_MS, deadline: performance.now() + failoverTimeoutMs });
  if (open.answeredAt.size < created.length) throw new Error(`${created.length - open.answeredAt.size} of ${created.length} databases never answered SELECT 1 (last error: ${open.lastError})`);
  const openMs = Math.max(...open.answeredAt.values()) - t0;
  const slowest = [...open.latencyMs].sort((a, b) => b[1] - a[1]).slice(0, 5);
  return { created, retries, createdMs, openMs, latencyMs: [...open.latencyMs.values()], slowest: slowest.map(([tenant, ms]) => `${tenant} ${ms.toFixed(0)} ms`).join(', '), failures: open.failures };
}

const run = benchRun();
await runBench(run, async () => {
  say(
    `bench-scale-databases: ${databases} databases on ${replicaCount} cw-db replicas (lease ${s(leaseMs)}, ${shards} shards each, ${syncCount} synchronous), ${concurrency} requests at a time; reference: ${referenceCount} on one cw-db`,
  );
  say(
    `${cpus().length} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at the start (anything else running moves these numbers); Node ${process.version}\n`,
  );
  const minio = await startMinio(run.stateDir);
  run.stops.push(() => minio.service.stop());
  const env = { CW_DB_SHARDS: shards, CW_DB_LEASE_DURATION: String(leaseMs) };

  // 2. The reference first, alone: one cw-db without cluster mode, stopped before the replicas start.
  const singleToken = randomBytes(32).toString('hex');
  const single = await cwDbProcess({
    stateDir: run.stateDir,
    s3: minio.s3,
    bucket: await createRunBucket(minio, 'cw-bench-db-single'),
    adminToken: singleToken,
    name: 'cw-db-single',
    suffix: 'ref',
    env,
  });
  await single.start();
  run.stops.push(() => single.halt({ signal: 'SIGTERM' }));
  const singleRss = [rss(single)];
  const ref = await createAndOpen(
    names(referenceCount, 'ref').map((tenant) => ({ tenant, durability: 'async' as const })),
    singleToken,
    () => single,
    () => single,
  );
  singleRss.push(rss(single));
  await single.halt({ signal: 'SIGTERM' });
  const refPerSecond = referenceCount / (ref.createdMs / 1000);
  say(`reference, one cw-db (no cluster mode), ${referenceCount} databases:`);
  say(`  created in ${s(ref.createdMs)} (${refPerSecond.toFixed(0)}/s, ${ref.retries} retried); all answering SELECT 1 ${s(ref.openMs)} after the first creation (${percentiles(ref.latencyMs)})`);
  say(`  RSS ${rssText(singleRss[0])} → ${rssText(singleRss[1])}: ${(((singleRss[1]?.tree ?? 0) - (singleRss[0]?.tree ?? 0)) / referenceCount / 1024).toFixed(1)} KiB per database\n`);

  // 1. The replicas: started at once, then a round of each (a third of the lease) so that every one has read every
  // other's heartbeat and places a new database where the others would.
  const cluster = await startCwDbCluster({ stateDir: run.stateDir, s3: minio.s3, name: 'cw-db', replicas: replicaCount, env });
  run.stops.push(() => cluster.stop());
  await sleep(leaseMs / 3 + 1000);
  const replicas = cluster.replicas;
  const replicaNames = replicas.map((r) => r.name);
  const store = new S3ObjectStore({ config: minio.s3, bucket: cluster.bucket });
  run.stops.push(async () => store.destroy());
  const rssBefore = replicas.map(rss);
  // The synchronous ones first: the burst of the failover writes to them.
  const tenants = names(databases, 'db').map((tenant, i) => ({ tenant, durability: i < syncCount ? ('sync' as const) : ('async' as const) }));
  const notOwner = (database: CreatedDatabase, index = 0): CwDbProcess => {
    const others = replicas.filter((r) => r.name !== database.owner && r.service !== undefined);
    return others[index % others.length] ?? replicas[0]!;
  };
  let asked = 0;
  const cl = await createAndOpen(
    tenants,
    cluster.adminToken,
    (i) => replicas[i % replicas.length]!,
    (database) => notOwner(database, asked++),
  );
  const rssAfter = replicas.map(rss);
  const holders = await leaseHolders(
    store,
    tenants.map((t) => t.tenant),
    concurrency * 2,
  );
  const moved = cl.created.filter((d) => holders.get(d.tenant) !== d.owner).length;
  const bucket = await bucketTotals(store);
  const perSecond = databases / (cl.createdMs / 1000);
  say(`${replicaCount} replicas (cluster mode), ${databases} databases:`);
  say(`  created in ${s(cl.createdMs)} (${perSecond.toFixed(0)}/s, ${cl.retries} retried), round robin over the admin APIs (each forwards to the replica placement prefers)`);
  say(`  all answering SELECT 1 through a replica that does not own them (forwarded) ${s(cl.openMs)} after the first creation (${percentiles(cl.latencyMs)}; ${cl.failures} refused first)`);
  // The client's URL names no database: a replica finds it by the token, and the first tokens it does not know wait
  // for its first read of every database's metadata (TokenLocator).
  say(`  slowest first answers: ${cl.slowest} (the first asked through each replica wait for its first read of every database's metadata: routing by token)`);
  say(`  placement (lease holders in the bucket): ${placement(holders, replicaNames)}; ${moved} owned by another replica than the one that created them`);
  for (const [i, r] of replicas.entries()) say(`  ${r.name} RSS ${rssText(rssBefore[i])} → ${rssText(rssAfter[i])}`);
  const growth = rssAfter.reduce((a, b) => a + b.tree, 0) - rssBefore.reduce((a, b) => a + b.tree, 0);
  say(`  RSS growth of all replicas ${(growth / databases / 1024).toFixed(1)} KiB per database`);
  say(`  bucket: ${bucket.objects} objects, ${mib(bucket.bytes)} (${(bucket.objects / databases).toFixed(1)} objects per database)`);
  say(
    `  against one cw-db, per database: creations/s ${(perSecond / refPerSecond).toFixed(2)} ×, time to all answering ${(cl.openMs / databases / (ref.openMs / referenceCount)).toFixed(2)} ×${referenceCount === databases ? '' : ` (reference of ${referenceCount}, compared per database)`}\n`,
  );

  // 3. Failover.
  await measureFailover({ replicas, store, created: cl.created, memoryBefore: rssAfter, concurrency, leaseMs, retryMs: RETRY_MS, timeoutMs: failoverTimeoutMs });
  say(
    `\nload average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at the end`,
  );
});
