import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { EVENT_STREAM_HEADERS } from '../../src/event-stream.ts';
import type { AppLogSource, ReplicaLogEntry } from '../services/app-log-source.ts';
import type { AppDirectory } from '../../src/platform/apps.ts';
import { AppParams } from '../schemas/app.ts';
import { errorResponses } from '../schemas/problem.ts';
import { KeyedSlots } from '../../src/collections/keyed-slots.ts';
import { openLogStream } from './log-stream.ts';

const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx', 'exception'] as const;

export interface LogStreamLimits {
  /** Log streams this process follows at once. */
  readonly total: number;
  /** Of those, streams one user (with any of their tokens or sessions) follows at once. */
  readonly perUser: number;
  /** How often a stream's caller is checked again, so a revoked token or a member removed stops following (default 10 s). */
  readonly recheckMs?: number;
}

/**
 * Eight streams per user (a terminal or two, a console tab, a script), 200 per API process: each holds a
 * stream open to every runtime replica, which allow 256 per caller address (CW_RUNTIME_LOG_STREAMS_PER_CALLER).
 */
export const DEFAULT_LOG_STREAM_LIMITS: LogStreamLimits = { total: 200, perUser: 8 };

const LogQuery = Type.Object({
  status: Type.Optional(
    Type.String({
      pattern: `^(${STATUS_CLASSES.join('|')})(,(${STATUS_CLASSES.join('|')}))*$`,
      maxLength: 64,
      description: 'Only requests in these classes, comma-separated: `2xx`, `3xx`, `4xx`, `5xx`, `exception` (threw, or did not finish normally).',
    }),
  ),
  search: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only requests whose URL, console lines or exceptions contain this text (any case).' })),
  // Query values are strings: the API does not coerce types, so numbers and booleans are spelled as patterns.
  recent: Type.Optional(Type.String({ pattern: '^(100|[1-9]?[0-9])$', description: 'Recent entries per runtime replica to start with, 0 to 100 (default 50), before filtering.' })),
  follow: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { description: 'Keep the stream open for new entries (default); `false` ends it after the recent ones.' })),
});

const EVENT_STREAM = {
  'text/event-stream': {
    schema: {
      type: 'string',
      description:
        'Server-sent events. `log`: one request, `{time, replica, buildId, outcome, request: {method, url}, status?, logs: [{time, level, message}], exceptions: [{time, name, message, stack?}]}` ' +
        '(no request headers or bodies). `live` ({replicas}): the recent entries have all been sent. `dropped` ({count, replica?}): entries skipped because the reader (or, with `replica`, the API reading that replica) fell behind, or, with `replica`, because the app logged more than that replica keeps. ' +
        '`: keepalive` comments every 15 s.',
    },
  },
};

/** Whether an entry passes the caller's filters. */
export function logFilter(query: { status?: string | undefined; search?: string | undefined }): (entry: ReplicaLogEntry) => boolean {
  const classes = query.status ? new Set(query.status.split(',')) : undefined;
  const needle = query.search?.toLowerCase();
  return (entry) => {
    if (classes) {
      const failed = entry.outcome !== 'ok' || entry.exceptions.length > 0;
      const statusClass = entry.status === undefined ? undefined : `${Math.floor(entry.status / 100)}xx`;
      if (!(failed && classes.has('exception')) && !(statusClass !== undefined && classes.has(statusClass))) return false;
    }
    if (needle) {
      const texts = [entry.request?.url ?? '', ...entry.logs.map((l) => l.message), ...entry.exceptions.map((e) => `${e.name}: ${e.message}`)];
      if (!texts.some((text) => text.toLowerCase().includes(needle))) return false;
    }
    return true;
  };
}

export function appLogRoutes(app: FastifyInstance, apps: AppDirectory, logs: AppLogSource, limits: LogStreamLimits = DEFAULT_LOG_STREAM_LIMITS): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const slots = new KeyedSlots({ total: limits.total, perKey: limits.perUser });

  r.get('/v1/projects/:projectId/apps/:appId/logs', {
    config: { auth: { scope: 'apps:read', project: true }, countsInFlight: false },
    schema: {
      tags: ['apps'],
      summary: 'Follow an app’s logs live: each request, its console output and uncaught exceptions, from every runtime replica',
      description: `A user follows at most ${DEFAULT_LOG_STREAM_LIMITS.perUser} log streams at once, with all their tokens and sessions (429 past that), and the API process ${DEFAULT_LOG_STREAM_LIMITS.total} (503): by default; the server may set others.`,
      params: AppParams,
      querystring: LogQuery,
      response: { 200: { description: 'The event stream.', content: EVENT_STREAM }, ...errorResponses(404, 503) },
    },
    handler: async (request, reply) => {
      const { projectId, appId } = request.params;
      apps.get(projectId, appId);
      reply.code(200).headers({ ...EVENT_STREAM_HEADERS });
      // Fastify's HEAD twin of this route would otherwise hold a stream open that nobody reads.
      if (request.method === 'HEAD') return reply.send();
      const { out, events: stream, signal } = openLogStream(slots, request, 'log streams', limits.recheckMs);
      const matches = logFilter(request.query);
      void (async () => {
        for await (const event of logs.open(projectId, appId, { recent: Number(request.query.recent ?? 50), follow: request.query.follow !== 'false', signal })) {
          if (event.type === 'log') {
            if (matches(event.entry)) stream.sendOrDrop('log', event.entry);
          } else if (stream.full) {
            continue;
          } else if (event.type === 'live') {
            stream.send('live', { replicas: event.replicas });
          } else {
            stream.send('dropped', { replica: event.replica, count: event.count });
          }
        }
      })()
        .catch((err: unknown) => request.log.warn({ err }, 'app log stream failed'))
        .finally(() => out.end());
      return reply.send(out);
    },
  });
}
