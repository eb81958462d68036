// `make bench-db`: Cloudwright's database engine (database-server: Hrana v2 over HTTP on `libsql`) against the
// reference server, sqld, in the same run: the same schema, the same rows, the same queries, through the official
// client (`@libsql/client`). Each server runs in a process of its own, and so does each load run (bench/db/load.ts).
//
//   1. point read  `SELECT v FROM kv WHERE id = ?` (random ids in the seeded rows), through the client;
//   2. the same point read as a raw `fetch` of the pipeline body the client sends: the client's own cost left out;
//   3. small insert `INSERT INTO kv (k, v, n) VALUES (?, ?, ?)` (autocommit: one transaction each).
//
// Each workload keeps `--concurrency` operations in flight over `--clients` clients, `--warmup` seconds then
// `--duration` (or BENCH_SECONDS) measured, `--rounds` times per server, the servers alternating. Prints a table
// per workload with ours / sqld ratios; exits non-zero only when the run itself failed. `--profile` runs the engine
// under `node --cpu-prof` and names the profile. See bench/db/README.md.
import { createClient } from '@libsql/client';
import { readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot, toolPath } from '../e2e/harness/tools.ts';
import { runToCompletion } from './child.ts';
import type { LoadResult, LoadSpec, Workload } from './db/load.ts';
import { cpuSeconds, reapedChildrenCpuSeconds, startEngine, startSqld, type DbServer } from './db/servers.ts';
import { startCwDb, type CwDb } from './db/cw-db.ts';
import { commitLatencies, downloadReplica, fillDatabase } from './db/durability.ts';
import { median } from './git-measure.ts';
import { benchRun, runBench } from './run.ts';

const TARGETS = { throughputRatio: 1.0 };

const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: process.env.BENCH_SECONDS ?? '5' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '16' },
    clients: { type: 'string', default: '4' },
    rows: { type: 'string', default: '10000' },
    workloads: { type: 'string', default: 'read,raw-read,insert,ws-read,ws-insert' },
    profile: { type: 'boolean', default: false },
    commits: { type: 'string', default: '200' },
    'restore-mb': { type: 'string', default: '100' },
    'skip-durability': { type: 'boolean', default: false },
  },
});

function positive(name: 'duration' | 'warmup' | 'rounds' | 'concurrency' | 'clients' | 'rows' | 'commits' | 'restore-mb', min = 1): number {
  const value = Number(flags[name]);
  if (!Number.isFinite(value) || value < min) {
    process.stderr.write(`bench: --${name} must be a number ≥ ${min}\n`);
    process.exit(2);
  }
  return value;
}
const durationSeconds = positive('duration');
const warmupSeconds = positive('warmup', 0);
const rounds = positive('rounds');
const concurrency = positive('concurrency');
const clients = positive('clients');
const rows = positive('rows');

const run = benchRun();
const { stateDir } = run;
const node = toolPath('node');
const say = (message: string) => process.stdout.write(`bench: ${message}\n`);

const ALL_WORKLOADS: { workload: Workload; title: string }[] = [
  { workload: 'read', title: 'point read, @libsql/client   SELECT v FROM kv WHERE id = ?' },
  { workload: 'raw-read', title: 'point read, raw fetch (no client; the same pipeline body)' },
  { workload: 'insert', title: 'small insert, @libsql/client   INSERT INTO kv (k, v, n) VALUES (?, ?, ?)' },
  { workload: 'ws-read', title: 'point read, @libsql/client over ws:// (Hrana over WebSocket)' },
  { workload: 'ws-insert', title: 'small insert, @libsql/client over ws:// (Hrana over WebSocket)' },
];
const chosen = (flags.workloads ?? '').split(',');
const WORKLOADS = ALL_WORKLOADS.filter((w) => chosen.includes(w.workload));
if (WORKLOADS.length !== chosen.length) {
  process.stderr.write(`bench: --workloads is a comma-separated list of ${ALL_WORKLOADS.map((w) => w.workload).join(', ')}\n`);
  process.exit(2);
}

