import type { FastifyServerFactory } from 'fastify';
import { createServer, type Server, type ServerOptions } from 'node:http';

/**
 * The HTTP server cw-api listens with: Node's own, with two options Fastify's default server lacks.
 *
 * `joinDuplicateHeaders`: a header sent twice reaches the routes as both values joined by a comma, where Node
 * would keep the first and drop the rest. Two `Authorization` headers are then refused as malformed
 * credentials (src/auth/authenticate.ts) instead of the first being used: a proxy that reads the last one
 * must not see another caller than cw-api does. Two content types are a 415 for the same reason.
 *
 * `optimizeEmptyRequests`: a request carrying neither `Content-Length` nor `Transfer-Encoding` has an empty
 * body (RFC 9112 §6.3), and Node hands it over as an already-ended stream instead of running the stream's
 * life cycle for it (the dump on finish, `end` and `close` events, their ticks). Almost every request is such
 * a GET or DELETE: measured, the option takes about a quarter off bare Fastify's CPU time per request, and
 * makes cw-api markedly cheaper too (bench/README.md, ninth pass). What it changes for code on this server:
 * - A body method that names a `Content-Type` but sends no body would have Fastify wait for the ended
 *   stream's `end` until the request timeout. Its content type describes nothing, so it is dropped, and
 *   Fastify takes the request as the bodyless one it is: a route that needs a body answers 400.
 * - The stream of a bodyless request is closed from the start, so a caller hanging up never shows on it:
 *   not as `close` or `aborted`, not through Fastify's `request.signal` or `onRequestAbort`, and Node's
 *   `request.raw.signal` even reads as aborted at once. Watch the socket's `close` instead, as the access
 *   log does (plugins/access-log.ts).
 * - Fastify binds every address of `localhost` only for servers it creates itself; this one listens on the
 *   first address a host name resolves to.
 *
 * Fastify applies its timeouts only to servers it creates itself, so this sets them as Fastify would.
 */
export const apiHttpServer: FastifyServerFactory<Server> = (handler, options) => {
  if (options.https || options.http2) throw new Error("cw-api's HTTP server serves plain HTTP/1.1: set neither https nor http2.");
  const server = createServer({ ...(options.http as ServerOptions | undefined), joinDuplicateHeaders: true, optimizeEmptyRequests: true }, (request, response) => {
    if (request.readableEnded && request.headers['content-type'] !== undefined) delete request.headers['content-type'];
    handler(request, response);
  });
  server.keepAliveTimeout = options.keepAliveTimeout as number;
  server.requestTimeout = options.requestTimeout as number;
  server.setTimeout(options.connectionTimeout as number);
  const perSocket = options.maxRequestsPerSocket as number;
  if (perSocket > 0) server.maxRequestsPerSocket = perSocket;
  return server;
};
