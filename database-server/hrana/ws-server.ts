import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { Refusal } from './http-server.ts';
import type { PipelineCaller, PipelineContext } from './pipeline.ts';
import { WS_SUBPROTOCOLS } from './ws-protocol.ts';
import { WsSession } from './ws-session.ts';
import { forwardUpgrade, MOVING, onOwner, wasForwarded, type Router } from './forward.ts';
import { rawBytes, relayWebSocket, type WsFrame } from './ws-relay.ts';
import type { ProjectMemory } from './project-memory.ts';
import { jsonDepthWithin } from './json-depth.ts';
import { DEFAULT_PRE_HELLO_LIMITS, PreHelloBudget, type PreHelloConnection, type PreHelloLimits } from './pre-hello.ts';

/** Hrana over WebSocket's settings (docs/databases.md, "Hrana over WebSocket"). */
export interface WsOptions {
  authorize: (token: string | undefined, pathTenant: string | null) => Promise<PipelineCaller | Refusal>;
  /** A connection with no message for this long and no transaction open is closed (default 5 min). */
  idleTimeoutMs?: number;
  /** Connections one database may have at once (default 100). */
  maxConnectionsPerDatabase?: number;
  /** Largest message accepted (the HTTP body bound). */
  maxMessageBytes: number;
  /** What each project's connections may hold in this process (the HTTP server's, shared). */
  memory: ProjectMemory;
  /** Several replicas: a connection to a database another replica owns is spliced to that replica's. */
  route?: Router;
  /** What connections may hold before their hello is accepted (pre-hello.ts); default `DEFAULT_PRE_HELLO_LIMITS`. */
  preHello?: PreHelloLimits;
}

// `/`, `/v1` or `/v1/<database>`: what a `ws://` database URL names (the HTTP client appends `/v2/pipeline` to the same).
const PATH = /^\/(?:v1(?:\/([^/]+))?)?\/?$/;
/** What a relayed connection holds for a side that does not read before the other is read no further (and a message). */
const RELAY_BUFFER_BYTES = 1024 * 1024;
/** A connection closed for want of a hello that does not finish the close handshake within this is dropped. */
const NO_HELLO_CLOSE_MS = 1_000;

/**
 * Serves Hrana 2 and 3 over WebSocket on the Hrana server's port: upgrades on the database's URL, negotiates a
 * JSON subprotocol (`hrana3`, else `hrana2`; a client offering neither is refused with 400), and runs a
 * `WsSession` per connection. Returns what closing needs.
 */
