import { createServer, type Server } from 'node:https';
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
  /** Attaches the request and upgrade listeners (the engine's entry point). */
  readonly serve: (server: Server) => void;
  readonly metrics: TlsMetrics;
}

/**
 * The HTTPS entry point beside the HTTP one: TLS 1.2+ with Node's default suites, the certificate chosen by SNI
 * (the server itself has none, so a handshake without a known name fails), HTTP/1.1 by ALPN, and session
 * resumption by tickets (TLS 1.3 PSK, TLS 1.2 tickets) under keys of this process: a client resumes on the
 * replica it last reached, and does a full handshake elsewhere.
 */
export async function startHttpsListener(options: HttpsListenerOptions): Promise<{ server: Server; address: AddressInfo; close(): Promise<void> }> {
  const { metrics } = options;
  // Timeouts as the HTTP entry point's: longer than the idle timeout of a load balancer in front.
  const server = createServer({ SNICallback: options.SNICallback, ALPNProtocols: ['http/1.1'], keepAliveTimeout: 65_000, headersTimeout: 66_000, ...TLS_VERSIONS });
  options.serve(server);
  server.on('secureConnection', (socket: TLSSocket) => metrics.handshake(socket.isSessionReused() ? 'resumed' : 'full'));
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
      server.closeIdleConnections();
      await closed;
    },
  };
}
