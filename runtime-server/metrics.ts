import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { RuntimeEngine } from './engine/index.ts';
import type { AppRecords } from './app-records.ts';
import type { LimitCounts } from './engine/app-limits.ts';

export interface ServingMetrics {
  /** Time from a reconcile handing a spec to the engine until it is served or refused. */
  readonly deploySeconds: Histogram<'result'>;
}

const deployBuckets = [0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30, 60];

/** Metrics of one label read from the limits' counts at scrape time: each of `values` with its count (0 when none). */
const LIMIT_METRICS: readonly { name: string; help: string; label: string; values: readonly string[]; read: (counts: LimitCounts) => ReadonlyMap<string, number>; gauge?: boolean }[] = [
  {
    name: 'cloudwright_runtime_shard_stops_total',
    help: "A shard's workerd ended by kind: cpu (stuck in an app's code past the CPU bound), memory (past its memory bound), heap (an isolate past its heap bound), crash",
    label: 'kind',
    values: ['cpu', 'memory', 'heap', 'crash'],
    read: (counts) => counts.stops,
  },
  {
    name: 'cloudwright_runtime_saturated_windows_total',
    help: "Windows over which a shard's thread was found saturated while requests waited (the sustained CPU bound), by outcome: held (an app was held to it), nobody",
    label: 'outcome',
    values: ['held', 'nobody'],
    read: (counts) => counts.saturated,
  },
  {
    name: 'cloudwright_runtime_apps_quarantined',
    help: 'Apps this replica does not route to for a while (answered 503), by reason (CPULimitExceeded, MemoryLimitExceeded)',
    label: 'reason',
    values: ['CPULimitExceeded', 'MemoryLimitExceeded'],
    read: (counts) => counts.quarantined,
    gauge: true,
  },
];

/**
 * cw-runtime's own metrics, beside the controller runtime's `controller_runtime_*` and `workqueue_*` and the
 * object store's `service_store_*`: the engine's state is read at scrape time, so it is never stale.
 */
