import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface ProbeServerOptions {
  port: number;
  host?: string;
  registry: Registry;
  /** Liveness: false means "restart me". */
  healthy: () => boolean;
  /** Readiness. */
  ready: () => boolean;
}

export interface ProbeServer {
  /** The bound port (useful with `port: 0`). */
  readonly port: number;
  close(): Promise<void>;
}

/** Serves `/metrics`, `/healthz` and `/readyz`. Plain node:http: three fixed routes need no framework. */
export async function startProbeServer(options: ProbeServerOptions): Promise<ProbeServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const probe = (ok: boolean) => {
      res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' }).end(ok ? 'ok' : 'not ok');
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
    } else if (path === '/metrics') {
      options.registry.metrics().then(
        (body) => res.writeHead(200, { 'content-type': options.registry.contentType }).end(body),
        () => res.writeHead(500).end(),
      );
    } else if (path === '/healthz') {
      probe(options.healthy());
    } else if (path === '/readyz') {
      probe(options.ready());
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Prometheus keeps scrape connections alive; do not let them hold up shutdown.
        server.closeAllConnections();
      }),
  };
}
