import { ENTRY_CF, ENTRY_CF_HEADER } from './dispatcher/config.ts';
import { trustsPeer, type ForwardedTrust } from './forwarded-trust.ts';
import type { BacklogBounds } from './websocket-backlog.ts';
import { rawRefusal, WebSocketRelay } from './websocket-relay.ts';
import { connectionTokens, HOP_BY_HOP } from './hop-by-hop.ts';
import { ConnectionGuard, type ConnectionLimits } from '../../src/connection-guard.ts';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { constants as http2Constants, type Http2SecureServer, type Http2Server, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { silentRuntimeLogger, type RuntimeLogger } from '../../src/runtime-contract/log.ts';
import type { Upstream, UpstreamPool } from './upstream.ts';
import { scopeSetCookie } from './cookie-scope.ts';
import { normalizeHost } from '../../src/runtime-contract/hosts.ts';
import type { Dispatcher } from 'undici';

/** Headers naming the client's address, which only the entry point sets: a client's own would be believed by apps. */
const CLIENT_ADDRESS_HEADERS = new Set(['cf-connecting-ip', 'x-real-ip', 'true-client-ip']);

/** Why the entry point answers a request itself: an RFC 9457 problem, with `Retry-After` when retrying helps. */
export interface Refusal {
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly retryAfter?: string;
  /** Extension member naming a runtime limit (`CPULimitExceeded`, …), for clients that act on it. */
  readonly reason?: string;
}

/** Where a request goes: the upstream of its app's shard (with the app, for the watchdog), or refused here. */
/** A request routed to an app: its upstream, its key, and whom its project counts against (the WebSocket budget's). */
export type RoutedApp = { readonly upstream: Upstream; readonly app: string; readonly account?: string | undefined; readonly refusal?: undefined };
export type SettledRoute = RoutedApp | { readonly refusal: Refusal };

/**
 * A {@link SettledRoute}, or one to wait for: the app's first request on this replica while its build is prepared,
 * or a request held for its turn (`cancel`: its client left, let it go).
 */
export type Route = SettledRoute | { readonly pending: Promise<SettledRoute>; readonly refusal?: undefined; readonly cancel?: () => void };

export interface EntryProxyOptions {
  /** Picks the upstream of a request by its `Host` header (the engine: the app's shard), or refuses it. */
  readonly route: (host: string | undefined) => Route;
  /**
   * Whose `X-Forwarded-For/-Proto/-Host` (appended to for `-For`) and `X-Request-Id` to keep: the ingress's or load
   * balancer's in front (`forwarded-trust.ts`). Others' are replaced, so a client cannot pretend to have come over
   * HTTPS or from another address; so are those of requests over the entry point's own TLS.
   */
  readonly trustForwardedHeaders?: ForwardedTrust;
  /** `Retry-After` seconds on 503 answers of a workerd that cannot be reached. */
  readonly retryAfterSeconds?: number;
  /**
   * Answers a request before it is routed to an app (the ACME HTTP-01 answers of `runtime-server/tls/`), or
   * returns false to let it through. Called for every request, so it decides without I/O but for a request it
   * cannot decide yet (a challenge's name the replica has not listed), for which it answers a promise.
   */
  readonly answer?: (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;
  /**
   * The app's HTTPS settings for a request routed to it (`runtime-server/tls/https-policy.ts`): a URL to redirect
   * it to (308), or a `Strict-Transport-Security` value for its answer. `secure` is {@link cameOverHttps}'s.
   * Called for every routed request, so it must decide without I/O.
   */
  readonly https?: (req: IncomingMessage, app: string, secure: boolean) => { readonly redirect?: string | undefined; readonly hsts?: string | undefined } | undefined;
  /**
   * Whether a request of `app` that changes nothing (GET, HEAD, OPTIONS), which `pool`'s workerd dropped when it
   * died, is routed again (once) rather than answered 503: the engine says yes when that workerd was stopped for
   * another project's code (`AppLimits.resendable`). Default: never.
   */
  readonly resend?: (app: string, pool: UpstreamPool) => boolean;
  readonly log?: RuntimeLogger;
  /** Connections each of its listeners holds at once, in all and per peer address (src/connection-guard.ts). */
  readonly connections?: ConnectionLimits;
  /** WebSockets each project holds open at once (`websocket-budget.ts`). Default: 1,000. */
  readonly webSocketsPerProject?: number;
  /** What apps' WebSockets may hold unread by their clients (`websocket-backlog.ts`). Default: 16 MiB each, 64 MiB in all. */
  readonly webSocketBacklog?: BacklogBounds;
  /**
   * The domain every app's default host is under: an app's `Set-Cookie` naming it (or a name above it) as its
   * `Domain` is passed on host-only (`cookie-scope.ts`), as is one naming a domain that is not its request's host or
   * a parent of it. Without it, only the latter.
   */
  readonly baseDomain?: string;
}

/**
 * The runtime's entry point: Node's HTTP server, whose strict parser is what faces clients (workerd's own
 * accepts ambiguous framing: `entry-smuggling.test.ts`), in front of the workerd shards. `route` picks the
 * shard of the request's app by `Host` (or refuses it: unknown host, app quarantined); that shard's
 * dispatcher worker bounds the app's concurrency and calls its isolate. This adds `X-Forwarded-*` and
 * `X-Request-Id`, streams everything else both ways over undici's kept-alive connections, and records each
 * request on its upstream (app, when sent, when workerd last showed life): the watchdog's evidence.
 */
export class EntryProxy {
  readonly server: Server;
  readonly #trustsPeer: (address: string | undefined) => boolean;
  readonly #retryAfter: string;
  readonly #log: RuntimeLogger;
  /** One bound for the HTTP listener and the HTTPS one it serves on too. */
  readonly #connections: ConnectionGuard | undefined;
  readonly #route: EntryProxyOptions['route'];
  readonly #answer: EntryProxyOptions['answer'];
  readonly #https: EntryProxyOptions['https'];
  readonly #resend: EntryProxyOptions['resend'];
  readonly #baseDomain: string | undefined;
  /** Requests already sent again after their workerd died under them (once is all). */
  readonly #resent = new WeakSet<IncomingMessage>();
  readonly #webSockets: WebSocketRelay;

  constructor(options: EntryProxyOptions) {
    this.#route = options.route;
    this.#answer = options.answer;
    this.#https = options.https;
    this.#resend = options.resend;
    this.#baseDomain = options.baseDomain;
    this.#trustsPeer = trustsPeer(options.trustForwardedHeaders ?? false);
    this.#retryAfter = String(options.retryAfterSeconds ?? 1);
    this.#webSockets = new WebSocketRelay({ perProject: options.webSocketsPerProject, backlog: options.webSocketBacklog, retryAfter: this.#retryAfter });
    this.#log = options.log ?? silentRuntimeLogger;
    // Longer than the idle timeout of the ingress or load balancer in front (often 60 s), so the proxy
    // never closes a kept-alive connection just as the ingress reuses it (a spurious 502 there).
    this.server = createServer({ keepAliveTimeout: 65_000, headersTimeout: 66_000 }, this.handle);
    this.server.on('upgrade', this.upgrade);
    this.#connections = options.connections && new ConnectionGuard(options.connections);
    this.#connections?.guard(this.server);
  }

  async listen(port = 0, host = '127.0.0.1'): Promise<AddressInfo> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return this.server.address() as AddressInfo;
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    await closed;
  }

  /**
   * Serves the entry point on another server too: the HTTPS listener, whose HTTP/2 requests come through Node's
   * compatibility API, close enough to HTTP/1.1's for `handle` (it reads `:authority` and skips pseudo-headers).
   */
  serveOn(server: Server | Http2Server | Http2SecureServer): void {
    this.#connections?.guard(server);
    server.on('request', this.handle);
    server.on('upgrade', this.upgrade);
  }

  /** The request listener (usable on another `http.Server`). */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    // RFC 9112 §6.1: a request whose last transfer coding is not chunked has no reliable length; Node's parser
    // reads such a body to the end of the connection, which could hide a second request in it.
    const te = req.headers['transfer-encoding'];
    if (te !== undefined && !/(^|,)[ \t]*chunked[ \t]*$/i.test(te)) {
      problem(res, 400, 'Bad Request', 'The request is refused: its Transfer-Encoding does not end with chunked.', { connection: 'close' });
      return;
    }
    const answered = this.#answer?.(req, res);
    if (answered instanceof Promise) {
      void answered.then((done) => {
        if (!done && !clientGone(req, res)) this.#routeAndSend(req, res);
      });
      return;
    }
    if (answered) return;
    this.#routeAndSend(req, res);
  };

  /** Routes the request by its host (waiting where its route says to) and sends it on. */
  #routeAndSend(req: IncomingMessage, res: ServerResponse): void {
    const route = this.#route(hostOf(req));
    if ('pending' in route) {
      if (route.cancel) res.once('close', route.cancel);
      void route.pending.then((settled) => this.#routed(req, res, settled));
      return;
    }
    this.#routed(req, res, route);
  }

  /** Answers a request its route refuses, redirects it by the app's HTTPS policy, or forwards it. */
  #routed(req: IncomingMessage, res: ServerResponse, route: SettledRoute): void {
    if (clientGone(req, res)) return; // the client left while its app was prepared, or it was held
    if (route.refusal) {
      refuse(res, route.refusal);
      return;
    }
    const verdict = this.#https?.(req, route.app, cameOverHttps(req, this.#trusts(req)));
    if (verdict?.redirect !== undefined) {
      // 308, not 301: the method and body are kept (a form POST to http:// is not turned into a GET).
      res.writeHead(308, { location: verdict.redirect, 'content-length': 0 });
      res.end();
      return;
    }
    this.#forward(req, res, route.upstream, route.app, verdict?.hsts);
  }

  /** Sends the request to `app`'s upstream and streams the answer back, with `hsts` unless the app sent its own. */
  #forward(req: IncomingMessage, res: ServerResponse, upstream: Upstream, app: string, hsts?: string): void {
    const { socket, pool } = upstream;
    let complete = false;
    /** Ended by the runtime (`UpstreamPool.cut`): answered here, not by workerd. */
    let cutShort = false;
    /** Ends the exchange; true when the client was answered the refusal (not when its answer had begun: broken off). */
    const cut = (refusal: Refusal): boolean => {
      if (complete || cutShort) return false;
      cutShort = true;
      controller?.abort(new Error('the request was cut short'));
      const answered = !res.headersSent;
      if (answered) refuse(res, refusal);
      else res.destroy();
      // An HTTP/2 stream whose client has not ended its side stays open after the answer: close it.
      if (isHttp2(req)) req.stream.close(http2Constants.NGHTTP2_CANCEL);
      done(false);
      return answered;
    };
    // The exchange with workerd ends with its answer (or a failure), not with the client's connection: an HTTP/2
    // client may keep its side of the stream open, and the request must not count as running for as long.
    const done = pool.enter(app, req.method ?? '', req.url ?? '', cut);
    const hasBody = isHttp2(req)
      ? !req.stream.endAfterHeaders // an HTTP/2 body needs no length: DATA frames until END_STREAM
      : req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');
    const gone = () => clientGone(req, res);
    const headers = this.#requestHeaders(req, false);
    let controller: Dispatcher.DispatchController | undefined;
    /** workerd broke off the exchange (it died under it, say): the watchdog's evidence keeps the request. */
    let lost = false;
    /**
     * The answer's body was held back for its client (`pause()`): what is read of it from then on may have waited in
     * the socket's buffers since before the thread got stuck, and is no sign of life (review-183 F1, below).
     */
    let backlogged = false;
    const send = (retried: boolean): void => {
      let responded = false;
      let replaced = false;
      // undici frames the request (Content-Length when the client gave one, else chunked) and parses the answer.
      socket.dispatcher.dispatch(
        { method: req.method ?? 'GET', path: req.url ?? '/', headers, body: hasBody ? req : null },
        {
          onRequestStart: (c) => {
            controller = c;
            if (gone() || cutShort) c.abort(new Error('the client went away'));
          },
          onResponseStart: (c, status, responseHeaderMap, message) => {
            if (cutShort) return;
            responded = true;
            pool.output();
            done.answered();
            try {
              const host = normalizeHost(hostOf(req));
              const headers = responseHeaders(c.rawHeaders, responseHeaderMap, (cookie) => scopeSetCookie(cookie, host, this.#baseDomain));
              // The app's own Strict-Transport-Security wins: it may know better for a path (or send max-age=0).
              if (hsts !== undefined && responseHeaderMap['strict-transport-security'] === undefined) {
                if (Array.isArray(headers)) headers.push('strict-transport-security', hsts);
                else headers['strict-transport-security'] = hsts;
              }
              // HTTP/2 has no reason phrase (Node warns when given one).
              if (isHttp2(req)) res.writeHead(status, headers);
              else res.writeHead(status, message, headers);
            } catch {
              replaced = true;
              problem(res, 502, 'Bad Gateway', 'The app answered with an invalid response head.');
              c.abort(new Error('invalid response head'));
            }
          },
          onResponseData: (c, chunk) => {
            // A body byte is the shard's sign of life for the watchdog (`watchdog.ts`) only while nothing of this
            // answer was held back: then undici reads what workerd's thread has just written. Once the client's
            // slowness paused it, the socket from workerd and undici hold what workerd wrote earlier, which a
            // client reading a little at a time lets through whenever it likes, thread stuck or not: a hostile
            // review kept a never-yielding loop running 31 s past a 300 ms bound that way, trickling from 120 paused
            // answers (review-183 F1). Such an answer's later bytes, and its end, count for nothing; its head did.
            if (!backlogged) pool.output();
            if (cutShort) return;
            if (!res.write(chunk)) {
              backlogged = true;
              c.pause();
              res.once('drain', () => c.resume());
            }
          },
          onResponseEnd: () => {
            complete = true;
            if (!backlogged) pool.output();
            if (!cutShort) res.end();
            done(false);
          },
          onResponseError: (_c, err) => {
            if (cutShort) return; // the cut answered
            if (replaced) return done(false); // the 502 above answered
            if (responded || gone()) {
              lost = !gone();
              res.destroy(); // the response broke mid-body: the client must not see a clean end
              return done(lost);
            }
            if ((err as NodeJS.ErrnoException).code === 'UND_ERR_INVALID_ARG') {
              // A request Node accepted but undici will not send on (`OPTIONS *`, say): the client's, not workerd's.
              problem(res, 400, 'Bad Request', 'The request target cannot be forwarded to an app.');
              return done(false);
            }
            if (!hasBody && !retried && isClosedByPeer(err)) {
              send(true); // a kept-alive connection had been closed by workerd: once more on a new one
              return;
            }
            if (!hasBody && SAFE_METHODS.has(req.method ?? '') && !this.#resent.has(req) && this.#resend) {
              // Its workerd may have died under it, stopped for another tenant's code: a request that changes nothing
              // is then routed again, once, and waits for the shard's restart, as a proxy retries an idempotent
              // request on another upstream. The stop is judged first (a workerd past its heap bound ends itself, so
              // its requests fail before its end is read); meanwhile the request still counts as running.
              const resend = this.#resend;
              lost = true;
              void pool.afterJudged(JUDGED_WAIT_MS).then(() => {
                if (gone() || cutShort) return done(true);
                if (resend(app, pool)) {
                  this.#resent.add(req);
                  lost = true;
                  done(true);
                  this.#routeAndSend(req, res);
                } else unreachable(err);
              });
              return;
            }
            unreachable(err);
          },
        },
      );
    };
    const unreachable = (err: Error): void => {
      if (!pool.reportedUnreachable) {
        pool.reportedUnreachable = true; // once per generation: a crashed workerd would otherwise log every request
        this.#log.warn('workerd unreachable', { error: err.message });
      }
      lost = true;
      problem(res, 503, 'Service Unavailable', 'The app is restarting; retry shortly.', { 'retry-after': this.#retryAfter });
      done(true);
    };
    send(false);
    res.once('close', () => {
      if (!complete) controller?.abort(new Error('the client went away'));
      done(lost);
    });
  }

  /** The client's address: behind a trusted ingress, the one it appended last; otherwise whoever connected. */
  #clientOf(req: IncomingMessage, trust = this.#trusts(req)): string {
    const forwardedFor = trust ? req.headers['x-forwarded-for'] : undefined;
    return (typeof forwardedFor === 'string' ? forwardedFor.split(',').at(-1)?.trim() : undefined) || (req.socket.remoteAddress ?? '');
  }

  /**
   * Whether `req`'s `X-Forwarded-*` are its ingress's: its peer is one trusted to speak for clients, and it did not
   * come over the entry point's own TLS, whose clients connect to it directly.
   */
  #trusts(req: IncomingMessage): boolean {
    return !encrypted(req) && this.#trustsPeer(req.socket.remoteAddress);
  }

  /** The client's headers minus hop-by-hop ones, plus `X-Forwarded-*`. `Host` is kept: workerd builds `request.url` from it. */
  #requestHeaders(req: IncomingMessage, upgrade: boolean): string[] {
    const raw = req.rawHeaders;
    const out: string[] = [];
    const named = connectionTokens(req.headers.connection);
    let forwardedFor: string | undefined;
    let forwardedProto: string | undefined;
    let forwardedHost: string | undefined;
    let requestId: string | undefined;
    const trust = this.#trusts(req);
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i] ?? '';
      const value = raw[i + 1] ?? '';
      const lower = name.toLowerCase();
      // HTTP/2's pseudo-headers (`:authority` becomes `host` below) are not headers of an HTTP/1.1 request.
      if (HOP_BY_HOP.has(lower) || named?.has(lower) || lower.startsWith(':')) continue;
      if (lower === 'x-forwarded-for') {
        if (trust) forwardedFor = forwardedFor === undefined ? value : `${forwardedFor}, ${value}`;
      } else if (lower === 'x-forwarded-proto') {
        if (trust) forwardedProto = value;
      } else if (lower === 'x-forwarded-host') {
        if (trust) forwardedHost = value;
      } else if (lower === 'x-request-id') {
        if (trust) requestId = value;
      } else if (lower === ENTRY_CF_HEADER) {
        // Set below: it is the app's `request.cf`, and would make a request a control one (dispatcher.js).
      } else if (CLIENT_ADDRESS_HEADERS.has(lower)) {
        // Set below from what the entry point knows: apps (Workers' among them) take these for the client's address.
      } else {
        out.push(name, value);
      }
    }
    const client = req.socket.remoteAddress ?? '';
    const origin = this.#clientOf(req, trust);
    const host = hostOf(req);
    if (req.headers.host === undefined && host !== undefined) out.push('host', host);
    out.push(
      'x-forwarded-for',
      forwardedFor === undefined ? client : `${forwardedFor}, ${client}`,
      'x-forwarded-proto',
      forwardedProto ?? (encrypted(req) ? 'https' : 'http'),
      'x-forwarded-host',
      forwardedHost ?? host ?? '',
      'x-request-id',
      requestId ?? randomUUID(),
      'cf-connecting-ip',
      origin,
      'x-real-ip',
      origin,
      ENTRY_CF_HEADER,
      ENTRY_CF,
    );
    if (upgrade) out.push('connection', 'upgrade', 'upgrade', req.headers.upgrade ?? '');
    return out;
  }

  /** WebSocket (and other) upgrades: relayed byte for byte once workerd answers 101 (the `upgrade` listener, usable on another server). */
  readonly upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const route = this.#route(req.headers.host);
    if ('pending' in route) {
      socket.on('error', () => socket.destroy()); // a client gone while its app is prepared
      if (route.cancel) socket.once('close', route.cancel);
      void route.pending.then((settled) => !socket.destroyed && this.#upgradeRouted(req, socket, head, settled));
      return;
    }
    this.#upgradeRouted(req, socket, head, route);
  };

  #upgradeRouted(req: IncomingMessage, socket: Duplex, head: Buffer, route: SettledRoute): void {
    if (route.refusal) socket.end(rawRefusal(route.refusal));
    else {
      const host = normalizeHost(hostOf(req));
      const cookie = (value: string) => scopeSetCookie(value, host, this.#baseDomain);
      this.#webSockets.relay(req, socket, head, route, { client: this.#clientOf(req), headers: this.#requestHeaders(req, true), cookie });
    }
  }
}

