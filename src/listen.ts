import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A listening probe, status or metrics server (cw-operator, cw-runtime, cw-api), and how to close it. */
export interface ListeningServer {
  port: number;
  close(): Promise<void>;
}

/**
 * Listens on `port` (0 picks a free one) and returns a close that does not wait for idle keep-alive
 * connections: Prometheus and load balancers keep theirs open, and they must not hold up shutdown.
 */
export async function listen(server: Server, port: number, host = '0.0.0.0'): Promise<ListeningServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
