import { Counter, Gauge, type Metric, type Registry } from 'prom-client';
import type { RuntimeEngine } from './engine/index.ts';

type Source = Pick<RuntimeEngine, 'requestStats' | 'latencyBucketsMs' | 'status'>;
type Counts = Awaited<ReturnType<RuntimeEngine['requestStats']>>;
type AppRequestCounts = Counts extends Map<string, infer C> ? C : never;
type Labels = { project: string; app: string; build?: string };
type BuildCounts = Pick<AppRequestCounts, 'classes' | 'buckets' | 'count' | 'sumMs'>;
/** One line of a metric as prom-client's registry prints it (its own type for this is not exported). */
type Sample = { metricName: string; labels: Record<string, string | number>; value: number };

const CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'];

/**
 * Per-app request metrics, counted where requests are served (workerd's dispatcher worker) and read from it at
 * scrape time: requests by status class, a latency histogram, requests in flight and waiting for a slot. One
 * read of the dispatchers serves every metric of a scrape.
 */
export function requestMetrics(registry: Registry, engine: Source): void {
  const registers = [registry];
  let cached: { at: number; counts: Promise<Counts> } | undefined;
  const counts = (): Promise<Counts> => {
    if (!cached || Date.now() - cached.at > 1000) cached = { at: Date.now(), counts: engine.requestStats() };
    return cached.counts;
  };
  const labels = (key: string): Labels => {
    const [project = '', app = ''] = key.split('/');
    return { project, app };
  };
  new Counter({
    name: 'cloudwright_runtime_requests_total',
    help: 'Requests an app answered, by status class (1xx…5xx); 503s of the concurrency limit included. Answers of apps in a rollout carry their build',
    labelNames: ['project', 'app', 'class', 'build'],
    registers,
    async collect() {
      this.reset();
      for (const [key, all] of await counts()) for (const part of byBuild(labels(key), all)) part.counts.classes.forEach((n, i) => n > 0 && this.inc({ ...part.labels, class: CLASSES[i] }, n));
    },
  });
  const perApp = (name: string, help: string, value: (c: AppRequestCounts) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['project', 'app'],
      registers,
      async collect() {
        this.reset();
        for (const [key, c] of await counts()) this.set(labels(key), value(c));
      },
    });
  perApp('cloudwright_runtime_requests_in_flight', 'Requests an app is handling now (each holds one of its maxConcurrentRequests slots until the app answers)', (c) => c.active);
  perApp('cloudwright_runtime_requests_queued', 'Requests waiting for a slot of their app', (c) => c.queued);
  new Gauge({
    name: 'cloudwright_runtime_isolates_loaded',
    help: "App isolates the shards' workerd processes have loaded (apps load on their first request; each shard reports at its health checks)",
    registers,
    collect() {
      this.set(engine.status().loadedWorkers);
    },
  });
  const read = async () => {
    const apps = await counts(); // first: the buckets are known once a dispatcher has answered
    return { bucketsMs: engine.latencyBucketsMs, apps };
  };
  registry.registerMetric(new CountedHistogram(read, labels) as unknown as Metric);
}

/**
 * `cloudwright_runtime_request_duration_seconds`: a histogram whose buckets the dispatcher counts (prom-client's
 * own Histogram can only observe values here), shaped as prom-client's registry prints histograms.
 */
class CountedHistogram {
  readonly name = 'cloudwright_runtime_request_duration_seconds';
  readonly help = 'Time from a request reaching the dispatcher until the app answered with its head';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #read: () => Promise<{ bucketsMs: readonly number[]; apps: Counts }>;
  readonly #labels: (key: string) => Labels;

  constructor(read: () => Promise<{ bucketsMs: readonly number[]; apps: Counts }>, labels: (key: string) => Labels) {
    this.#read = read;
    this.#labels = labels;
  }

  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    const { bucketsMs, apps } = await this.#read();
    const values: Sample[] = [];
    for (const [key, all] of apps) for (const { labels, counts: c } of byBuild(this.#labels(key), all)) this.#series(values, bucketsMs, labels, c);
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  #series(values: Sample[], bucketsMs: readonly number[], labels: Labels, c: BuildCounts): void {
    let cumulative = 0;
    bucketsMs.forEach((ms, i) => {
      cumulative += c.buckets[i] ?? 0;
      values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: ms / 1000 }, value: cumulative });
    });
    values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: c.count });
    values.push({ metricName: `${this.name}_sum`, labels, value: c.sumMs / 1000 });
    values.push({ metricName: `${this.name}_count`, labels, value: c.count });
  }

  /** The registry's `resetMetrics()` calls this; the counts live in the dispatcher. */
  reset(): void {}
}

/**
 * An app's answers as series: those it gave while in a rollout under a `build` label each, the rest (before
 * and after rollouts, and apps never in one) without, so a sum over an app's series is its total as before.
 */
function byBuild(labels: Labels, c: AppRequestCounts): Array<{ labels: Labels; counts: BuildCounts }> {
  if (!c.builds) return [{ labels, counts: c }];
  const rest = { classes: [...c.classes], buckets: [...c.buckets], count: c.count, sumMs: c.sumMs };
  const parts: Array<{ labels: Labels; counts: BuildCounts }> = [];
  for (const [build, b] of Object.entries(c.builds)) {
    parts.push({ labels: { ...labels, build }, counts: b });
    b.classes.forEach((n, i) => (rest.classes[i] = (rest.classes[i] ?? 0) - n));
    b.buckets.forEach((n, i) => (rest.buckets[i] = (rest.buckets[i] ?? 0) - n));
    rest.count -= b.count;
    rest.sumMs -= b.sumMs;
  }
  return rest.count > 0 ? [...parts, { labels, counts: rest }] : parts;
}