/** The schema and `rows` rows, through the client, as an application would load them. */
async function seed(server: DbServer): Promise<{ journalMode: string; synchronous: string }> {
  const client = createClient({ url: server.url, ...(server.authToken ? { authToken: server.authToken } : {}) });
  try {
    await client.execute('CREATE TABLE kv (id INTEGER PRIMARY KEY, k TEXT UNIQUE, v TEXT, n REAL)');
    const chunk = 1000;
    for (let first = 1; first <= rows; first += chunk) {
      const stmts = [];
      for (let id = first; id < first + chunk && id <= rows; id++) {
        stmts.push({ sql: 'INSERT INTO kv (id, k, v, n) VALUES (?, ?, ?, ?)', args: [id, `seed-${id}`, `value ${id} ${'x'.repeat(32)}`, id / 3] });
      }
      await client.batch(stmts, 'write');
    }
    const count = Number((await client.execute('SELECT count(*) FROM kv')).rows[0]?.[0]);
    if (count !== rows) throw new Error(`${server.name} holds ${count} rows after seeding, not ${rows}`);
    const pragma = async (name: string) => {
      const value = (await client.execute(`PRAGMA ${name}`)).rows[0]?.[0];
      return typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' ? String(value) : '?';
    };
    if (server.settings) return server.settings;
    const synchronous = await pragma('synchronous');
    return { journalMode: await pragma('journal_mode'), synchronous: SYNCHRONOUS[synchronous] ?? synchronous };
  } finally {
    client.close();
  }
}

const COLUMNS: { title: string; pick: (m: Measured) => number; digits: number }[] = [
  { title: 'ops/s', pick: (m) => m.opsPerSecond, digits: 0 },
  { title: 'p50 ms', pick: (m) => m.p50Ms, digits: 2 },
  { title: 'p99 ms', pick: (m) => m.p99Ms, digits: 2 },
  { title: 'server µs/op', pick: (m) => m.serverCpuMicros, digits: 0 },
  { title: 'client µs/op', pick: (m) => m.loaderCpuMicros, digits: 0 },
];
const WIDTHS = [9, 9, 9, 14, 14];

const SYNCHRONOUS: Record<string, string> = { '0': 'OFF', '1': 'NORMAL', '2': 'FULL', '3': 'EXTRA' };

interface Measured extends LoadResult {
  /** CPU microseconds of the server per operation over the whole load run (warm-up included). */
  serverCpuMicros: number;
  /** The same for the load generator (the client's own cost). */
  loaderCpuMicros: number;
}

async function load(server: DbServer, workload: Workload): Promise<Measured> {
  const spec: LoadSpec = { url: server.url, wsUrl: server.wsUrl, workload, clients, concurrency, warmupSeconds, durationSeconds, rows, ...(server.authToken ? { authToken: server.authToken } : {}) };
  const [before, loaderBefore] = [cpuSeconds(server.pid), reapedChildrenCpuSeconds()];
  const result = JSON.parse(await runToCompletion(node, [join(repoRoot, 'bench/db/load.ts'), JSON.stringify(spec)])) as LoadResult;
  const perOp = (seconds: number) => (seconds * 1e6) / Math.max(1, result.allOps);
  const serverCpuMicros = perOp(cpuSeconds(server.pid) - before);
  const loaderCpuMicros = perOp(reapedChildrenCpuSeconds() - loaderBefore);
  if (result.errors > 0 || result.ops === 0) {
    throw new Error(`${workload} on ${server.name}: ${result.errors} failed and ${result.allOps} completed operations (first error: ${result.firstError ?? 'none'})`);
  }
  return { ...result, serverCpuMicros, loaderCpuMicros };
}

type Results = Map<Workload, Map<string, Measured[]>>;