export function servingMetrics(
  registry: Registry,
  engine: Pick<RuntimeEngine, 'status' | 'limits' | 'deployedApps' | 'fallbackApps' | 'heldRequests' | 'coldStartsRefused'>,
  records: AppRecords,
  firstListPending: () => number = () => 0,
): ServingMetrics {
  const registers = [registry];
  new Gauge({
    name: 'cloudwright_runtime_first_list_pending',
    help: 'Apps of the first list this replica has not settled yet (it takes traffic meanwhile: a request for one has it deployed next); its reports count once none are left, or after two minutes',
    registers,
    collect() {
      this.set(firstListPending());
    },
  });
  new Gauge({
    name: 'cloudwright_runtime_ready',
    help: '1 when workerd runs and answered its last health check',
    registers,
    collect() {
      this.set(engine.status().ready ? 1 : 0);
    },
  });
  new Gauge({
    name: 'cloudwright_runtime_apps_served',
    help: 'Apps the runtime serves prepared: their build unpacked and in their shard routing table',
    registers,
    collect() {
      this.set(engine.status().apps);
    },
  });
  new Gauge({
    name: 'cloudwright_runtime_apps_deployed',
    help: 'Apps the runtime routes, prepared or not (served on demand, an app is prepared on its first request: cloudwright_runtime_apps_served counts the prepared ones)',
    registers,
    collect() {
      this.set(engine.deployedApps);
    },
  });
  new Gauge({
    name: 'cloudwright_runtime_apps_falling_back',
    help: 'Apps deployed with a new build since their last serve here whose previous deployment is kept to serve while the new one cannot be (most are settled within a pass)',
    registers,
    collect() {
      this.set(engine.fallbackApps);
    },
  });
  new Gauge({
    name: 'cloudwright_runtime_generation',
    help: 'Sequence number of the workerd serving each shard now (every workerd started has its own)',
    labelNames: ['shard'],
    registers,
    collect() {
      this.reset();
      for (const shard of engine.status().shards) this.set({ shard: shard.index }, shard.generation);
    },
  });
  new Gauge({
    name: 'cloudwright_runtime_shard_apps',
    help: 'Apps each shard (workerd process) serves',
    labelNames: ['shard'],
    registers,
    collect() {
      this.reset();
      for (const shard of engine.status().shards) this.set({ shard: shard.index }, shard.apps);
    },
  });
  for (const metric of LIMIT_METRICS) {
    const settings = { name: metric.name, help: metric.help, labelNames: [metric.label], registers };
    const each = (put: (labels: Record<string, string>, value: number) => void) => {
      const counts = metric.read(engine.limits.counts());
      for (const value of metric.values) put({ [metric.label]: value }, counts.get(value) ?? 0);
    };
    if (metric.gauge)
      new Gauge({
        ...settings,
        collect() {
          this.reset();
          each((labels, value) => this.set(labels, value));
        },
      });
    else
      new Counter({
        ...settings,
        collect() {
          this.reset();
          each((labels, value) => this.inc(labels, value));
        },
      });
  }
  new Gauge({
    name: 'cloudwright_runtime_apps_on_probation',
    help: 'Apps suspected together of stopping their shard, taking turns on it',
    registers,
    collect() {
      this.set(engine.limits.onProbation().length);
    },
  });
  new Gauge({
    name: 'cloudwright_runtime_requests_held',
    help: "Requests the entry point holds, waiting for their project's probation turn or their shard's restart",
    registers,
    collect() {
      this.set(engine.heldRequests);
    },
  });
  new Counter({
    name: 'cloudwright_runtime_workerd_restarts_total',
    help: 'Restarts of a crashed or unresponsive workerd',
    registers,
    collect() {
      this.reset();
      this.inc(engine.status().restarts);
    },
  });
  new Counter({
    name: 'cloudwright_runtime_cold_starts_refused_total',
    help: "Loads of an app's code refused because its project had used its CPU time for cold starts (CW_RUNTIME_STARTUP_CPU_BUDGET)",
    registers,
    collect() {
      this.reset();
      this.inc(engine.coldStartsRefused);
    },
  });
  new Counter({
    name: 'cloudwright_runtime_workerd_recycles_total',
    help: 'Fresh workerd started in place of a healthy one (blue/green, no request lost), by reason: isolates, memory',
    labelNames: ['reason'],
    registers,
    collect() {
      this.reset();
      for (const shard of engine.status().shards) for (const [reason, count] of Object.entries(shard.recycles)) this.inc({ reason }, count);
    },
  });
  new Counter({
    name: 'cloudwright_runtime_workerd_starts_total',
    help: 'workerd processes launched: generations, failed attempts and the checker that loads new builds first',
    registers,
    collect() {
      this.reset();
      this.inc(engine.status().workerdStarts);
    },
  });
  new Gauge({
    name: 'cloudwright_runtime_apps_failed',
    help: 'Apps whose current spec cannot be served, by reason (BuildFailed, BuildNotFound, InsufficientStorage, QuotaExceeded, DatabaseNotFound, DatabaseNotReady, Retrying)',
    labelNames: ['reason'],
    registers,
    collect() {
      this.reset();
      for (const reason of ['BuildFailed', 'BuildNotFound', 'InsufficientStorage', 'QuotaExceeded', 'DatabaseNotFound', 'DatabaseNotReady', 'Retrying'])
        this.set({ reason }, records.failureCounts().get(reason) ?? 0);
    },
  });
  return {
    deploySeconds: new Histogram({
      name: 'cloudwright_runtime_deploy_duration_seconds',
      help: 'Time until a spec handed to the engine is served or refused, by result (Served, BuildFailed, BuildNotFound, InsufficientStorage, QuotaExceeded, Retrying)',
      labelNames: ['result'],
      buckets: deployBuckets,
      registers,
    }),
  };
}
