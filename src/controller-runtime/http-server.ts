import { createServer, type Server } from 'node:http';
import { listen, type ListeningServer } from '../listen.ts';
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

/** The bound port (useful with `port: 0`) and how to close it. */
export type ProbeServer = ListeningServer;

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
  return listen(server, options.port, options.host);
}
