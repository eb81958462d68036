import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import { fastAccessLineWriter, fieldsOf, type AccessLineWriter } from './access-line.ts';
import { REQUEST_ID_LOG_LABEL } from './request-id.ts';

/**
 * One structured line per request: method, path (never the query string, which could carry anything),
 * status, duration, and the request id (as on every line of the request). Headers are never logged, so no
 * token reaches the log.
 *
 * Written by Fastify's own request-logging extension point, its `LogController`, which it tells of every
 * finished request (routes, 404s and errors alike) from the response listener it keeps anyway: the line
 * costs no `onResponse` hook, whose runner would be one more step on every request. Fastify's own two
 * lines per request (incoming, completed) are replaced by this one.
 */
class AccessLogController extends LogController {
  #logger: FastifyBaseLogger | undefined;
  #write: AccessLineWriter = () => undefined;

  constructor() {
    super({ requestIdLogLabel: REQUEST_ID_LOG_LABEL, disableRequestLogging: true });
  }

  override incomingRequest(): void {}

  override requestCompleted(_error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // The root logger prints what `request.log` would (the id as a field), without making the request's
    // child logger (plugins/request-logger.ts). Looked up per request: one controller may serve more than one
    // app; the writer is made once per logger.
    const log = request.server.log;
    if (log !== this.#logger) {
      this.#logger = log;
      this.#write = fastAccessLineWriter(log, REQUEST_ID_LOG_LABEL) ?? ((record) => log.info(fieldsOf(record, REQUEST_ID_LOG_LABEL), 'request'));
    }
    const url = request.url;
    const query = url.indexOf('?');
    this.#write({
      requestId: request.id,
      method: request.method,
      path: query === -1 ? url : url.slice(0, query),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    });
  }
}

/**
 * Fastify's `logController` option for an app that writes the access line. Fastify does not tell it of
 * answers its router gives before any route runs (`frameworkErrors`): whoever sends those calls
 * `requestCompleted` itself.
 */
export function accessLogController(): LogController {
  return new AccessLogController();
}