async function measure(servers: readonly DbServer[]): Promise<Results> {
  const results: Results = new Map();
  for (const { workload } of WORKLOADS) {
    const byServer = new Map(servers.map((s) => [s.name, [] as Measured[]]));
    results.set(workload, byServer);
    for (let round = 1; round <= rounds; round++) {
      // Alternating order, so a change in what else the machine does shows in both.
      for (const server of round % 2 === 1 ? servers : [...servers].reverse()) {
        let m: Measured;
        try {
          m = await load(server, workload);
        } catch (err) {
          // sqld sometimes stops answering concurrent inserts altogether (bench/db/README.md): that run of the
          // reference is left out and said so; a failed run of ours fails the benchmark.
          if (server !== servers[1]) throw err;
          say(`${workload} on ${server.name}, round ${round}: left out, ${err instanceof Error ? err.message : String(err)}`);
          continue;
        }
        byServer.get(server.name)?.push(m);
        say(`${workload} on ${server.name}, round ${round}: ${m.opsPerSecond.toFixed(0)} ops/s, p50 ${m.p50Ms.toFixed(2)} ms, p99 ${m.p99Ms.toFixed(2)} ms`);
      }
    }
  }
  return results;
}

async function main(): Promise<void> {
  const cpuProfileDir = flags.profile ? join(stateDir, 'profile') : undefined;
  const cwdb = await startCwDb(run, cpuProfileDir ? { cpuProfileDir } : {});
  const [ours, reference] = [await startEngine(cwdb), await startSqld(run)];
  const servers = [ours, reference];
  const setups = new Map<string, { journalMode: string; synchronous: string }>();
  for (const server of servers) setups.set(server.name, await seed(server));
  say(`seeded ${rows} rows into each; logs in ${stateDir}`);
  const results = await measure(servers);

  const durability = flags['skip-durability'] ? undefined : await measureDurability(cwdb);
  report(results, ours, reference, setups);
  if (durability) reportDurability(durability);
  if (cpuProfileDir) {
    await ours.stop();
    const written = readdirSync(cpuProfileDir).filter((f) => f.endsWith('.cpuprofile'));
    say(`engine CPU profile: ${written.map((f) => join(cpuProfileDir, f)).join(', ')} (kept: CW_KEEP_BENCH_STATE is set for --profile)`);
  }
}

/** SQLITE_BUSY answers and stalled operations over all runs, if any (they are not in ops/s or the latencies). */
function busyNote(ms: Measured[]): string {
  const busy = ms.reduce((sum, m) => sum + m.busy, 0);
  const stalled = ms.reduce((sum, m) => sum + m.stalled, 0);
  const notes = [busy > 0 ? `${busy} SQLITE_BUSY refusals` : '', stalled > 0 ? `${stalled} requests never answered` : ''].filter(Boolean);
  return notes.length > 0 ? `   (${notes.join(', ')}, over the runs)` : '';
}

function report(results: Results, ours: DbServer, reference: DbServer, setups: Map<string, { journalMode: string; synchronous: string }>): void {
  const mark = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  const setup = (s: DbServer) => {
    const p = setups.get(s.name);
    return `${s.name} (journal_mode ${p?.journalMode}, synchronous ${p?.synchronous})`;
  };
  const lines = [
    '',
    `Node ${process.version}; ${setup(ours)} against ${setup(reference)}; ${rows} seeded rows`,
    `${concurrency} operations in flight over ${clients} clients; ${warmupSeconds} s warm-up + ${durationSeconds} s measured per run; ${rounds} runs per server, alternating; figures are medians over the runs`,
  ];
  const targets: string[] = [];
  for (const { workload, title } of WORKLOADS) {
    const byServer = results.get(workload);
    const mine = byServer?.get(ours.name) ?? [];
    const theirs = byServer?.get(reference.name) ?? [];
    const med = (ms: Measured[], pick: (m: Measured) => number) => median(ms.map(pick));
    // Medians against medians: a run of the reference may have been left out (see measure).
    const ratio = (pick: (m: Measured) => number) => (theirs.length === 0 ? NaN : med(mine, pick) / med(theirs, pick));
    const cells = (name: string, values: string[], spread = '') => `  ${name.padEnd(24)}${values.map((v, i) => v.padStart(WIDTHS[i] ?? 9)).join('')}     ${spread}`.trimEnd();
    const row = (name: string, ms: Measured[]) => {
      const throughputs = ms.map((m) => m.opsPerSecond);
      return cells(
        name,
        COLUMNS.map(({ pick, digits }) => med(ms, pick).toFixed(digits)),
        `${Math.min(...throughputs).toFixed(0)}–${Math.max(...throughputs).toFixed(0)}${busyNote(ms)}`,
      );
    };
    const throughput = ratio((m) => m.opsPerSecond);
    lines.push(
      '',
      title,
      cells(
        '',
        COLUMNS.map((c) => c.title),
        'ops/s, slowest–fastest run',
      ),
      row(ours.name, mine),
      row(reference.name, theirs),
      cells(
        'ours / sqld',
        COLUMNS.map(({ pick }) => ratio(pick).toFixed(2)),
      ),
    );
    targets.push(
      `  ${mark(throughput >= TARGETS.throughputRatio)} ${workload} throughput ≥ ${TARGETS.throughputRatio.toFixed(1)} × sqld: ${throughput.toFixed(2)} (p99 ${ratio((m) => m.p99Ms).toFixed(2)} × sqld's)`,
    );
  }
  lines.push(
    '',
    `(${cpus().length} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at the end: the load generator and the server share them; server and client µs/op are the CPU time per operation of the server and of the load process, warm-up included)`,
    '',
    'targets',
    ...targets,
    '',
  );
  process.stdout.write(lines.join('\n'));
}

