// A Server-Sent Events client for tests, over plain node:http as curl would speak it: each message is read as it
// arrives, so a test waits on the next one instead of sleeping.
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

/** One message: an event with its JSON data, or a comment line (`: keepalive`). */
export type SseMessage = { readonly event: string; readonly data: unknown } | { readonly comment: string };

export class EventStream {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly #response: IncomingMessage;
  readonly #queue: SseMessage[] = [];
  readonly #waiting: ((message: SseMessage | undefined) => void)[] = [];
  #buffer = '';
  #ended = false;

  private constructor(response: IncomingMessage) {
    this.#response = response;
    this.status = response.statusCode ?? 0;
    this.headers = response.headers;
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      this.#buffer += chunk;
      for (let end = this.#buffer.indexOf('\n\n'); end !== -1; end = this.#buffer.indexOf('\n\n')) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        this.#push(parseBlock(block));
      }
    });
    response.once('close', () => {
      this.#ended = true;
      for (const resolve of this.#waiting.splice(0)) resolve(undefined);
    });
  }

  /** Opens `url` with `Accept: text/event-stream` and resolves once the answer's headers arrived. */
  static open(url: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<EventStream> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(url, { method: options.method ?? 'GET', headers: { accept: 'text/event-stream', ...options.headers } }, (response) => resolve(new EventStream(response)));
      req.once('error', reject);
      req.end();
    });
  }

  /** The next message (comments too unless `events`), or undefined once the stream has closed. */
  async next(options: { events?: boolean } = {}): Promise<SseMessage | undefined> {
    for (;;) {
      const message = this.#queue.shift() ?? (this.#ended ? undefined : await new Promise<SseMessage | undefined>((resolve) => this.#waiting.push(resolve)));
      if (message === undefined || !options.events || 'event' in message) return message;
    }
  }

  /** Goes away, as a client that closes the connection. */
  close(): void {
    this.#response.destroy();
  }

  #push(message: SseMessage): void {
    const waiter = this.#waiting.shift();
    if (waiter) waiter(message);
    else this.#queue.push(message);
  }
}

/** Parses one message's lines: `event:` and `data:` fields, or a comment. */
export function parseBlock(block: string): SseMessage {
  const lines = block.split('\n');
  if (lines.every((line) => line.startsWith(':'))) return { comment: lines.map((line) => line.slice(1).trim()).join('\n') };
  let event = 'message';
  const data: string[] = [];
  for (const line of lines) {
    if (line.startsWith('event: ')) event = line.slice('event: '.length);
    else if (line.startsWith('data: ')) data.push(line.slice('data: '.length));
  }
  return { event, data: JSON.parse(data.join('\n')) as unknown };
}

/** Every message of a whole answer (an ended task's stream, read with `inject`). */
export function parseEventStream(body: string): SseMessage[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map(parseBlock);
}
