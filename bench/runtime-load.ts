// One load measurement for bench/runtime.ts, as its own process (the load generator shares no event loop
// with the orchestrator, cw-runtime or workerd). Argument: JSON {url, host, connections, warmupSeconds,
// durationSeconds, servername?}; `host` is sent as the Host header (the entry point routes by it). Prints one JSON line.
import autocannon from 'autocannon';

export interface RuntimeLoadSpec {
  url: string;
  host: string;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  /** The SNI server name of an https `url` (default: its host, 127.0.0.1). */
  servername?: string;
  /** Each request carries a key of its own in `header` (autocannon's `[<id>]`): many users with their affinity keys. */
  keys?: { header: string };
}

export interface RuntimeLoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
  /** Requests of the warm-up run (for CPU accounting over the whole child run). */
  warmupTotal: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as RuntimeLoadSpec;
const run = (duration: number) =>
  autocannon({
    url: spec.url,
    connections: spec.connections,
    duration,
    headers: { host: spec.host, ...(spec.keys ? { [spec.keys.header]: '[<id>]' } : {}) },
    ...(spec.keys ? { idReplacement: true } : {}),
    ...(spec.servername ? { servername: spec.servername } : {}),
  });

const warmup = spec.warmupSeconds > 0 ? await run(spec.warmupSeconds) : undefined;
const result = await run(spec.durationSeconds);
const summary: RuntimeLoadResult = {
  requestsPerSecond: result.requests.total / result.duration,
  p50Ms: result.latency.p50,
  p99Ms: result.latency.p99,
  total: result.requests.total,
  warmupTotal: warmup?.requests.total ?? 0,
  errors: result.errors,
  timeouts: result.timeouts,
  non2xx: result.non2xx,
};
process.stdout.write(`${JSON.stringify(summary)}\n`);
