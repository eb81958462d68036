// WebSockets (and other upgrades) through the entry point: each takes a place in its account's budget
// (websocket-budget.ts), is sent to workerd with the request's headers, and once workerd answers 101 is relayed byte
// for byte, with what the client has not read bounded (websocket-backlog.ts).
import { request, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { clientAddressKey } from '../../src/client-address.ts';
import { splitKey } from '../../src/kube/types.ts';
import type { Refusal, RoutedApp } from './entry-proxy.ts';
import { HOP_BY_HOP } from './hop-by-hop.ts';
import { WebSocketBacklogs, type BacklogBounds } from './websocket-backlog.ts';
import { DEFAULT_WEBSOCKETS_PER_PROJECT, WebSocketBudget } from './websocket-budget.ts';

export interface WebSocketRelayOptions {
  /** WebSockets one account's projects may hold open on the replica (default {@link DEFAULT_WEBSOCKETS_PER_PROJECT}). */
  readonly perProject?: number | undefined;
  readonly backlog?: BacklogBounds | undefined;
  /** `Retry-After` of a refusal because workerd is not reachable. */
  readonly retryAfter: string;
}

export class WebSocketRelay {
  readonly #budget: WebSocketBudget;
  readonly #backlogs: WebSocketBacklogs;
  readonly #retryAfter: string;

  constructor(options: WebSocketRelayOptions) {
    this.#budget = new WebSocketBudget(options.perProject ?? DEFAULT_WEBSOCKETS_PER_PROJECT);
    this.#backlogs = new WebSocketBacklogs(options.backlog);
    this.#retryAfter = options.retryAfter;
  }

  /**
   * Relays the upgrade `req` (its connection `socket`, what the client sent past the head `head`) to `route`'s app:
   * `client` is the client's address (a share of the budget is one client's), `headers` what workerd is sent.
   * The budget is `route`'s account's (its project's when the route names none).
   */
  relay(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    route: RoutedApp,
    { client, headers, cookie = (value) => value }: { client: string; headers: string[]; cookie?: (setCookie: string) => string },
  ): void {
    const project = splitKey(route.app).namespace;
    const place = this.#budget.take(route.account ?? project, clientAddressKey(client));
    if ('refused' in place) {
      const detail =
        place.refused === 'account'
          ? `The projects of the app's owner hold ${this.#budget.bound} WebSockets open on this replica, the most they may; close some, then retry.`
          : `This client holds ${this.#budget.perClient} of the WebSockets the app's owner's projects may hold on this replica, the most one client may; close some, then retry.`;
      socket.end(rawRefusal({ status: 503, title: 'Service Unavailable', detail, retryAfter: '10' }));
      return;
    }
    socket.once('close', place.giveBack);
    // workerd not reachable.
    const refuse = () => socket.end(rawRefusal({ status: 503, title: 'Service Unavailable', detail: 'The app is restarting; retry shortly.', retryAfter: this.#retryAfter }));
    const { socket: upstreamSocket, pool } = route.upstream;
    /** workerd answered (a 101 or another status). */
    let answered = false;
    /** The runtime ended the exchange (`UpstreamPool.cut`). */
    let cutShort = false;
    const upstream = request({ socketPath: upstreamSocket.socketPath, agent: false, method: req.method, path: req.url, headers, setHost: false });
    const leave = pool.enter(route.app, req.method ?? '', req.url ?? '', (refusal) => {
      if (cutShort || socket.destroyed) return false;
      cutShort = true;
      upstream.destroy();
      const refused = !answered;
      if (refused) socket.end(rawRefusal(refusal));
      else socket.destroy();
      leave();
      return refused;
    });
    socket.on('error', () => socket.destroy());
    upstream.on('upgrade', (up, upSocket, upHead) => {
      if (cutShort) return upSocket.destroy();
      answered = true;
      pool.output();
      leave.answered();
      socket.write(rawHead(up, false, cookie));
      if (upHead.length > 0) socket.write(upHead);
      if (head.length > 0) upSocket.write(head);
      const close = () => {
        upSocket.destroy();
        socket.destroy();
        leave();
      };
      // workerd's side closing ends the exchange there; the client still gets what it has not read (the relay).
      upSocket.on('error', close).on('close', () => leave());
      upSocket.on('data', () => pool.output());
      socket.on('close', close);
      this.#backlogs.relay(project, upSocket, socket, close);
      socket.pipe(upSocket);
    });
    upstream.on('response', (up) => {
      if (cutShort) return up.destroy();
      answered = true;
      pool.output();
      leave.answered();
      socket.write(rawHead(up, true, cookie));
      up.pipe(socket);
      up.once('close', () => {
        socket.end();
        leave();
      });
    });
    upstream.on('error', () => {
      if (cutShort) return leave();
      refuse();
      leave(true);
    });
    socket.once('close', () => {
      upstream.destroy();
      leave();
    });
    upstream.end();
  }
}

/** A response head for a raw socket; a relayed non-101 body is delimited by closing the connection. */
function rawHead(res: IncomingMessage, closeDelimited: boolean, cookie: (setCookie: string) => string): string {
  const lines = [`HTTP/1.1 ${res.statusCode ?? 502} ${res.statusMessage ?? ''}`];
  const raw = res.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] ?? '';
    const lower = name.toLowerCase();
    if (closeDelimited && HOP_BY_HOP.has(lower)) continue;
    // Browsers take cookies from a handshake's answer too: the app may scope them as on any answer (`cookie-scope.ts`).
    lines.push(`${name}: ${lower === 'set-cookie' ? cookie(raw[i + 1] ?? '') : (raw[i + 1] ?? '')}`);
  }
  if (closeDelimited) lines.push('connection: close');
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** A refusal on a raw socket (an upgrade request): the problem document, then the connection closes. */
export function rawRefusal(refusal: Refusal): string {
  const body = JSON.stringify({ title: refusal.title, status: refusal.status, detail: refusal.detail, ...(refusal.reason ? { reason: refusal.reason } : {}) });
  const retry = refusal.retryAfter ? `retry-after: ${refusal.retryAfter}\r\n` : '';
  return `HTTP/1.1 ${refusal.status} ${refusal.title}\r\ncontent-type: application/problem+json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${retry}connection: close\r\n\r\n${body}`;
}
