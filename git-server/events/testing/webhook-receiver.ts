// Test helper: a real HTTP webhook receiver. Records every batch it is sent, verifies the delivery id and
// signature, answers as the test decides (2xx, an error status, a reset connection, or a held answer), and lets
// tests wait for arrivals instead of sleeping.
import { createHmac, createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RefEvent } from '../ref-event.ts';

export interface Arrival {
  readonly deliveryId: string;
  /** The body as received (what a signature covers). */
  readonly body: Buffer;
  readonly signatureValid: boolean | undefined;
  readonly events: readonly RefEvent[];
  readonly headers: IncomingMessage['headers'];
  /** Set once answered: whether with a 2xx. */
  acknowledged?: boolean;
}

/** How to answer one arrival: a status, `reset` (close without answering), or `hold` (answer later, by hand). */
export type Answer = number | 'reset' | 'hold';

export class WebhookReceiver {
  readonly arrivals: Arrival[] = [];
  /** Decides each answer; default 204. */
  answer: (arrival: Arrival) => Answer = () => 204;
  readonly #server: Server;
  readonly #secret: string | undefined;
  readonly #held = new Map<Arrival, ServerResponse>();
  #waiters: { test: () => boolean; resolve: () => void }[] = [];

  private constructor(server: Server, secret: string | undefined) {
    this.#server = server;
    this.#secret = secret;
  }

  static async start(options: { secret?: string } = {}): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined;
    const server = createServer((req, res) => receiver?.handle(req, res));
    receiver = new WebhookReceiver(server, options.secret);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hooks/cw-git`;
  }

  /** Events of acknowledged arrivals, in arrival order. */
  acknowledged(repo?: string): RefEvent[] {
    return this.arrivals.filter((a) => a.acknowledged).flatMap((a) => a.events.filter((e) => repo === undefined || e.repo === repo));
  }

  /** Resolves once `test` holds, checked now and after each arrival and answer. */
  until(test: () => boolean, timeoutMs = 30_000): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`webhook receiver: condition not met within ${timeoutMs} ms (${this.arrivals.length} arrivals)`)), timeoutMs);
      this.#waiters.push({ test, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  /** Answers a held arrival. */
  release(arrival: Arrival, status = 204): void {
    const res = this.#held.get(arrival);
    this.#held.delete(arrival);
    if (!res) return;
    arrival.acknowledged = status >= 200 && status < 300;
    res.writeHead(status).end();
    this.#notify();
  }

  async close(): Promise<void> {
    for (const res of this.#held.values()) res.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : undefined);
      const expectedId = createHash('sha1').update(body).digest('hex');
      const signature = header('x-service-signature');
      let signatureValid: boolean | undefined;
      if (this.#secret !== undefined) {
        // As the consumer checklist says: a constant-time comparison before parsing.
        const expected = Buffer.from(`sha256=${createHmac('sha256', this.#secret).update(body).digest('hex')}`);
        signatureValid = signature !== undefined && signature.length === expected.length && timingSafeEqual(Buffer.from(signature), expected);
      }
      const arrival: Arrival = {
        body,
        deliveryId: header('x-service-delivery') === expectedId ? expectedId : `mismatch:${header('x-service-delivery') ?? ''}`,
        signatureValid,
        events: JSON.parse(body.toString('utf8')) as RefEvent[],
        headers: req.headers,
      };
      this.arrivals.push(arrival);
      const answer = this.answer(arrival);
      if (answer === 'hold') this.#held.set(arrival, res);
      else if (answer === 'reset') {
        arrival.acknowledged = false;
        res.destroy();
      } else {
        // Recorded before the answer leaves: a bridge can move its cursor only after it got the 2xx.
        arrival.acknowledged = answer >= 200 && answer < 300;
        res.writeHead(answer).end();
      }
      this.#notify();
    });
  }

  #notify(): void {
    const ready = this.#waiters.filter((w) => w.test());
    this.#waiters = this.#waiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve();
  }
}
