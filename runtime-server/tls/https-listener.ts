import { createSecureServer, type Http2SecureServer, type Http2Session, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { SecureContext, TLSSocket } from 'node:tls';
import type { TlsMetrics } from './tls-metrics.ts';
import { TLS_VERSIONS } from './tls-defaults.ts';

export interface HttpsListenerOptions {
  readonly port: number;
  readonly host: string;
  /** Picks the certificate by server name (`ServedCertificates.SNICallback`). */
  readonly SNICallback: (serverName: string, done: (err: Error | null, context?: SecureContext) => void) => void;
  /** Whether a server name has a certificate (to tell an unknown name from another failure in the metrics). */
  readonly known: (serverName: string) => boolean;
  /** Attaches the `request` and `upgrade` listeners (the engine's entry point). */
  readonly serve: (server: Http2SecureServer) => void;
  readonly metrics: TlsMetrics;
  /** How long an idle connection is kept (default {@link IDLE_MS}). */
  readonly idleMs?: number;
}

/** As the HTTP entry point's keep-alive: longer than the idle timeout of a load balancer in front (often 60 s). */
export const IDLE_MS = 65_000;

export interface HttpsListener {
  readonly server: Http2SecureServer;
  readonly address: AddressInfo;
  /** Stops accepting connections and asks HTTP/2 clients to go (GOAWAY); resolves once every connection has ended. */
  close(): Promise<void>;
  /** Ends every connection still open. */
  closeAll(): void;
}

/**
 * The HTTPS entry point beside the HTTP one: TLS 1.2+ with Node's default suites, the certificate chosen by SNI
 * (the server itself has none, so a handshake without a known name fails), HTTP/2 and HTTP/1.1 by ALPN (Node's
 * HTTP/2 compatibility API hands both to the same request listener; upgrades are HTTP/1.1's), and session
 * resumption by tickets (TLS 1.3 PSK, TLS 1.2 tickets) under keys of this process: a client resumes on the
 * replica it last reached, and does a full handshake elsewhere.
 */
/** The streams one HTTP/2 connection may have open at once. */
export const MAX_CONCURRENT_STREAMS = 128;

export async function startHttpsListener(options: HttpsListenerOptions): Promise<HttpsListener> {
  const { metrics } = options;
  // At most 128 streams at once on a connection (Node's default is 2^32 - 1), as nginx allows by default: each is a
  // request the entry point holds.
  const server = createSecureServer({
    allowHTTP1: true,
    SNICallback: options.SNICallback,
    ALPNProtocols: ['h2', 'http/1.1'],
    settings: { maxConcurrentStreams: MAX_CONCURRENT_STREAMS },
    ...TLS_VERSIONS,
  });
  const idleMs = options.idleMs ?? IDLE_MS;
  // HTTP/1.1 connections: as the HTTP entry point's.
  Object.assign(server, { keepAliveTimeout: idleMs, headersTimeout: idleMs + 1000 });
  options.serve(server);
  const sockets = new Set<TLSSocket>();
  const sessions = new Set<Http2Session>();
  server.on('secureConnection', (socket: TLSSocket) => {
    metrics.handshake(socket.isSessionReused() ? 'resumed' : 'full');
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('session', (session: Http2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    // An idle HTTP/2 connection goes as an idle HTTP/1.1 one does (GOAWAY); one with an open stream that is
    // quiet (server-sent events, a long poll) stays: its stream ending is activity, which arms the timeout again.
    let open = 0;
    session.on('stream', (stream: ServerHttp2Stream) => {
      open++;
      stream.once('close', () => open--);
    });
    session.setTimeout(idleMs, () => {
      if (open === 0) session.close();
    });
  });
  server.on('tlsClientError', (_err: Error, socket: TLSSocket) => {
    const name = typeof socket.servername === 'string' ? socket.servername : '';
    metrics.handshake(!name ? 'no_server_name' : options.known(name) ? 'failed' : 'unknown_name');
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    server,
    address: server.address() as AddressInfo,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.close();
      await closed;
    },
    closeAll: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}
