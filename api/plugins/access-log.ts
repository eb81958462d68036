import type { FastifyInstance } from 'fastify';
import { fastAccessLineWriter, fieldsOf, type AccessLineWriter } from './access-line.ts';
import { REQUEST_ID_LOG_LABEL } from './request-id.ts';

/**
 * One structured line per request: method, path (never the query string, which could carry anything),
 * status, duration, and the request id (as on every line of the request). Headers are never logged, so no token
 * reaches the log.
 */
export function accessLog(app: FastifyInstance): void {
  // The root logger with the id as a field prints what `request.log` would, without making the request's
  // child logger (plugins/request-logger.ts).
  const log = app.log;
  const write: AccessLineWriter =
    fastAccessLineWriter(log, REQUEST_ID_LOG_LABEL) ?? ((record) => log.info(fieldsOf(record, REQUEST_ID_LOG_LABEL), 'request'));
  app.addHook('onResponse', (request, reply, done) => {
    const url = request.url;
    const query = url.indexOf('?');
    write({
      requestId: request.id,
      method: request.method,
      path: query === -1 ? url : url.slice(0, query),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    });
    done();
  });
}
