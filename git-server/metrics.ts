// The service's own metrics (spec "Metric names"); the store's `service_store_*` counters are registered by
// `S3ObjectStore` on the same registry.
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';

export class ServiceMetrics {
  readonly pushRefused: Counter<'reason'>;
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
