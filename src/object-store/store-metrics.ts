// The object store's request metrics, named as the repository service spec names them.
import { Counter, type Registry } from 'prom-client';

/** Outcome of one store request (one HTTP exchange, retries counted separately). A 304 is `ok`. */
export type StoreOutcome = 'ok' | 'not_found' | 'precondition_failed' | 'retryable_error' | 'error';

export type StoreOp = 'get' | 'head' | 'put' | 'delete' | 'list';

export interface StoreMetrics {
  /** `service_store_requests_total{op,outcome}` */
  requests: Counter<'op' | 'outcome'>;
  /** `service_store_retries_total{op}` */
  retries: Counter<'op'>;
}

// prom-client refuses to register a name twice in one registry: build the set once per registry.
const byRegistry = new WeakMap<Registry, StoreMetrics>();

/** The store metrics registered in `registry` (created on first use, shared by every store using it). */
export function storeMetrics(registry: Registry): StoreMetrics {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const metrics: StoreMetrics = {
    requests: new Counter({
      name: 'service_store_requests_total',
      help: 'Object store requests by operation and outcome',
      labelNames: ['op', 'outcome'],
      registers,
    }),
    retries: new Counter({
      name: 'service_store_retries_total',
      help: 'Object store requests retried after a retryable error',
      labelNames: ['op'],
      registers,
    }),
  };
  byRegistry.set(registry, metrics);
  return metrics;
}
