// cw-api's Prometheus endpoint, on a port of its own (CW_API_METRICS_PORT) so it never faces the API's clients
// through the ingress. Plain node:http: one fixed route needs no framework.
import { createServer } from 'node:http';
import type { Registry } from 'prom-client';
import { listen, type ListeningServer } from '../src/listen.ts';

export function startMetricsServer(registry: Registry, port: number, host: string): Promise<ListeningServer> {
  const server = createServer((req, res) => {
    if ((req.url ?? '/').split('?')[0] !== '/metrics') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { allow: 'GET, HEAD' }).end();
    registry.metrics().then(
      (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
      () => res.writeHead(500).end(),
    );
  });
  return listen(server, port, host);
}
