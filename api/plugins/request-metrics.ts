import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Registry } from 'prom-client';
import { DurationHistogram } from './duration-histogram.ts';

/** Records one answered request. */
export type RequestObserver = (request: FastifyRequest, reply: FastifyReply) => void;

/**
 * `cloudwright_api_request_duration_seconds{method, route, status_class}`: every answered request, by its route's
 * pattern (never the raw URL, whose ids would make a series per project) and 2xx…5xx.
 *
 * The observer is called where Fastify reports a finished request anyway: cw-api's log controller
 * (plugins/access-log.ts), from the response listener Fastify keeps for an app with a logger, so the metric
 * costs no `onResponse` hook, whose runner would be one more step on every request (bench/README.md, tenth
 * pass). An app without a logger gets no such report: {@link observeOnResponse} is for it.
 */
export function requestDurations(registry: Registry): RequestObserver {
  // Printed as prom-client's Histogram would print it, observed without a labels object (duration-histogram.ts).
  const duration = new DurationHistogram({
    name: 'cloudwright_api_request_duration_seconds',
    help: 'Time from a request to the end of its response, by route pattern and status class',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
    registers: [registry],
  });
  return (request, reply) => duration.observe(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
}

/** Records every answered request with an `onResponse` hook: for an app whose log controller Fastify never calls (no logger). */
export function observeOnResponse(app: FastifyInstance, observe: RequestObserver): void {
  app.addHook('onResponse', (request, reply, done) => {
    observe(request, reply);
    done();
  });
}
