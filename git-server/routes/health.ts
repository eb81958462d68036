// Liveness, readiness and metrics. `/healthz` and `/readyz` never touch the store (spec): a store outage must
// not make the orchestrator restart or unroute every instance at once.
import type { FastifyInstance } from 'fastify';
import { DRAIN_RETRY_AFTER_SECONDS, type DrainState } from '../drain.ts';
import { sendError } from '../errors.ts';
import type { ServiceMetrics } from '../metrics.ts';

export function healthRoutes(app: FastifyInstance, drain: DrainState, metrics: ServiceMetrics): void {
  app.get('/healthz', { config: { public: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { public: true } }, async (_request, reply) => {
    if (drain.draining) {
      return sendError(reply, 503, 'draining', 'This instance is shutting down.', { 'retry-after': String(DRAIN_RETRY_AFTER_SECONDS) });
    }
    return { status: 'ready' };
  });
  app.get('/metrics', { config: { scope: 'read' } }, async (_request, reply) => {
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
