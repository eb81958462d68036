// One load measurement, run as its own process so the load generator shares no event loop with the
// orchestrator or the servers. Argument: JSON {url, token?, connections, warmupSeconds, durationSeconds}.
// A warm-up run (discarded) lets V8 optimise and caches fill; then the measured run. Prints one JSON line.
import autocannon from 'autocannon';

export interface LoadSpec {
  url: string;
  token?: string;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
const headers: Record<string, string> = spec.token ? { authorization: `Bearer ${spec.token}` } : {};
const run = (duration: number) => autocannon({ url: spec.url, connections: spec.connections, duration, headers });

if (spec.warmupSeconds > 0) await run(spec.warmupSeconds);
const result = await run(spec.durationSeconds);
const summary: LoadResult = {
  requestsPerSecond: result.requests.total / result.duration,
  p50Ms: result.latency.p50,
  p99Ms: result.latency.p99,
  total: result.requests.total,
  errors: result.errors,
  timeouts: result.timeouts,
  non2xx: result.non2xx,
  statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, Number(count)])),
};
process.stdout.write(`${JSON.stringify(summary)}\n`);