interface Durability {
  commits: number;
  latencies: { async: number[]; sync: number[]; sqld: number[] };
  restore: { megabytes: number; restoreMs: number; download: { ms: number; bytes: number } };
}

/** Commit latency in both modes against sqld's, then a restore of a database of `--restore-mb` MB on an empty disk. */
async function measureDurability(cwdb: CwDb): Promise<Durability> {
  const commits = positive('commits');
  const megabytes = positive('restore-mb');
  const latencies = {
    async: await commitLatencies(await cwdb.createDatabase('latency-async', 'async'), commits),
    sync: await commitLatencies(await cwdb.createDatabase('latency-sync', 'sync'), commits),
    // A fresh sqld: the one under load may have stopped answering inserts (see measure).
    sqld: await commitLatencies(await startSqld(run, 'sqld-latency'), commits),
  };
  say(`commit latency measured (${commits} sequential inserts each); filling a ${megabytes} MB database`);
  await fillDatabase(cwdb, 'restore-big', megabytes);
  await cwdb.stop({ wipeDisk: true });
  const started = performance.now();
  await cwdb.start();
  const restoreMs = performance.now() - started;
  const download = await downloadReplica(cwdb.minio, cwdb.bucket, 'restore-big');
  return { commits, latencies, restore: { megabytes, restoreMs, download } };
}

function reportDurability(d: Durability): void {
  const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))] ?? NaN;
  const line = (name: string, values: number[]) => `  ${name.padEnd(34)}${pct(values, 50).toFixed(2).padStart(9)}${pct(values, 99).toFixed(2).padStart(9)}`;
  const sqldP50 = pct(d.latencies.sqld, 50);
  const lines = [
    '',
    `commit latency, ${d.commits} sequential single-row inserts through @libsql/client (ms)`,
    `  ${''.padEnd(34)}${'p50'.padStart(9)}${'p99'.padStart(9)}`,
    line('cw-db async (shipped within 1 s)', d.latencies.async),
    line('cw-db sync (acknowledged in bucket)', d.latencies.sync),
    line('sqld (local disk only)', d.latencies.sqld),
    `  p50 ratios to sqld: async ${(pct(d.latencies.async, 50) / sqldP50).toFixed(2)}, sync ${(pct(d.latencies.sync, 50) / sqldP50).toFixed(2)}`,
    '',
    `restore of a ${d.restore.megabytes} MB database on an empty disk (cw-db start to serving, every database of the bucket restored)`,
    `  cw-db restore                ${(d.restore.restoreMs / 1000).toFixed(2)} s`,
    `  download of its objects      ${(d.restore.download.ms / 1000).toFixed(2)} s (${(d.restore.download.bytes / 1048576).toFixed(1)} MiB gzipped in the bucket)`,
    `  restore / download           ${(d.restore.restoreMs / d.restore.download.ms).toFixed(2)}`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

if (flags.profile) process.env.CW_KEEP_BENCH_STATE = '1';
await runBench(run, main);
