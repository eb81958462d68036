import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { randomUUID } from 'node:crypto';
import { TOKEN_PREFIX } from '../auth/token.ts';

const MAX_ID = 128;
const SAFE_ID = /^[A-Za-z0-9._:-]+$/;

/** The field carrying the request id on log lines. */
export const REQUEST_ID_LOG_LABEL = 'request_id';
/** The header carrying it in both directions. */
const REQUEST_ID_HEADER = 'x-request-id';

/**
 * Request ids: an incoming `x-request-id` is honoured when it is short and plain (so it cannot inject into
 * logs) and holds no token (ids are logged; a token pasted as one must not be), else a new one is made;
 * either way it is echoed on the response (`requestId`) and carried by every log line under
 * {@link REQUEST_ID_LOG_LABEL} (set with the access log, plugins/access-log.ts).
 */
export const requestIdOptions: Pick<FastifyServerOptions, 'genReqId'> = {
  genReqId: (req) => {
    const incoming = req.headers[REQUEST_ID_HEADER];
    const honoured = typeof incoming === 'string' && incoming.length <= MAX_ID && SAFE_ID.test(incoming) && !incoming.includes(TOKEN_PREFIX);
    return honoured ? incoming : randomUUID();
  },
};

/** Puts the request's id on its response; every answer carries one. */
export function echoRequestId(request: FastifyRequest, reply: FastifyReply): void {
  reply.header(REQUEST_ID_HEADER, request.id);
}

export function requestId(app: FastifyInstance): void {
  // Callback-style hooks on the hot path: an async hook costs a promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    echoRequestId(request, reply);
    done();
  });
}
