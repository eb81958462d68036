import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import { fastAccessLineWriter, fieldsOf, type AccessLineWriter } from './access-line.ts';
import type { Socket } from 'node:net';
import { REQUEST_ID_LOG_LABEL } from '../../src/fastify-plugins/request-id.ts';
import { redactPathSecrets } from '../../src/auth/token.ts';
import type { RequestObserver } from './request-metrics.ts';

/** nginx's status for a request whose client closed the connection before the answer started. */
export const CLIENT_CLOSED_REQUEST = 499;

/**
 * One structured line per request: method, path (never the query string, which could carry anything),
 * status, duration, and the request id (as on every line of the request). Headers are never logged, so no
 * token reaches the log.
 *
 * Written by Fastify's own request-logging extension point, its `LogController`, which it tells of every
 * finished request (routes, 404s and errors alike) from the response listener it keeps anyway: the line
 * costs no `onResponse` hook, whose runner would be one more step on every request. Fastify's own two
 * lines per request (incoming, completed) are replaced by this one.
 *
 * A client that closes its connection before its answer starts (a cancelled upload, a timed-out caller)
 * never gets a finished response, so Fastify never reports the request. Its line is written when the
 * connection closes, with status {@link CLIENT_CLOSED_REQUEST} as nginx writes it; an answer already under
 * way keeps the status it was sent with. One line per request either way.
 *
 * Given an observer (the request metrics, plugins/request-metrics.ts), it tells it of each request Fastify
 * reports finished, as an `onResponse` hook would be told, without the hook.
 */
class AccessLogController extends LogController {
  readonly #observe: RequestObserver | undefined;
  #logger: FastifyBaseLogger | undefined;
  #write: AccessLineWriter = () => undefined;
  /** Per connection, the replies not yet finished: a connection serves one request at a time, or a few pipelined. */
  #unfinished = new WeakMap<Socket, Set<FastifyReply>>();

  constructor(observe: RequestObserver | undefined) {
    super({ requestIdLogLabel: REQUEST_ID_LOG_LABEL, disableRequestLogging: true });
    this.#observe = observe;
  }

  /** Notes the reply on its connection: a close listener per connection, not per request. */
  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    const socket = request.raw.socket;
    let unfinished = this.#unfinished.get(socket);
    if (unfinished === undefined) {
      const replies = new Set<FastifyReply>();
      this.#unfinished.set(socket, replies);
      socket.once('close', () => this.#connectionClosed(replies));
      unfinished = replies;
    }
    unfinished.add(reply);
  }

  #connectionClosed(replies: Set<FastifyReply>): void {
    for (const reply of replies) {
      this.#line(reply.request, reply.raw.headersSent ? reply.statusCode : CLIENT_CLOSED_REQUEST, reply.elapsedTime);
    }
    replies.clear();
  }

  override requestCompleted(_error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // Fastify reports no request whose connection closed first (its response never finishes), so the line
    // written at the close is the only one (plugins.test.ts checks it for each way of hanging up).
    this.#unfinished.get(request.raw.socket)?.delete(reply);
    this.#observe?.(request, reply);
    this.#line(request, reply.statusCode, reply.elapsedTime);
  }

  #line(request: FastifyRequest, status: number, elapsedMs: number): void {
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
    const path = query === -1 ? url : url.slice(0, query);
    this.#write({
      requestId: request.id,
      method: request.method,
      // A token pasted into a path (a mistaken `/v1/tokens/cwt_…`) must not reach the log either.
      path: redactPathSecrets(path),
      status,
      ms: Math.round(elapsedMs * 10) / 10,
    });
  }
}

/**
 * Fastify's `logController` option for an app that writes the access line (and tells `observe` of each
 * finished request). Fastify does not tell it of answers its router gives before any route runs
 * (`frameworkErrors`): whoever sends those calls `requestCompleted` itself. Fastify calls a log controller
 * only in an app that has a logger.
 */
export function accessLogController(observe?: RequestObserver): LogController {
  return new AccessLogController(observe);
}
