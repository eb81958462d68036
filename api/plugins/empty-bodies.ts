import type { FastifyServerFactory } from 'fastify';
import { createServer, type Server } from 'node:http';

/**
 * The HTTP server cw-api listens with: Node's own, with `optimizeEmptyRequests`. A request carrying neither
 * `Content-Length` nor `Transfer-Encoding` has an empty body (RFC 9112 §6.3), and with this option Node hands
 * it over as an already-ended stream instead of running the stream's life cycle for it (the dump on finish,
 * `end` and `close` events, their ticks). Almost every request is such a GET or DELETE: measured, the option
 * takes about a sixth off bare Fastify's CPU time per request, and more off cw-api's (bench/README.md).
 *
 * The one request it would break: a body method that names a `Content-Type` but sends no body. Fastify would
 * wait for the ended stream's `end` to parse it, until the request timeout. Its content type describes nothing,
 * so it is dropped, and Fastify takes the request as the bodyless one it is: a route that needs a body says so
 * with a 400, one that takes none answers as for any other caller.
 *
 * Fastify applies its timeouts only to servers it creates itself, so this sets them as Fastify would.
 */
export const emptyBodyServer: FastifyServerFactory<Server> = (handler, options) => {
  const server = createServer({ optimizeEmptyRequests: true }, (request, response) => {
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
