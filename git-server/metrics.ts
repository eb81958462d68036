// The service's own metrics (spec "Metric names"); on the same registry, the store's `service_store_*` counters
// are registered by `S3ObjectStore`, `service_pending_marker_put_failures_total` by the RepoStore's publish,
// `service_cache_disk_used_fraction` by the cache evictor, `service_runtime_stall_total` by the stall monitor
// and the maintenance gauges by the maintainer. docs/repository-service.md "Metrics" lists them all.
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';

export class ServiceMetrics {
  readonly pushRefused: Counter<'reason'>;
  readonly publishLocalApplyFailed: Counter;
  readonly inflight: Gauge;
  readonly registry: Registry;

  constructor(registry: Registry) {
    this.registry = registry;
    this.pushRefused = new Counter({
      name: 'service_push_refused_total',
      help: 'Pushes (or ref updates of a push) refused, by reason.',
      labelNames: ['reason'],
      registers: [registry],
    });
    this.publishLocalApplyFailed = new Counter({
      name: 'service_publish_local_apply_failed_total',
      help: 'Published packs (pushes and API writes) that could not be moved into the local cache; the next sync downloads them.',
      registers: [registry],
    });
    this.inflight = new Gauge({ name: 'service_http_inflight', help: 'HTTP requests being served.', registers: [registry] });
  }
}

export function inflightGauge(app: FastifyInstance, metrics: ServiceMetrics): void {
  app.addHook('onRequest', (_request, reply, done) => {
    metrics.inflight.inc();
    // 'close' fires for finished and for aborted responses alike, so the gauge cannot drift.
    reply.raw.once('close', () => metrics.inflight.dec());
    done();
  });
}

/**
 * Whether `url` is part of a push: the push itself, or its ref advertisement
 * (`info/refs?service=git-receive-pack`), which a stock git asks for first, so a push refused while draining
 * is refused there.
 */
export function isPushRequest(url: string): boolean {
  const { pathname, searchParams } = new URL(url, 'http://host');
  return pathname.endsWith('/git-receive-pack') || (pathname.endsWith('/info/refs') && searchParams.get('service') === 'git-receive-pack');
}

/** `service_fetches{state}`: fetches and clones running (`running`) and waiting for their turn (`waiting`), fetch-slots.ts. */
export function fetchesGauge(registry: Registry, counts: () => { readonly running: number; readonly waiting: number }): void {
  new Gauge({
    name: 'service_fetches',
    help: 'Fetches and clones running, and waiting for their turn (a share of the caller, the owner or the instance full).',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const { running, waiting } = counts();
      this.set({ state: 'running' }, running);
      this.set({ state: 'waiting' }, waiting);
    },
  });
}
