import { Stream } from 'node:stream';
import { redactPathSecrets } from '../../src/auth/token.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler, preHandlerHookHandler, RouteOptions } from 'fastify';
import type { TokenStore } from '../../src/auth/index.ts';
import { UnavailableError } from '../../src/errors.ts';
import { AUDITED_ROUTES, UNAUDITED_ROUTES, type AuditAction, type RequestParts } from '../audit/audit-actions.ts';
import { newEntryId, type AuditEntry } from '../audit/audit-entry.ts';
import type { AuditTrail } from '../audit/audit-trail.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The audit entry written for this request before its handler ran; its outcome is written before the answer is sent. */
    auditEntry?: AuditEntry;
  }
}

export interface AuditOptions {
  /** Where entries go; absent (no bucket), changing routes are served unrecorded. */
  readonly trail?: AuditTrail;
  readonly tokens: Pick<TokenStore, 'getToken' | 'hasProject'>;
  readonly now: () => Date;
}

const READING = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Answers larger than this are not read for a created id (creates answer a few hundred bytes). */
const MAX_ANSWER_READ = 64 * 1024;

/**
 * The audit trail of projects (docs/audit.md). Every route that changes something is either in
 * {@link AUDITED_ROUTES} or, with its reason, in {@link UNAUDITED_ROUTES}: any other is refused at
 * registration. An audited route gets two hooks of its own:
 *
 * - `preHandler` (authentication and authorisation passed, the request validated, nothing changed yet)
 *   stores the entry with no outcome. If the bucket does not take it the request is refused with 503 before
 *   its handler runs: no change is made that the trail does not show.
 * - `onSend` (the answer is ready, not yet sent) stores it again with the status code, awaited, so a client
 *   that has its answer finds its outcome in the trail. If that write fails the answer still goes out (the
 *   change is made) and the entry keeps `status: null`; the failure is logged.
 *
 * Requests refused before their handler (401, 403, 400, 429) change nothing and are not recorded: someone
 * outside a project cannot write into its trail.
 */
export function audit(app: FastifyInstance, options: AuditOptions): void {
  app.decorateRequest('auditEntry', undefined);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (READING.has(method)) continue;
      const key = `${method} ${route.url}`;
      const action = AUDITED_ROUTES[key];
      if (!action) {
        if (UNAUDITED_ROUTES[key] === undefined) throw new Error(`route ${key} changes something but is in neither AUDITED_ROUTES nor UNAUDITED_ROUTES (api/audit/audit-actions.ts)`);
        continue;
      }
      if (options.trail) attach(route, action, options.trail, options);
    }
  });
}

function attach(route: RouteOptions, action: AuditAction, trail: AuditTrail, options: AuditOptions): void {
  const start = async (request: FastifyRequest): Promise<void> => {
    const entry = await entryFor(request, action, options);
    if (!entry) return;
    try {
      await trail.record(entry);
    } catch (err) {
      request.log.error({ err, action: entry.action }, 'audit entry not stored: the request is refused');
      throw new UnavailableError('The audit trail could not be written, so nothing was changed; retry later.');
    }
    request.auditEntry = entry;
  };
  const finish = async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> => {
    const entry = request.auditEntry;
    if (!entry) return;
    // A create refused (another caller took the id a moment before, or it was refused as asked) made nothing: its
    // entry would sit in the trail of whoever holds the id. Taken back; if the bucket refuses that, it shows its 4xx.
    if (action.action === 'project.create' && reply.statusCode >= 400 && reply.statusCode < 500) {
      try {
        await trail.withdraw(entry);
        return;
      } catch (err) {
        request.log.warn({ err, audit_id: entry.id }, 'a refused project create’s audit entry not taken back: it is recorded with its outcome');
      }
    }
    try {
      await trail.record(withOutcome(entry, action, reply, payload));
    } catch (err) {
      request.log.error({ err, action: entry.action, audit_id: entry.id }, 'audit outcome not stored: the entry keeps status null');
    }
  };
  // Callback style: a route's own hook lists are typed for callback hooks, where an async one is a misused promise.
  const before: preHandlerHookHandler = (request, _reply, done) => {
    start(request).then(() => done(), done);
  };
  const after: onSendHookHandler = (request, reply, payload, done) => {
    void finish(request, reply, payload).then(() => done(null, payload));
  };
  route.preHandler = [...(route.preHandler === undefined ? [] : [route.preHandler].flat()), before];
  route.onSend = [...(route.onSend === undefined ? [] : [route.onSend].flat()), after];
}

async function entryFor(request: FastifyRequest, action: AuditAction, options: AuditOptions): Promise<AuditEntry | undefined> {
  const principal = request.principal;
  if (!principal) return undefined;
  const parts: RequestParts = { params: record(request.params), query: record(request.query), body: record(request.body) };
  const projectId = action.project ? action.project(parts) : (parts.params['projectId'] as string | undefined);
  if (projectId === undefined) return undefined;
  // A project is created into an empty trail: asking for an id that is taken (409) is not the taken project's history.
  if (action.action === 'project.create' && (await options.tokens.hasProject(projectId))) return undefined;
  const token = await options.tokens.getToken(principal.tokenId);
  const time = options.now();
  return {
    id: newEntryId(time),
    time: time.toISOString(),
    project_id: projectId,
    principal: { user_id: principal.userId, token_id: principal.tokenId, token_name: token?.description ?? null, kind: principal.session ? 'session' : 'access_token' },
    action: action.action,
    resource: { type: action.type, ...action.resource(parts) },
    details: action.details?.(parts) ?? {},
    method: request.method,
    path: redactPathSecrets(request.url.split('?')[0] ?? request.url),
    request_id: request.id,
    status: null,
  };
}

function withOutcome(entry: AuditEntry, action: AuditAction, reply: FastifyReply, payload: unknown): AuditEntry {
  const status = reply.statusCode;
  const reads = (action.createdId && entry.resource.id === null) || action.answerDetails;
  if (!reads || status >= 300 || typeof payload !== 'string' || payload.length > MAX_ANSWER_READ) return { ...entry, status };
  let answer: Readonly<Record<string, unknown>>;
  try {
    answer = record(JSON.parse(payload));
  } catch {
    return { ...entry, status };
  }
  const id = entry.resource.id === null ? action.createdId?.(answer) : undefined;
  return {
    ...entry,
    status,
    resource: typeof id === 'string' ? { ...entry.resource, id } : entry.resource,
    details: { ...entry.details, ...action.answerDetails?.(answer) },
  };
}

/** An object of the request's (params, query, JSON body), else empty: a deploy's body is a stream, a bodiless request has none. */
function record(value: unknown): Readonly<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Stream || ArrayBuffer.isView(value)) return {};
  return value as Record<string, unknown>;
}