/** Whether the client of a request left: its connection (HTTP/1.1) or its stream (HTTP/2, whose response has no `destroyed`). */
function clientGone(req: IncomingMessage, res: ServerResponse): boolean {
  return res.destroyed || (isHttp2(req) && req.stream.destroyed);
}

/** A request over HTTP/2 (the HTTPS listener's, through Node's compatibility API). */
function isHttp2(req: IncomingMessage): req is IncomingMessage & { stream: ServerHttp2Stream } {
  return req.httpVersionMajor === 2;
}

/**
 * Whether a request came over HTTPS: on the TLS listener, or, behind an ingress whose `X-Forwarded-*` the runtime
 * trusts, when its `X-Forwarded-Proto` says `https` (the first value: the client-facing hop's).
 */
export function cameOverHttps(req: IncomingMessage, trustForwardedHeaders: boolean): boolean {
  if (encrypted(req)) return true;
  if (!trustForwardedHeaders) return false;
  const proto = req.headers['x-forwarded-proto'];
  return (Array.isArray(proto) ? proto[0] : proto)?.split(',')[0]?.trim().toLowerCase() === 'https';
}

/** Whether `req` came over the entry point's own TLS listener. */
function encrypted(req: IncomingMessage): boolean {
  return 'encrypted' in req.socket && req.socket.encrypted === true;
}

