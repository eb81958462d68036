import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { KeyedSlots } from '../../src/collections/keyed-slots.ts';
import { EVENT_STREAM_HEADERS } from '../../src/event-stream.ts';
import { UnavailableError } from '../../src/errors.ts';
import type { ObjectStore } from '../../src/object-store/object-store.ts';
import type { AppSources } from '../../src/platform/app-sources/app-sources.ts';
import { isFinished } from '../../src/platform/app-sources/source-view.ts';
import type { LogEnd } from '../../src/platform/source-builds/build-log.ts';
import { FULL_LOGS_PER_APP, TRIMMED_LOG_BYTES } from '../../src/platform/source-builds/log-retention.ts';
import { followBuildLog, readWholeBuildLog } from '../../src/platform/source-builds/follow-build-log.ts';
import { BuildLogQuery, SourceBuildParams } from '../schemas/app-source.ts';
import { errorResponses } from '../schemas/problem.ts';
import { DEFAULT_LOG_STREAM_LIMITS, type LogStreamLimits } from './app-logs.ts';
import { openLogStream } from './log-stream.ts';

const LOG_CONTENT = {
  'text/plain': {
    schema: {
      type: 'string',
      description:
        `The log written so far (the build’s output, at most 4 MiB). Of a build past its app’s ${FULL_LOGS_PER_APP} newest finished ones, only the last ` +
        `${TRIMMED_LOG_BYTES / 1024} KiB, after a first line saying the earlier part was removed (also in the first \`log\` event when followed).`,
    },
  },
  'text/event-stream': {
    schema: {
      type: 'string',
      description:
        'Server-sent events. `log` ({text}): the log so far in parts of at most 256 KiB, then each part as the build writes it (within about a second); a reader that falls behind ' +
        'still gets every part, as fast as it reads. `end` ({state, message?}): the build ended (succeeded, failed, cancelled; deleted when the build went), and the stream with it. ' +
        '`: keepalive` comments every 15 s.',
    },
  },
};

/** Chunks of the log (64 KiB each at most) one `log` event carries. */
const CHUNKS_PER_EVENT = 4;

/** Whether the caller asked for the event stream: `?follow=true`, or an Accept naming it. */
function wantsStream(request: FastifyRequest<{ Querystring: { follow?: 'true' | 'false' } }>): boolean {
  if (request.query.follow !== undefined) return request.query.follow === 'true';
  return (request.headers.accept ?? '').includes('text/event-stream');
}

/** The end as the API says it: the states in the build view's words. */
function endView(end: LogEnd): { state: string; message?: string } {
  return { state: end.state.toLowerCase(), ...(end.message ? { message: end.message } : {}) };
}

/**
 * A build's log (in the artifact bucket, written by the operator as the build runs): all of it so far as text,
 * or followed as server-sent events until the build ends. `logs` absent (no bucket configured): 503.
 */
export function sourceBuildLogRoutes(app: FastifyInstance, sources: AppSources, logs: ObjectStore | undefined, limits: LogStreamLimits = DEFAULT_LOG_STREAM_LIMITS): void {
  const slots = new KeyedSlots({ total: limits.total, perKey: limits.perUser });
  app.withTypeProvider<TypeBoxTypeProvider>().get('/v1/projects/:projectId/apps/:appId/source-builds/:build/logs', {
    config: { auth: { scope: 'apps:read', project: true } },
    schema: {
      tags: ['apps'],
      summary: 'A build’s log: the whole log so far as text/plain, or followed live as server-sent events (`Accept: text/event-stream` or `?follow=true`) until the build ends',
      description: `A user follows at most ${DEFAULT_LOG_STREAM_LIMITS.perUser} build logs at once (429 past that), the API process ${DEFAULT_LOG_STREAM_LIMITS.total} (503): by default, the bounds of app log streams (counted apart from them).`,
      params: SourceBuildParams,
      querystring: BuildLogQuery,
      response: { 200: { description: 'The log, or its event stream.', content: LOG_CONTENT }, ...errorResponses(404, 503) },
    },
    handler: async (request, reply) => {
      const { projectId, appId, build: name } = request.params;
      const build = sources.build(projectId, appId, name);
      if (!logs) throw new UnavailableError('Build logs are kept in the artifact bucket, which this API server has not been given (CW_S3_BUCKET).');
      if (!wantsStream(request)) {
        const { text } = await readWholeBuildLog(logs, projectId, name);
        return reply.code(200).type('text/plain; charset=utf-8').send(text);
      }
      reply.code(200).headers({ ...EVENT_STREAM_HEADERS });
      if (request.method === 'HEAD') return reply.send();
      const { out, events: stream, signal } = openLogStream(slots, request, 'build log streams', limits.recheckMs);
      // A comment first: the answer's headers go out now, not with the build's first output (which may be far off).
      out.write(': following\n\n');
      const uid = build.metadata?.uid;
      const ended = (): LogEnd | undefined => {
        const now = sources.currentBuild(projectId, name);
        if (!now || now.metadata?.uid !== uid) return { state: 'Deleted', message: 'The build was deleted.' };
        return isFinished(now.status?.state) ? { state: now.status?.state ?? '', ...(now.status?.message ? { message: now.status.message } : {}) } : undefined;
      };
      void (async () => {
        // A build's log is finite and kept: a slow reader gets all of it, read from the bucket only as fast as it
        // takes it, a few chunks an event (a reader of the whole 4 MiB log holds no more of it than that).
        for await (const event of followBuildLog(logs, projectId, name, { signal, ended, maxChunks: CHUNKS_PER_EVENT })) {
          if (event.type === 'log') await stream.sendPaced('log', { text: event.text }, signal);
          else stream.send('end', endView(event.end));
        }
      })()
        .catch((err: unknown) => {
          request.log.warn({ err }, 'build log stream failed');
        })
        .finally(() => out.end());
      return reply.send(out);
    },
  });
}
