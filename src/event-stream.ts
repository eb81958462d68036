/** One Server-Sent Events message: its event name and one line of JSON (JSON never holds a raw newline). */
export function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The headers of an event stream: not cached, not buffered by proxies (nginx honours `x-accel-buffering`). */
export const EVENT_STREAM_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' } as const;
