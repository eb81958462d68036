/**
 * The tail worker every app worker reports to (workerd's native mechanism for logs, as Cloudflare's tail
 * workers): one isolate of ours, one `AppTail` entrypoint per app told apart by its props (`app`, `build`),
 * so an app can neither choose nor see another's key. It keeps the request line, status, outcome, console
 * lines and exceptions, drops request headers and `cf` (they can hold secrets), and ships entries in
 * batches, at most every 50 ms, to the runtime's log sink (a Unix socket of the Node process).
 *
 * The flush timer is owned by the invocation that found none scheduled, so no invocation waits on another's
 * promise (workerd forbids I/O across requests' contexts).
 */
export const TAIL_WORKER_SOURCE = `
import { WorkerEntrypoint } from 'cloudflare:workers';

const FLUSH_MS = 50;
const MAX_QUEUED = 5000;
let queue = [];
let scheduled = false;

function text(part) {
  if (typeof part === 'string') return part;
  try { return JSON.stringify(part); } catch { return String(part); }
}

function entry(props, item) {
  const request = item.event && item.event.request;
  const response = item.event && item.event.response;
  return {
    app: props.app,
    buildId: props.build,
    time: item.eventTimestamp ?? Date.now(),
    outcome: item.outcome ?? 'unknown',
    request: request ? { method: request.method, url: request.url } : undefined,
    status: response ? response.status : undefined,
    logs: (item.logs ?? []).map((l) => ({ time: l.timestamp, level: l.level, message: (Array.isArray(l.message) ? l.message : [l.message]).map(text).join(' ') })),
    exceptions: (item.exceptions ?? []).map((e) => ({ time: e.timestamp, name: e.name, message: e.message, stack: e.stack })),
  };
}

export class AppTail extends WorkerEntrypoint {
  tail(events) {
    for (const item of events) if (queue.length < MAX_QUEUED) queue.push(entry(this.ctx.props, item));
    if (scheduled) return;
    scheduled = true;
    this.ctx.waitUntil(
      scheduler.wait(FLUSH_MS).then(async () => {
        scheduled = false;
        const batch = queue;
        queue = [];
        const res = await this.env.SINK.fetch('http://cw-logs/', { method: 'POST', body: JSON.stringify(batch) });
        await res.body?.cancel();
      }).catch(() => {}),
    );
  }
}

export default { fetch() { return new Response(null, { status: 404 }); } };
`;
