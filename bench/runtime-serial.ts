// One request after another on one kept-alive connection, each timed to the microsecond: the latency a hop
// adds, without the queueing of a saturated server (autocannon's percentiles have a 1 ms resolution). A
// process of its own, as the load runs are. Argument: JSON {url, host, count, warmup}. Prints one JSON line.
import { Client } from 'undici';

export interface SerialSpec {
  url: string;
  host: string;
  count: number;
  warmup: number;
}

export interface SerialResult {
  count: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  meanMs: number;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as SerialSpec;
const client = new Client(spec.url, { pipelining: 1 });
const once = async () => {
  const { statusCode, body } = await client.request({ method: 'GET', path: '/', headers: { host: spec.host } });
  await body.text();
  if (statusCode !== 200) throw new Error(`${spec.url} answered ${statusCode}`);
};
for (let i = 0; i < spec.warmup; i++) await once();
const ms: number[] = [];
for (let i = 0; i < spec.count; i++) {
  const t0 = process.hrtime.bigint();
  await once();
  ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
}
await client.close();
ms.sort((a, b) => a - b);
const at = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))] ?? NaN;
const result: SerialResult = { count: ms.length, p50Ms: at(0.5), p90Ms: at(0.9), p99Ms: at(0.99), meanMs: ms.reduce((a, b) => a + b, 0) / ms.length };
process.stdout.write(`${JSON.stringify(result)}\n`);
