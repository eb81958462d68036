// An HTTP proxy in front of moto's Route 53 that can refuse record changes on demand, so an end-to-end test
// can make the platform's DNS writes fail (the managed hostname's 202 `failed` path), or hold zone creations
// until told (a provider slower than the API's bound: the 202 paths), while everything else stays real.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Route53Proxy {
  /** The endpoint to give the platform (CW_ROUTE53_ENDPOINT). */
  readonly endpoint: string;
  /** While true, every ChangeResourceRecordSets call answers 503 (the SDK retries, then gives up). */
  failChanges: boolean;
  /** Record changes refused so far. */
  refused: number;
  /** While true, each CreateHostedZone call waits (unanswered) until `releaseHeld()`. */
  holdZoneCreates: boolean;
  /** Sends the held calls on, and stops holding new ones. */
  releaseHeld(): void;
  stop(): Promise<void>;
}

export async function startRoute53Proxy(upstream: string): Promise<Route53Proxy> {
  const target = new URL(upstream);
  const held: (() => void)[] = [];
  const proxy: Route53Proxy = {
    endpoint: '',
    failChanges: false,
    refused: 0,
    holdZoneCreates: false,
    releaseHeld: () => {
      proxy.holdZoneCreates = false;
      for (const send of held.splice(0)) send();
    },
    stop: async () => {},
  };
  const server: Server = createServer((req, res) => {
    if (proxy.holdZoneCreates && req.method === 'POST' && /\/hostedzone\/?$/.test(req.url ?? '')) {
      req.pause();
      held.push(() => forward(req, res));
      return;
    }
    if (proxy.failChanges && req.method === 'POST' && /\/rrset\/?$/.test(req.url ?? '')) {
      proxy.refused++;
      req.resume();
      res.writeHead(503, { 'content-type': 'text/xml' });
      res.end(
        '<?xml version="1.0"?><ErrorResponse><Error><Type>Receiver</Type><Code>ServiceUnavailable</Code><Message>injected by the test</Message></Error><RequestId>test</RequestId></ErrorResponse>',
      );
      return;
    }
    forward(req, res);
  });
  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const upstreamReq = request({ hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } }, (upstreamRes) => {
      res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
      upstreamRes.pipe(res);
    });
    upstreamReq.on('error', () => res.destroy());
    req.pipe(upstreamReq);
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(proxy, {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
