import { once } from 'node:events';
/** One Server-Sent Events message: its event name and one line of JSON (JSON never holds a raw newline). */
export function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The headers of an event stream: not cached, not buffered by proxies (nginx honours `x-accel-buffering`). */
export const EVENT_STREAM_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' } as const;

/** Past this much unsent output (a reader slower than the events), `BoundedEventWriter` counts events instead of queueing them. */
const MAX_BUFFERED_BYTES = 1024 * 1024;

/**
 * Writes a live event stream without letting a slow reader grow its buffer: `sendOrDrop` counts an event
 * instead of queueing it while more than 1 MiB is unsent, and the next event that goes out is preceded by a
 * `dropped` event ({count}). A `: keepalive` comment goes out every `keepaliveMs` until `out` closes, so no
 * proxy drops a quiet stream.
 */
export class BoundedEventWriter {
  readonly #out: NodeJS.WritableStream & { readonly writableLength: number };
  #dropped = 0;

  constructor(out: NodeJS.WritableStream & { readonly writableLength: number }, keepaliveMs: number) {
    this.#out = out;
    const keepalive = setInterval(() => out.write(': keepalive\n\n'), keepaliveMs);
    out.once('close', () => clearInterval(keepalive));
  }

  /** More is unsent than a reader keeping up would leave. */
  get full(): boolean {
    return this.#out.writableLength > MAX_BUFFERED_BYTES;
  }

  send(event: string, data: unknown): void {
    if (this.#dropped > 0) {
      this.#out.write(sseEvent('dropped', { count: this.#dropped }));
      this.#dropped = 0;
    }
    this.#out.write(sseEvent(event, data));
  }

  /**
   * Sends the event, then, for a reader slower than the events, waits until the stream has taken what it holds
   * (its `drain`): for output that must not be dropped, produced only as fast as it is read. Returns at once
   * when `signal` aborts (the reader went away).
   */
  async sendPaced(event: string, data: unknown, signal: AbortSignal): Promise<void> {
    if (this.#dropped > 0) this.send(event, data);
    else if (this.#out.write(sseEvent(event, data))) return;
    if (signal.aborted || this.#out.writableLength === 0) return;
    await once(this.#out, 'drain', { signal }).catch(() => undefined);
  }

  /** Counts `count` events dropped before they reached this stream, and says so now unless the reader is behind. */
  countDropped(count: number): void {
    this.#dropped += count;
    if (this.full) return;
    this.#out.write(sseEvent('dropped', { count: this.#dropped }));
    this.#dropped = 0;
  }

  sendOrDrop(event: string, data: unknown): void {
    if (this.full) this.#dropped += 1;
    else this.send(event, data);
  }
}
