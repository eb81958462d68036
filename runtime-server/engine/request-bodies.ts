import type { IncomingMessage, ServerResponse } from 'node:http';
import { constants as http2Constants, type ServerHttp2Stream } from 'node:http2';
import { clientAddressKey } from '../../src/client-address.ts';
import { hostOf } from './entry-proxy.ts';
import { trustsPeer, type ForwardedTrust } from './forwarded-trust.ts';

/** How long the entry point waits for a request's body by default, from its head to its last byte. */
export const DEFAULT_REQUEST_BODY_TIMEOUT_MS = 60_000;

/** What the entry point says to a client whose body did not arrive in time (HTTP/1.1: written on the socket). */
const TIMED_OUT = 'HTTP/1.1 408 Request Timeout\r\nconnection: close\r\ncontent-length: 0\r\n\r\n';

export interface RequestBodiesOptions {
  /** The time a request's body may take to arrive, from its head ({@link DEFAULT_REQUEST_BODY_TIMEOUT_MS}); 0: none. */
  readonly timeoutMs?: number;
  /**
   * The app a request goes to, by its `Host`, with its concurrency limit (its slots in the dispatcher), or undefined
   * for a host no app is served at (nothing to share).
   */
  readonly appOf: (host: string | undefined) => { readonly key: string; readonly slots: number } | undefined;
  /** Whose `X-Forwarded-For` names the client (the ingress's, as for the entry point); else the peer is the client. */
  readonly trustForwardedHeaders?: ForwardedTrust;
  /** `Retry-After` seconds of a refusal. */
  readonly retryAfter: string;
}

/** An HTTP/2 request (Node's compatibility API), whose stream is its own. */
function streamOf(req: IncomingMessage): ServerHttp2Stream | undefined {
  return req.httpVersionMajor === 2 ? (req as IncomingMessage & { stream: ServerHttp2Stream }).stream : undefined;
}

/** Whether a request has a body to wait for (HTTP/2: DATA frames until END_STREAM; HTTP/1.1: a length or chunks). */
function hasBody(req: IncomingMessage): boolean {
  const stream = streamOf(req);
  if (stream) return !stream.endAfterHeaders;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Request bodies while they arrive, which is when a slow client holds its app's concurrency slot: a slot is taken
 * when the request reaches the dispatcher and given back when the app has answered, so an app that reads its body
 * waits on the client. 100 `POST`s from one address sending a byte every 5 s held all 100 slots of an app for Node's
 * 300 s request timeout, and every other visitor of the app was answered 503 (found in review-183). So:
 *
 * - One client (an address, an IPv6 /64; the one a trusted ingress forwards) has at most half of an app's slots'
 *   worth of bodies arriving at once; past it a request with a body is answered 503 at once (`Retry-After`,
 *   `Connection: close`) rather than queued for a slot. A body counts from the request's head until its last byte
 *   was taken (or the answer ended), so a quick upload counts for as long as it takes to send, not while the app works.
 * - A body has a bounded time to arrive (`timeoutMs`, 60 s by default): past it the request is cut, answered 408
 *   (HTTP/1.1) when its answer has not begun, or its stream cancelled (HTTP/2), which gives back its slot.
 *
 * Used as the entry point's `answer` hook: it answers only the requests it refuses, before they are routed.
 */
export class RequestBodies {
  readonly #timeoutMs: number;
  readonly #appOf: RequestBodiesOptions['appOf'];
  readonly #trusts: (address: string | undefined) => boolean;
  readonly #retryAfter: string;
  /** Bodies arriving, by app and client. */
  readonly #arriving = new Map<string, number>();

  constructor(options: RequestBodiesOptions) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_BODY_TIMEOUT_MS;
    this.#appOf = options.appOf;
    this.#trusts = trustsPeer(options.trustForwardedHeaders ?? false);
    this.#retryAfter = options.retryAfter;
  }

  /** Bodies arriving now, in all (for tests and metrics). */
  get arriving(): number {
    let n = 0;
    for (const count of this.#arriving.values()) n += count;
    return n;
  }

  /** The client: the last address of `X-Forwarded-For` from a trusted ingress (not over TLS: a client's own), else the peer. */
  #clientOf(req: IncomingMessage): string {
    const encrypted = 'encrypted' in req.socket && req.socket.encrypted === true;
    const forwarded = !encrypted && this.#trusts(req.socket.remoteAddress) ? req.headers['x-forwarded-for'] : undefined;
    return (typeof forwarded === 'string' ? forwarded.split(',').at(-1)?.trim() : undefined) || (req.socket.remoteAddress ?? '');
  }

  /** Answers (refuses) a request whose client already sends its app half its slots' worth of bodies; else watches its body. */
  readonly answer = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (!hasBody(req)) return false;
    const app = this.#appOf(hostOf(req));
    const key = app ? `${app.key} ${clientAddressKey(this.#clientOf(req))}` : undefined;
    if (app && key !== undefined) {
      const count = this.#arriving.get(key) ?? 0;
      if (count >= Math.max(1, Math.floor(app.slots / 2))) {
        refuse(req, res, this.#retryAfter);
        return true;
      }
      this.#arriving.set(key, count + 1);
    }
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      if (key === undefined) return;
      const left = (this.#arriving.get(key) ?? 1) - 1;
      if (left > 0) this.#arriving.set(key, left);
      else this.#arriving.delete(key);
    };
    const timer = this.#timeoutMs > 0 ? setTimeout(() => cut(req, res, settle), this.#timeoutMs) : undefined;
    timer?.unref();
    req.once('end', settle);
    req.once('close', settle);
    res.once('close', settle);
    res.once('finish', settle);
    return false;
  };
}

/** The 503 of a client past its share: its body is not read, so the connection goes with the answer. */
function refuse(req: IncomingMessage, res: ServerResponse, retryAfter: string): void {
  const body = JSON.stringify({
    type: 'about:blank',
    title: 'Service Unavailable',
    status: 503,
    detail: "This client is sending the app as many request bodies at once as it may (half the app's concurrent requests); retry when one has arrived.",
    reason: 'TooManyBodies',
  });
  const headers: Record<string, string | number> = { 'content-type': 'application/problem+json', 'content-length': Buffer.byteLength(body), 'retry-after': retryAfter };
  const stream = streamOf(req);
  if (!stream) headers.connection = 'close';
  res.writeHead(503, headers);
  res.end(body);
  // The client's side of the stream stays open while it sends: close it (NO_ERROR: answered, not to be retried as is).
  stream?.close(http2Constants.NGHTTP2_NO_ERROR);
}

/**
 * Cuts a request whose body did not arrive in time: the client is told 408 when its answer has not begun (HTTP/1.1,
 * on the socket: the entry point may still answer it through `res`, so `res` is left alone), and its connection
 * (HTTP/2: its stream) is closed, which the entry point sees as the client gone: it aborts the request to workerd,
 * whose dispatcher gives back the slot.
 */
function cut(req: IncomingMessage, res: ServerResponse, settle: () => void): void {
  settle();
  if (req.readableEnded) return;
  const stream = streamOf(req);
  if (stream) {
    stream.close(http2Constants.NGHTTP2_CANCEL);
    return;
  }
  const socket = req.socket;
  if (!res.headersSent && socket.writable) socket.end(TIMED_OUT);
  // The client may still be sending: its unread bytes would keep the half-closed socket; a second is enough for the 408.
  setTimeout(() => socket.destroy(), 1000).unref();
}
