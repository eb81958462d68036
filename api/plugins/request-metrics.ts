import type { FastifyInstance } from 'fastify';
import { Histogram, type Registry } from 'prom-client';

/**
 * `cloudwright_api_request_duration_seconds{method, route, status_class}`: every answered request, by its route's
 * pattern (never the raw URL, whose ids would make a series per project) and 2xx…5xx.
 */
export function requestMetrics(app: FastifyInstance, registry: Registry): void {
  const duration = new Histogram({
    name: 'cloudwright_api_request_duration_seconds',
    help: 'Time from a request to the end of its response, by route pattern and status class',
    labelNames: ['method', 'route', 'status_class'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
    registers: [registry],
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    duration.observe({ method: request.method, route, status_class: `${Math.floor(reply.statusCode / 100)}xx` }, reply.elapsedTime / 1000);
    done();
  });
}