/** The request's host: `Host`, or HTTP/2's `:authority`. */
export function hostOf(req: IncomingMessage): string | undefined {
  return req.headers.host ?? (req.headers[':authority'] as string | undefined);
}

/**
 * The response's headers minus hop-by-hop ones, in their received order and case when undici kept them raw, each
 * `Set-Cookie` as `cookie` makes it (the domains an app may scope a cookie to).
 */
function responseHeaders(raw: Dispatcher.DispatchController['rawHeaders'], parsed: IncomingHttpHeaders, cookie: (value: string) => string): string[] | OutgoingHttpHeaders {
  if (Array.isArray(raw)) {
    const out: string[] = [];
    for (let i = 0; i < raw.length; i += 2) {
      const name = String(raw[i] ?? '');
      const lower = name.toLowerCase();
      const value = String(raw[i + 1] ?? '');
      if (!HOP_BY_HOP.has(lower)) out.push(name, lower === 'set-cookie' ? cookie(value) : value);
    }
    return out;
  }
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (HOP_BY_HOP.has(name) || value === undefined) continue;
    out[name] = name === 'set-cookie' ? ([] as string[]).concat(value).map(cookie) : value;
  }
  return out;
}

/** Methods that change nothing (RFC 9110 §9.2.1): sent again when their workerd died before answering. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/**
 * How long a request its workerd dropped waits for the shard's judgement of that workerd's end before its 503: a
 * stop's verdict is given before the kill, and the end of a workerd that ended itself is read within milliseconds.
 * Only a connection dropped by a workerd that lives on waits this long.
 */
const JUDGED_WAIT_MS = 1000;

/** undici's error for a connection the peer closed before answering (a kept-alive one workerd had let go). */
function isClosedByPeer(err: Error): boolean {
  return err.name === 'SocketError' || (err as NodeJS.ErrnoException).code === 'UND_ERR_SOCKET' || (err as NodeJS.ErrnoException).code === 'ECONNRESET';
}

/** An RFC 9457 problem document (the same shape the API answers with). */
function problem(res: ServerResponse, status: number, title: string, detail: string, headers: Record<string, string> = {}, extra: Record<string, string> = {}): void {
  const body = JSON.stringify({ title, status, detail, ...extra });
  res.writeHead(status, { 'content-type': 'application/problem+json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** Answers `refusal` as a problem document (also what workerd is told when the runtime will not hand out an app's code). */
export function refuse(res: ServerResponse, refusal: Refusal): void {
  problem(res, refusal.status, refusal.title, refusal.detail, refusal.retryAfter ? { 'retry-after': refusal.retryAfter } : {}, refusal.reason ? { reason: refusal.reason } : {});
}
