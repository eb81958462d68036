import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Refusal } from './http-server.ts';
import type { PipelineCaller, PipelineContext } from './pipeline.ts';
import { WS_SUBPROTOCOLS } from './ws-protocol.ts';
import { WsSession } from './ws-session.ts';

/** Hrana over WebSocket's settings (docs/databases.md, "Hrana over WebSocket"). */
export interface WsOptions {
  authorize: (token: string | undefined, pathTenant: string | null) => Promise<PipelineCaller | Refusal>;
  /** A transaction open longer than this is rolled back (default 5 min). */
  transactionTimeoutMs?: number;
  /** A connection with no message for this long and no transaction open is closed (default 5 min). */
  idleTimeoutMs?: number;
  /** Connections one database may have at once (default 100). */
  maxConnectionsPerDatabase?: number;
  /** Largest message accepted (the HTTP body bound). */
  maxMessageBytes: number;
}

// `/`, `/v1` or `/v1/<database>`: what a `ws://` database URL names (the HTTP client appends `/v2/pipeline` to the same).
const PATH = /^\/(?:v1(?:\/([^/]+))?)?\/?$/;
/** How long a connection may stay without a hello. */
const HELLO_TIMEOUT_MS = 10_000;

/**
 * Serves Hrana 2 and 3 over WebSocket on the Hrana server's port: upgrades on the database's URL, negotiates a
 * JSON subprotocol (`hrana3`, else `hrana2`; a client offering neither is refused with 400), and runs a
 * `WsSession` per connection. Returns what closing needs.
 */
export function serveWebSockets(server: Server, context: PipelineContext, options: WsOptions): { close(): Promise<void> } {
  const transactionTimeoutMs = options.transactionTimeoutMs ?? 5 * 60_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 5 * 60_000;
  const perDatabase = options.maxConnectionsPerDatabase ?? 100;
  const connections = new Map<string, number>();
  const sessions = new Set<WsSession>();
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
    wss.handleUpgrade(request, socket, head, (ws) => accept(ws, match[1] ?? null));
  });

  function accept(ws: WebSocket, pathTenant: string | null): void {
    let lastMessage = Date.now();
    let admitted: string | undefined;
    const session = new WsSession({
      context,
      authorize: options.authorize,
      pathTenant,
      version: ws.protocol === 'hrana3' ? 3 : 2,
      transactionTimeoutMs,
      admit: (tenant) => {
        const count = connections.get(tenant) ?? 0;
        if (count >= perDatabase) return false;
        connections.set(tenant, count + 1);
        admitted = tenant;
        return true;
      },
      send: (msg) => ws.send(JSON.stringify(msg)),
      close: (code, reason) => ws.close(code, reason),
    });
    sessions.add(session);
    // Requests are handled as they arrive (a stream's run in order); the timer ends long transactions and idle connections.
    ws.on('message', (data, isBinary) => {
      lastMessage = Date.now();
      if (isBinary) return ws.close(1003, 'Binary messages are not served (hrana3-protobuf)');
      void session.message(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString('utf8'));
    });
    const timer = setInterval(
      () => {
        void session.expireTransactions().then((inTransaction) => {
          const idle = Date.now() - lastMessage;
          if (session.tenant === undefined && idle > HELLO_TIMEOUT_MS) ws.close(4001, 'No hello');
          else if (!inTransaction && idle > idleTimeoutMs) ws.close(1000, 'Idle');
        });
      },
      Math.min(1000, transactionTimeoutMs / 4),
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
    close: async () => {
      for (const ws of wss.clients) ws.terminate();
      await Promise.all([...sessions].map((s) => s.closed()));
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

function refuse(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ message, code: status === 404 ? 'NOT_FOUND' : 'HRANA_PROTO_ERROR' });
  socket.end(`HTTP/1.1 ${status} ${status === 404 ? 'Not Found' : 'Bad Request'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}
