// A fault-injecting HTTP proxy in front of the test apiserver, so integration tests can break watches the
// way networks and apiservers do (reset connections, outages, 410 Gone) while everything else stays real.
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { connectionFor, type KubeConnection } from '../kube-config.ts';

export interface SeenRequest {
  method: string;
  path: string;
  watch: boolean;
  /** A watch asking for the objects as initial events (`sendInitialEvents`): a streamed list. */
  initialEvents: boolean;
  /** The `continue` token of a list request for a later page. */
  continue?: string;
}

export interface FaultProxy {
  /** A connection whose requests go through the proxy. */
  readonly connection: KubeConnection;
  readonly requests: SeenRequest[];
  /** `reset` destroys new connections, `unavailable` answers 503; `pass` forwards. */
  mode: 'pass' | 'reset' | 'unavailable';
  /** Cuts every open connection (watches included). */
  dropConnections(): void;
  /** Answers the next watch request (not a streamed list) with HTTP 410 Gone. */
  goneOnNextWatch(): void;
  /** Answers the next watch request (not a streamed list) with 200 and a single `ERROR` event carrying a 410 Status, as the apiserver does. */
  expireNextWatch(): void;
  /** Answers streamed lists 422 for their parameters, as an apiserver without the WatchList feature does. */
  refuseInitialEvents: boolean;
  /**
   * Fails the next list request for a later page (one carrying `continue`): `gone` answers 410 Expired, as the
   * apiserver does once etcd compacted past the list's revision; `reset` cuts the connection. `times` (default 1)
   * such requests in a row fail so.
   */
  failNextContinue(how: 'gone' | 'reset', times?: number): void;
  close(): Promise<void>;
}

const expiredContinueStatus = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'The provided continue parameter is too old to display a consistent list result.',
  reason: 'Expired',
  code: 410,
};

const watchListForbidden = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
  reason: 'Invalid',
  code: 422,
};

const expiredStatus = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'too old resource version: 1 (2)',
  reason: 'Expired',
  code: 410,
};

export async function startFaultProxy(upstream: KubeConnection): Promise<FaultProxy> {
  const target = new URL(upstream.server);
  const tls: RequestOptions = {};
  await upstream.config.applyToHTTPSOptions(tls);
  const sockets = new Set<Socket>();
  let nextWatch: 'gone' | 'expired' | undefined;
  let nextContinue: 'gone' | 'reset' | undefined;
  let continueFailures = 0;

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const upstreamReq = send(
      {
        ...tls,
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        res.flushHeaders(); // a quiet watch sends no body for a while; the client waits for headers
        upstreamRes.pipe(res);
        upstreamRes.on('error', () => res.destroy());
      },
    );
    upstreamReq.on('error', () => res.destroy());
    res.on('close', () => upstreamReq.destroy());
    req.pipe(upstreamReq);
  };

  const proxy: Omit<FaultProxy, 'connection' | 'close'> = {
    requests: [],
    mode: 'pass',
    refuseInitialEvents: false,
    dropConnections: () => {
      for (const socket of sockets) socket.destroy();
    },
    goneOnNextWatch: () => void (nextWatch = 'gone'),
    expireNextWatch: () => void (nextWatch = 'expired'),
    failNextContinue: (how, times = 1) => {
      nextContinue = how;
      continueFailures = times;
    },
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const watch = url.searchParams.get('watch') === 'true';
    const token = url.searchParams.get('continue') ?? undefined;
    const initialEvents = watch && url.searchParams.get('sendInitialEvents') === 'true';
    proxy.requests.push({ method: req.method ?? 'GET', path: url.pathname, watch, initialEvents, ...(token ? { continue: token } : {}) });
    if (proxy.mode === 'reset') return req.socket.destroy();
    if (proxy.mode === 'unavailable') return void res.writeHead(503).end('{"kind":"Status","code":503}');
    if (initialEvents && proxy.refuseInitialEvents) return void res.writeHead(422, { 'content-type': 'application/json' }).end(JSON.stringify(watchListForbidden));
    if (watch && !initialEvents && nextWatch === 'gone') {
      nextWatch = undefined;
      return void res.writeHead(410, { 'content-type': 'application/json' }).end(JSON.stringify(expiredStatus));
    }
    if (watch && !initialEvents && nextWatch === 'expired') {
      nextWatch = undefined;
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(`${JSON.stringify({ type: 'ERROR', object: expiredStatus })}\n`);
    }
    if (token && nextContinue) {
      const how = nextContinue;
      if (--continueFailures <= 0) nextContinue = undefined;
      if (how === 'reset') return req.socket.destroy();
      return void res.writeHead(410, { 'content-type': 'application/json' }).end(JSON.stringify(expiredContinueStatus));
    }
    forward(req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const user = upstream.config.getCurrentUser();
  if (!user) throw new Error('kubeconfig has no current user');
  const config = new KubeConfig();
  // client-node refuses plain http unless TLS verification is off; the hop is loopback-only.
  config.loadFromClusterAndUser({ name: 'fault-proxy', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }, user);

  return Object.assign(proxy, {
    connection: connectionFor(config),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        proxy.dropConnections();
      }),
  });
}
