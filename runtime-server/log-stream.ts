import type { IncomingMessage, ServerResponse } from 'node:http';
import { BoundedEventWriter, EVENT_STREAM_HEADERS, sseEvent } from '../src/event-stream.ts';
import type { AppLogDropListener, AppLogEntry, AppLogListener } from '../src/runtime-contract/app-logs.ts';

const KEEPALIVE_MS = 15_000;

/** An app's logs on this replica: the recent entries and, while followed, the new ones (`RuntimeEngine.followLogs`). */
export interface AppLogFeed {
  readonly recentPerApp: number;
  recent(key: string, limit: number): AppLogEntry[];
  follow(key: string, listener: AppLogListener, dropped?: AppLogDropListener): Promise<() => void>;
}

/**
 * `GET /apps/{namespace}/{app}/logs` on the status port, what cw-api's logs route merges from every replica:
 * `log` events with the app's recent entries (`?recent=N`, default all this replica keeps), then, unless
 * `?follow=false`, `live` once the app's requests are being collected, each new entry as a `log` event, and
 * `: keepalive` comments while the app is quiet. A reader that falls behind gets a `dropped` event ({count})
 * instead of unbounded buffering; so does one whose app's entries the runtime did not keep (the app logged more
 * than its share of the shard's log batches: `dispatcher.js`).
 */
export function streamAppLogs(req: IncomingMessage, res: ServerResponse, feed: AppLogFeed, key: string): void {
  const query = new URL(req.url ?? '/', 'http://status').searchParams;
  const recentParam = Number(query.get('recent') ?? feed.recentPerApp);
  const recent = feed.recent(key, Number.isInteger(recentParam) ? recentParam : feed.recentPerApp);
  res.writeHead(200, EVENT_STREAM_HEADERS);
  if (query.get('follow') === 'false') {
    res.end(recent.map((entry) => sseEvent('log', entry)).join(''));
    return;
  }
  for (const entry of recent) res.write(sseEvent('log', entry));
  const stream = new BoundedEventWriter(res, KEEPALIVE_MS);
  let live = false;
  const pending: AppLogEntry[] = [];
  let closed = false;
  let unsubscribe = () => {};
  res.once('close', () => {
    closed = true;
    unsubscribe();
  });
  void feed
    .follow(
      key,
      (entry) => (live ? stream.sendOrDrop('log', entry) : pending.push(entry)),
      (count) => stream.countDropped(count),
    )
    .then((stop) => {
      unsubscribe = stop;
      if (closed) return stop();
      stream.send('live', {});
      live = true;
      for (const entry of pending.splice(0)) stream.sendOrDrop('log', entry);
    });
}
