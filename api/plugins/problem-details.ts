import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { connectionErrorHandler } from '../../src/fastify-plugins/connection-errors.ts';
import { PublicError } from '../../src/errors.ts';
import { KubeApiError, quotaRefusal } from '../../src/kube/index.ts';
import { quotaRefusalDetail } from '../../src/platform/project-quota.ts';
import { patternInWords } from '../schemas/pattern-words.ts';

/** RFC 9457 problem details: the only error body this API sends. */
export interface ProblemDetails {
  type?: string;
  title: string;
  status: number;
  detail: string;
}

/**
 * Sends a problem detail. `extensions` are extra members (RFC 9457 §3.2), for a route whose clients expect
 * a field of their protocol's own (the OAuth routes' `error`); the route's response schema must list them.
 */
export function sendProblem(reply: FastifyReply, status: number, detail: string, headers: Record<string, string> = {}, extensions: Record<string, string> = {}): FastifyReply {
  const body: ProblemDetails = { ...extensions, title: STATUS_CODES[status] ?? 'Error', status, detail };
  return reply.code(status).headers(headers).type('application/problem+json').send(body);
}

/** Fastify's `clientErrorHandler`: refusals of Node's HTTP parser, as problem details. */
export const connectionProblem = connectionErrorHandler((status, detail) => ({
  contentType: 'application/problem+json',
  body: JSON.stringify({ title: STATUS_CODES[status] ?? 'Error', status, detail } satisfies ProblemDetails),
}));

/**
 * The single translation point from thrown errors to HTTP responses. Only `PublicError` messages and
 * Fastify's own client errors (validation, body size, content type) reach the caller; anything else is a
 * 500 with a fixed message, logged with its request id so an operator can find it.
 */
export function problemDetails(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof PublicError) return sendProblem(reply, error.status, error.message, error.headers);
    if (error instanceof KubeApiError) return kubeProblem(error, request.log, reply);
    if (error.validation) return sendProblem(reply, 400, validationDetail(error));
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return sendProblem(reply, status, error.message);
    if (bodyCutOff(error, request.raw)) {
      // The caller hung up before its body arrived (a cancelled upload): reading the body failed, nothing of
      // ours did, and nobody is left to answer. Its access line says 499.
      request.log.info('client closed the connection before its request arrived whole');
      return sendProblem(reply, 400, 'The request did not arrive whole.');
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(reply, 500, 'The server failed to handle this request. It has been logged; retry later.');
  });
}

/**
 * Whether `error` is the failure to read a body its caller stopped sending: a reset stream of a request that
 * never arrived whole. Any other error of such a request (a failing dependency, say) is still ours.
 */
function bodyCutOff(error: FastifyError, raw: IncomingMessage): boolean {
  const streamError = error.code === 'ECONNRESET' || error.code === 'ERR_STREAM_PREMATURE_CLOSE';
  return streamError && !raw.complete && raw.destroyed;
}

/**
 * The apiserver refused or could not take a write. The routes check what the custom resources' schemas
 * check before writing, so a validation refusal (422) means a rule the API missed: the caller gets a fixed
 * 400 (the apiserver's message names our resources and fields, not theirs) and the log gets the message.
 * A conflict that outlasted the write's own retries (others keep changing the object) is a 409 to retry.
 * A create past a ResourceQuota of the project's namespace (the object counts kubectl-made objects share with
 * the API's) is a 409 naming the full count; one the quota controller has not counted yet a 503 to retry.
 * Overload and unavailability become a retryable 503; anything else is ours.
 */
function kubeProblem(error: KubeApiError, log: FastifyBaseLogger, reply: FastifyReply): FastifyReply {
  const quota = quotaRefusal(error);
  if (quota) return sendProblem(reply, quota.kind === 'exceeded' ? 409 : 503, quotaRefusalDetail(quota), quota.kind === 'exceeded' ? {} : { 'retry-after': '5' });
  if (error.code === 422) {
    log.warn({ err: error }, 'kube-apiserver refused a write the API let through');
    return sendProblem(reply, 400, 'The request was refused: it breaks a limit of the stored resource.');
  }
  if (error.code === 409) {
    return sendProblem(reply, 409, error.reason === 'AlreadyExists' ? 'The resource already exists.' : 'The resource was changed by another request meanwhile; retry.');
  }
  if (error.code === 429 || error.code === 503 || error.code === 504) {
    return sendProblem(reply, 503, 'The control plane is busy; retry shortly.', { 'retry-after': String(error.retryAfterSeconds ?? 5) });
  }
  log.error({ err: error }, 'kube-apiserver error');
  return sendProblem(reply, 500, 'The server failed to handle this request. It has been logged; retry later.');
}

/** The offending field and what is wrong with it, for a request its schema refused. */
export function validationDetail(error: FastifyError): string {
  const first = error.validation?.[0];
  if (!first) return error.message;
  const context = error.validationContext ?? 'request';
  const field = first.instancePath ? `${context}${first.instancePath.replaceAll('/', '.')}` : context;
  // A union of objects refused as a whole (no branch fits): its description says what the forms are, where the
  // first branch's complaint alone ("preload must be one of false") would mislead.
  const union = error.validation?.find((e) => e.keyword === 'anyOf' && e.instancePath !== first.instancePath && first.instancePath.startsWith(e.instancePath));
  const described = (union as { parentSchema?: { description?: unknown } } | undefined)?.parentSchema?.description;
  if (union && typeof described === 'string') return `${union.instancePath ? `${context}${union.instancePath.replaceAll('/', '.')}` : context}: ${described}`;
  const extra = (first.params as { additionalProperty?: unknown } | undefined)?.additionalProperty;
  if (typeof extra === 'string') return `${field} has an unknown property "${extra}"`;
  const allowed = allowedValues(error.validation ?? [], first.instancePath);
  if (allowed.length > 0) return `${field} must be one of ${allowed.map((value) => JSON.stringify(value)).join(', ')}`;
  const pattern = first.keyword === 'pattern' ? (first.params as { pattern?: unknown } | undefined)?.pattern : undefined;
  const words = typeof pattern === 'string' ? patternInWords(pattern) : undefined;
  if (words) return `${field} must be ${words}`;
  return `${field} ${first.message ?? 'is invalid'}`;
}

/**
 * The values a field may take, when what it failed is a choice of constants (`enum`, or a union of literals,
 * which fails as one `const` per branch): "must be equal to constant" alone leaves the caller guessing.
 */
function allowedValues(errors: NonNullable<FastifyError['validation']>, path: string): unknown[] {
  const values: unknown[] = [];
  for (const { keyword, instancePath, params } of errors) {
    if (instancePath !== path) continue;
    const { allowedValue, allowedValues: listed } = params as { allowedValue?: unknown; allowedValues?: unknown[] };
    if (keyword === 'const') values.push(allowedValue);
    else if (keyword === 'enum' && Array.isArray(listed)) values.push(...listed);
  }
  return values;
}
