import type { FastifyInstance } from 'fastify';

/**
 * One structured line per request: method, path (never the query string, which could carry anything),
 * status, duration, and the request id Fastify binds to every line. Headers are never logged, so no token
 * reaches the log.
 */
export function accessLog(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    const url = request.url;
    const query = url.indexOf('?');
    request.log.info(
      { method: request.method, path: query === -1 ? url : url.slice(0, query), status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
      'request',
    );
    done();
  });
}
