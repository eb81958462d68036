// Following a task over Server-Sent Events (`Accept: text/event-stream`): `task` (the record as it is now) first,
// then `progress` and `log` as the task reports them, and exactly one terminal event, `result` (succeeded) or
// `error` (failed, interrupted), carrying the final record; then the stream ends. A `: keepalive` comment goes out
// while nothing else does, so no proxy drops a quiet stream. The stream is a Readable handed to `reply.send`, so
// the lane's hooks (the browser lane's CORS headers) apply as to any answer, and Fastify destroys it when the
// client goes away: the task then loses the listener.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PassThrough } from 'node:stream';
import { EVENT_STREAM_HEADERS, sseEvent } from '../../src/event-stream.ts';
import type { TaskRecord } from '../tasks/task-record.ts';
import type { Task } from '../tasks/task.ts';

/** Past this much unsent output (a client reading slowly), progress and log events are skipped: the terminal record has the log tail. */
const MAX_BUFFERED_BYTES = 1024 * 1024;

/** Whether the client asked to follow the task (`Accept: text/event-stream`). */
export function wantsEventStream(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return accept.split(',').some((type) => type.split(';', 1)[0]?.trim().toLowerCase() === 'text/event-stream');
}

/** The terminal event of an ended task. */
export function terminalEvent(record: TaskRecord): 'result' | 'error' {
  return record.state === 'succeeded' ? 'result' : 'error';
}

/** Answers `reply` with the task's event stream (200). */
export function streamTask(reply: FastifyReply, task: Task, keepaliveMs: number, headers: Record<string, string> = {}): FastifyReply {
  const out = new PassThrough();
  const snapshot = task.record();
  out.write(sseEvent('task', snapshot));
  if (snapshot.state !== 'running') {
    out.end(sseEvent(terminalEvent(snapshot), snapshot));
  } else {
    const unsubscribe = task.subscribe((event) => {
      if (event.kind === 'ended') {
        out.end(sseEvent(terminalEvent(event.record), event.record));
        return;
      }
      if (out.writableLength > MAX_BUFFERED_BYTES) return;
      out.write(event.kind === 'progress' ? sseEvent('progress', event.progress) : sseEvent('log', { line: event.line }));
    });
    const keepalive = setInterval(() => {
      if (out.writableLength <= MAX_BUFFERED_BYTES) out.write(': keepalive\n\n');
    }, keepaliveMs);
    // 'close' follows both the end after the terminal event and a client that went away (Fastify destroys the stream).
    out.once('close', () => {
      clearInterval(keepalive);
      unsubscribe();
    });
  }
  return reply
    .code(200)
    .headers({ ...headers, ...EVENT_STREAM_HEADERS })
    .send(out);
}