export function serveWebSockets(server: Server, context: PipelineContext, options: WsOptions): { close(): Promise<void>; closeTenant(tenant: string): void } {
  const idleTimeoutMs = options.idleTimeoutMs ?? 5 * 60_000;
  const perDatabase = options.maxConnectionsPerDatabase ?? 100;
  const unsentBound = 4 * options.maxMessageBytes;
  const connections = new Map<string, number>();
  const sessions = new Map<WsSession, WebSocket>();
  const preHello = new PreHelloBudget(options.preHello ?? DEFAULT_PRE_HELLO_LIMITS);
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxMessageBytes,
    handleProtocols: (offered) => WS_SUBPROTOCOLS.find((p) => offered.has(p)) ?? false,
  });

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const match = PATH.exec(new URL(request.url ?? '/', 'http://localhost').pathname);
    const offered = (request.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
    if (!match) return refuse(socket, 404, 'Not found');
    if (!WS_SUBPROTOCOLS.some((p) => offered.includes(p))) return refuse(socket, 400, `Offer one of the subprotocols ${WS_SUBPROTOCOLS.join(', ')}`);
    // Held to the pre-hello bounds from here until its hello is accepted (or it is relayed to another replica).
    const pending = preHello.open(request.socket.remoteAddress ?? '');
    if (!pending) return refuse(socket, 429, 'Too many WebSocket connections without a hello from this address; retry shortly');
    socket.once('close', () => pending.end());
    const tenant = match[1];
    const route = options.route;
    if (!route) return wss.handleUpgrade(request, socket, head, (ws) => accept(ws, tenant ?? null, beforeHello(ws, socket, pending)));
    if (tenant === undefined) return wss.handleUpgrade(request, socket, head, (ws) => byToken(ws, route, request, beforeHello(ws, socket, pending)));
    route(tenant, undefined, wasForwarded(request)).then(
      (route) => {
        if (route.kind === 'forward') {
          pending.end();
          forwardUpgrade(request, socket, head, route.url);
        } else if (route.kind === 'unavailable') refuse(socket, 503, MOVING.message);
        else wss.handleUpgrade(request, socket, head, (ws) => accept(ws, tenant, beforeHello(ws, socket, pending)));
      },
      () => socket.destroy(),
    );
  });

  /**
   * Bounds a connection until its hello is accepted (`greeted`, returned): the bytes read from its socket (what `ws`
   * buffers of an unfinished message) against its budget and the total, and the time since the upgrade. Reading
   * stops while a hello is checked, so requests sent right behind it are not read meanwhile.
   */
  function beforeHello(ws: WebSocket, socket: Duplex, pending: PreHelloConnection): () => void {
    const tap = (chunk: Buffer) => {
      if (!pending.received(chunk.length)) ws.terminate();
    };
    socket.on('data', tap);
    const timer = setTimeout(() => {
      ws.close(4001, 'No hello');
      setTimeout(() => ws.terminate(), NO_HELLO_CLOSE_MS).unref();
    }, preHello.limits.timeoutMs);
    timer.unref();
    const greeted = () => {
      clearTimeout(timer);
      socket.off('data', tap);
      pending.end();
    };
    ws.once('close', greeted);
    return greeted;
  }

  /**
   * Several replicas, a URL naming no database: the hello's token says which, and so whether the connection is served
   * here or relayed to the owner (ws-relay.ts). What the client sends before that is known is held (bounded), then
   * handed on first.
   */
  function byToken(ws: WebSocket, route: Router, request: IncomingMessage, greeted: () => void): void {
    const early: WsFrame[] = [];
    let earlyBytes = 0;
    const decide = (jwt: string | undefined) => {
      ws.pause(); // read no further until the owner is known
      route(null, jwt, wasForwarded(request)).then(
        (decision) => {
          ws.off('message', hold);
          ws.resume();
          if (decision.kind === 'forward') {
            // The owner holds it to the pre-hello bounds; here the relay's bounds hold it.
            greeted();
            const target = webSocketUrl(onOwner(request.url, decision.url));
            relayWebSocket(ws, target, early, { database: decision.tenant ?? '', memory: options.memory, bufferBound: RELAY_BUFFER_BYTES });
          } else if (decision.kind === 'unavailable') ws.close(1013, 'The database is moving to another replica; reconnect');
          else accept(ws, null, greeted, early);
        },
        () => ws.terminate(),
      );
    };
    const hold = (data: RawData, isBinary: boolean) => {
      const first = early.length === 0;
      early.push({ data, isBinary });
      earlyBytes += rawBytes(data);
      // A client that sends on and on before its database is found is not held in memory.
      if (earlyBytes > unsentBound) return ws.terminate();
      if (!first) return;
      decide(isBinary ? undefined : helloToken(rawText(data)));
    };
    ws.on('message', hold);
  }

  function accept(ws: WebSocket, pathTenant: string | null, greeted: () => void, early: readonly WsFrame[] = []): void {
    let lastMessage = Date.now();
    let admitted: string | undefined;
    const session = new WsSession({
      context,
      authorize: options.authorize,
      pathTenant,
      version: ws.protocol === 'hrana3' ? 3 : 2,
      admit: (tenant) => {
        const count = connections.get(tenant) ?? 0;
        if (count >= perDatabase) return false;
        connections.set(tenant, count + 1);
        admitted = tenant;
        greeted();
        return true;
      },
      memory: options.memory,
      pause: () => ws.pause(),
      resume: () => ws.resume(),
      send: (text, sent) => {
        ws.send(text, sent);
        // A client that stops reading while it keeps sending requests (each answered, if only with a refusal)
        // would pile answers up here: past a few messages' worth unsent besides this one, the connection is dropped.
        if (ws.bufferedAmount - text.length > unsentBound) ws.terminate();
      },
      close: (code, reason) => ws.close(code, reason),
    });
    sessions.set(session, ws);
    // Requests are handled as they arrive (a stream's run in order); the timer ends long transactions and idle connections.
    const onMessage = (data: RawData, isBinary: boolean) => {
      lastMessage = Date.now();
      if (isBinary) return ws.close(1003, 'Binary messages are not served (hrana3-protobuf)');
      // A failure no message should cause ends this connection, never the process.
      session.message(rawText(data)).catch(() => ws.terminate());
    };
    ws.on('message', onMessage);
    for (const frame of early) onMessage(frame.data, frame.isBinary);
    const timer = setInterval(
      () => {
        void session.expireTransactions().then((inTransaction) => {
          const idle = Date.now() - lastMessage;
          if (session.tenant !== undefined && !inTransaction && idle > idleTimeoutMs) ws.close(1000, 'Idle');
        });
      },
      Math.min(1000, context.streams.transactionTimeoutMs / 4),
    );
    ws.on('close', () => {
      clearInterval(timer);
      sessions.delete(session);
      if (admitted !== undefined) {
        const left = (connections.get(admitted) ?? 1) - 1;
        if (left > 0) connections.set(admitted, left);
        else connections.delete(admitted);
      }
      // A dropped connection rolls back what its streams left open.
      void session.closed();
    });
  }

  return {
    // The database moved to another replica (several replicas): its clients reconnect, through any replica, to it.
    closeTenant: (tenant) => {
      for (const [session, ws] of sessions) if (session.tenant === tenant) ws.close(1012, 'The database moved to another replica; reconnect');
    },
    close: async () => {
      for (const ws of wss.clients) ws.terminate();
      await Promise.all([...sessions.keys()].map((s) => s.closed()));
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

const REFUSALS: Record<number, { code: string; reason: string }> = {
  400: { code: 'HRANA_PROTO_ERROR', reason: 'Bad Request' },
  404: { code: 'NOT_FOUND', reason: 'Not Found' },
  429: { code: 'TOO_MANY_CONNECTIONS', reason: 'Too Many Requests' },
  503: { code: MOVING.code, reason: 'Service Unavailable' },
};

function refuse(socket: Duplex, status: 400 | 404 | 429 | 503, message: string): void {
  const { code, reason } = REFUSALS[status] ?? { code: 'HRANA_PROTO_ERROR', reason: 'Bad Request' };
  const body = JSON.stringify({ message, code });
  socket.end(`HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

function rawText(data: RawData): string {
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString('utf8');
}

/** The token of a hello message, if `text` is one with a token (anything else is the session's to answer). */
function helloToken(text: string): string | undefined {
  // Too deep to parse here: the session refuses it unparsed.
  if (!jsonDepthWithin(text)) return undefined;
  try {
    const msg = JSON.parse(text) as { type?: unknown; jwt?: unknown } | null;
    return msg?.type === 'hello' && typeof msg.jwt === 'string' ? msg.jwt : undefined;
  } catch {
    return undefined;
  }
}

/** `http://owner/path` → `ws://owner/path` (and https → wss). */
function webSocketUrl(url: URL): string {
  const ws = new URL(url);
  ws.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return ws.toString();
}
