import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { QueueMetrics } from './work-queue.ts';

/** Values of `controller_runtime_reconcile_total{result}`, as in controller-runtime. */
export type ReconcileResult = 'success' | 'error' | 'requeue' | 'requeue_after';

/** controller-runtime's metrics, named as controller-runtime names them, so its dashboards work unchanged. */
export interface RuntimeMetrics {
  reconcileTotal: Counter<'controller' | 'result'>;
  reconcileErrors: Counter<'controller'>;
  terminalReconcileErrors: Counter<'controller'>;
  reconcileTime: Histogram<'controller'>;
  activeWorkers: Gauge<'controller'>;
  maxConcurrentReconciles: Gauge<'controller'>;
  /** `workqueue_*` hooks for the queue called `name` (controller-runtime names it after the controller). */
  queue(name: string): QueueMetrics;
}

// controller-runtime's reconcile_time_seconds buckets.
const reconcileBuckets = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

// prom-client refuses to register a name twice in one registry: build the set once per registry.
const byRegistry = new WeakMap<Registry, RuntimeMetrics>();

/** The runtime metrics registered in `registry` (created on first use). */
export function runtimeMetrics(registry: Registry): RuntimeMetrics {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const depth = new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames: ['name'], registers });
  const adds = new Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames: ['name'], registers });
  const retries = new Counter({ name: 'workqueue_retries_total', help: 'Total number of retries handled by workqueue', labelNames: ['name'], registers });
  const metrics: RuntimeMetrics = {
    reconcileTotal: new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers,
    }),
    reconcileErrors: new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    }),
    terminalReconcileErrors: new Counter({
      name: 'controller_runtime_terminal_reconcile_errors_total',
      help: 'Total number of terminal reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    }),
    reconcileTime: new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: reconcileBuckets,
      registers,
    }),
    activeWorkers: new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
      registers,
    }),
    maxConcurrentReconciles: new Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
      registers,
    }),
    queue: (name) => {
      // Zero-initialise so a queue that never saw work still shows up in a scrape.
      depth.set({ name }, 0);
      adds.inc({ name }, 0);
      retries.inc({ name }, 0);
      return {
        added: () => adds.inc({ name }),
        depth: (n) => depth.set({ name }, n),
        retried: () => retries.inc({ name }),
      };
    },
  };
  byRegistry.set(registry, metrics);
  return metrics;
}
