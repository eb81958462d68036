import type { IncomingMessage, ServerResponse } from 'node:http';
import { EVENT_STREAM_HEADERS, sseEvent } from '../../src/event-stream.ts';
import type { AppLogs } from '../../src/workerd/app-logs.ts';

/** Past this much unsent output (a reader too slow for the app's traffic), entries are counted as dropped, not queued. */
const MAX_BUFFERED_BYTES = 1024 * 1024;
const KEEPALIVE_MS = 15_000;

/**
 * `GET /apps/{namespace}/{app}/logs` on the status port, what cw-api's logs route merges from every replica:
 * `log` events with the app's recent entries (`?recent=N`, default all this replica keeps), then `live`, then
 * each new entry as a `log` event as it happens, with `: keepalive` comments while the app is quiet. A reader
 * that falls behind gets a `dropped` event ({count}) instead of unbounded buffering.
 */
export function streamAppLogs(req: IncomingMessage, res: ServerResponse, logs: AppLogs, key: string): void {
  const recent = Number(new URL(req.url ?? '/', 'http://status').searchParams.get('recent') ?? logs.recentPerApp);
  res.writeHead(200, EVENT_STREAM_HEADERS);
  for (const entry of logs.recent(key, Number.isInteger(recent) ? recent : logs.recentPerApp)) res.write(sseEvent('log', entry));
  res.write(sseEvent('live', {}));
  let dropped = 0;
  const unsubscribe = logs.subscribe(key, (entry) => {
    if (res.writableLength > MAX_BUFFERED_BYTES) {
      dropped += 1;
      return;
    }
    if (dropped > 0) {
      res.write(sseEvent('dropped', { count: dropped }));
      dropped = 0;
    }
    res.write(sseEvent('log', entry));
  });
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  res.once('close', () => {
    clearInterval(keepalive);
    unsubscribe();
  });
}
