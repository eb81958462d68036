// One translation point from errors to cw-git's JSON error body: `{"error": <code>, "message", "retryable"}`.
// The spec fixes this shape for `store_unavailable`; every other error uses it too, so clients parse one shape.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { PublicError } from '../src/errors.ts';
import { connectionErrorHandler } from '../src/fastify-plugins/connection-errors.ts';
import { notFound } from '../src/fastify-plugins/not-found.ts';

export interface ErrorBody {
  readonly error: string;
  readonly message: string;
  readonly retryable: boolean;
}

/** Stable codes for the errors clients act on; others get one from their status. */
const CODES: Readonly<Record<string, string>> = {
  RepoNotFoundError: 'repository_not_found',
  RepoExistsError: 'repository_exists',
  RepoBusyError: 'repository_being_deleted',
  InvalidRepoNameError: 'invalid_repository_name',
  InvalidPublishError: 'invalid_request',
  PublishContentionError: 'contention',
  PublishIncompleteError: 'publish_incomplete',
  SeqOutOfRangeError: 'seq_out_of_range',
  HistoryUnavailableError: 'history_unavailable',
  PktLineError: 'invalid_git_request',
};

const BY_STATUS: Readonly<Record<number, string>> = {
  400: 'invalid_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  413: 'too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  422: 'unprocessable',
  429: 'rate_limited',
  431: 'headers_too_large',
  503: 'unavailable',
  507: 'insufficient_storage',
};

/**
 * An error that says more than its message, in fields of its own beside `error` (a merge conflict's paths, the
 * current oid of a ref that moved); the route's response schema for its status lists them.
 */
export interface ErrorDetails {
  readonly details: Readonly<Record<string, unknown>>;
}

function detailsOf(error: object): Readonly<Record<string, unknown>> {
  const details = (error as Partial<ErrorDetails>).details;
  return typeof details === 'object' && details !== null ? details : {};
}

export function sendError(reply: FastifyReply, status: number, error: string, message: string, headers: Record<string, string> = {}, details: Readonly<Record<string, unknown>> = {}): FastifyReply {
  // Anything that says when to come back is worth coming back for (a 409 while a deletion finishes, too).
  const body: ErrorBody = { ...details, error, message, retryable: status === 503 || status === 429 || 'retry-after' in headers };
  return reply.code(status).headers(headers).type('application/json').send(body);
}

export function errorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError & { code?: unknown }, request, reply) => {
    if (error instanceof PublicError) {
      const code = typeof error.code === 'string' && /^[a-z_]+$/.test(error.code) ? error.code : (CODES[error.name] ?? BY_STATUS[error.status] ?? 'error');
      return sendError(reply, error.status, code, error.message, error.headers, detailsOf(error));
    }
    if (error.name === 'PktLineError') return sendError(reply, 400, 'invalid_git_request', error.message);
    const status = error.statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      // Fastify's own (validation, body too large, unsupported media type): their messages are about the input.
      return sendError(reply, status, error.validation ? 'invalid_request' : (BY_STATUS[status] ?? 'invalid_request'), error.message);
    }
    if (clientWentAway(request, error)) {
      // Nobody is left to answer, and nothing failed on our side: not an error of the server's.
      request.log.info({ reason: error.message }, 'the client went away before its request was read');
      return sendError(reply, 400, 'invalid_request', 'The request ended before its body did.');
    }
    request.log.error({ err: error }, 'request failed');
    return sendError(reply, 500, 'internal', 'The server failed to handle the request; it has been logged.');
  });
  notFound(app, (reply, status, message, headers) => sendError(reply, status, BY_STATUS[status] ?? 'not_found', message, headers));
}

/**
 * A body cut short by its client (the connection reset or closed mid-body), as Node's streams say it. An error after
 * the whole request arrived (the bucket failing, say) is the server's even if the client has gone since.
 */
function clientWentAway(request: FastifyRequest, error: Error & { code?: unknown }): boolean {
  const code = typeof error.code === 'string' ? error.code : '';
  return (
    ['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE'].includes(code) || error.message === 'aborted' || (request.raw.complete === false && request.raw.socket?.destroyed === true)
  );
}

/**
 * Errors the router raises before any route runs (bad URL encoding, a path parameter over the router's
 * limit, 414), and those of the connection before Fastify has a request (a request line and headers over
 * Node's limit, 431; a request that did not arrive in time, 408): in the same body as every other error.
 */
export const gitFrameworkErrorOptions: Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler'> = {
  frameworkErrors: (error, _request, reply) => {
    const status = error.statusCode ?? 400;
    sendError(reply, status, BY_STATUS[status] ?? 'invalid_request', error.message);
  },
  clientErrorHandler: connectionErrorHandler((status, message) => ({
    contentType: 'application/json',
    body: JSON.stringify({ error: BY_STATUS[status] ?? 'invalid_request', message, retryable: false } satisfies ErrorBody),
  })),
};

type SchemaError = { keyword?: string; instancePath?: string; message?: string; params?: Record<string, unknown>; parentSchema?: { oneOf?: { properties?: Record<string, { const?: unknown }> }[] } };

/**
 * Fastify's message for a body that fails its schema, naming the allowed values where a field has a set of them
 * (an enum, or the tag of a discriminated union such as a commit change's `op`).
 */
export function schemaErrorFormatter(errors: readonly SchemaError[], dataVar: string): Error {
  const parts = errors.map((e) => {
    const path = `${dataVar}${e.instancePath ?? ''}`;
    const tag = e.params?.['tag'];
    if (e.keyword === 'discriminator' && typeof tag === 'string') {
      const values = (e.parentSchema?.oneOf ?? []).map((kind) => kind.properties?.[tag]?.const).filter((v) => typeof v === 'string');
      return `${path}/${tag} must be one of: ${values.join(', ')}`;
    }
    const allowed = e.params?.['allowedValues'];
    return `${path} ${e.message ?? 'is invalid'}${Array.isArray(allowed) ? `: ${allowed.join(', ')}` : ''}`;
  });
  return new Error(parts.join(', '));
}
