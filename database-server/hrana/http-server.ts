import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handlePipeline, type PipelineAnswer, type PipelineCaller, type PipelineContext } from './pipeline.ts';
import type { DatabaseEngine } from '../shards/engine-port.ts';
import { StreamRegistry } from './stream-registry.ts';
import { serveWebSockets, type WsOptions } from './ws-server.ts';
import { bearerToken, forwardRequest, MOVING, wasForwarded, type Router } from './forward.ts';

/** Why a request may not reach a database: answered as `{message, code}` with this HTTP status. */
export interface Refusal {
  status: 401 | 403 | 404 | 503;
  code: string;
  message: string;
}

/** Options of `startHranaServer`. */
export interface HranaServerOptions {
  /** 0 picks a free port. */
  port: number;
  host?: string;
  /** Where the tenants' SQL runs. */
  engine: DatabaseEngine;
  /**
   * Decides who the request is: `pathTenant` is the `:tenant` of `/v1/:tenant/v2/pipeline`, or null for
   * `/v1/v2/pipeline` (what the client sends for a URL without a trailing slash, so the token must name the
   * tenant). Answers the caller, or a refusal.
   */
  authorize: (request: IncomingMessage, pathTenant: string | null) => PipelineCaller | Refusal | Promise<PipelineCaller | Refusal>;
  meter?: PipelineContext['meter'];
  afterCommit?: PipelineContext['afterCommit'];
  /** The daily quotas' gate and what each request did against them (cw-db's tenant directory). */
  quota?: PipelineContext['quota'];
  /** The storage budget's gate: why a database may not grow now (cw-db's storage-budget.ts). */
  growth?: PipelineContext['growth'];
  vacuumRoom?: PipelineContext['vacuumRoom'];
  afterRequest?: PipelineContext['afterRequest'];
  /** The streams' registry, shared with whoever else must reach the tenants' locks (cw-db's tenant directory); default: a new one. */
  streams?: StreamRegistry;
  /** Largest request body accepted; default 10 MiB (also the largest WebSocket message). */
  maxBodyBytes?: number;
  /** Serves Hrana over WebSocket on the same port too (`ws-server.ts`). */
  websocket?: Omit<WsOptions, 'maxMessageBytes' | 'route'>;
  /** Several replicas: where a database named in the path is served (`forward.ts`); absent: every one here. */
  route?: Router;
}

/** A running server. */
export interface HranaServer {
  port: number;
  streams: StreamRegistry;
  /** Closes the WebSockets of a database that moved to another replica (they reconnect through any replica). */
  closeSockets(tenant: string): void;
  /** Stops listening and closes every stream (rolling back open transactions). */
  close(): Promise<void>;
}

// The path segments the client may put where a tenant goes (protocol versions), never valid tenant ids.
const RESERVED = new Set(['v2', 'v3', 'v3-protobuf']);
const PIPELINE = /^\/v1\/(?:([^/]+)\/)?v2\/pipeline$/;

/**
 * Serves Hrana v2 over HTTP: `POST /v1/:tenant/v2/pipeline` and `POST /v1/v2/pipeline`. Anything else is a JSON
 * 404; `/v3*` is not answered with a 2xx on purpose, since a client that sees one switches to protobuf. With
 * `websocket`, Hrana 2 and 3 over WebSocket too, on the same URLs.
 */
export async function startHranaServer(options: HranaServerOptions): Promise<HranaServer> {
  const streams = options.streams ?? new StreamRegistry();
  streams.endStreamsWith((stream) => options.engine.closeStream(stream.tenant, stream.id));
  const maxBodyBytes = options.maxBodyBytes ?? 10 * 1024 * 1024;
  const server = createServer((request, response) => {
    serve(request, response, options, streams, maxBodyBytes).catch(() => {
      if (!response.headersSent) send(response, { status: 500, body: { message: 'Internal error', code: 'INTERNAL' } });
      else response.destroy();
    });
  });
  // Idle streams must be closed even when no request comes, or an abandoned transaction would hold its tenant's
  // lock (and its connection) forever.
  const sweeper = setInterval(() => streams.sweep(), Math.max(250, streams.idleTimeoutMs / 4));
  sweeper.unref();
  const context = pipelineContext(options, streams);
  const sockets = options.websocket && serveWebSockets(server, context, { ...options.websocket, maxMessageBytes: maxBodyBytes, ...(options.route ? { route: options.route } : {}) });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    streams,
    closeSockets: (tenant) => sockets?.closeTenant(tenant),
    close: async () => {
      await sockets?.close();
      await closeServer(server, sweeper, streams);
    },
  };
}

async function serve(request: IncomingMessage, response: ServerResponse, options: HranaServerOptions, streams: StreamRegistry, maxBodyBytes: number): Promise<void> {
  const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
  // sqld's health endpoint: probes and the API's /readyz.
  if (pathname === '/health' && request.method === 'GET') return send(response, { status: 200, body: 'ok' });
  const match = PIPELINE.exec(pathname);
  if (match === null) return send(response, error(404, 'NOT_FOUND', 'Not found'));
  if (request.method !== 'POST') return send(response, error(405, 'METHOD_NOT_ALLOWED', 'Use POST'));
  // Tenant ids are plain ASCII, so the segment is taken as is (no percent-decoding to get wrong).
  const pathTenant = match[1] ?? null;
  if (pathTenant !== null && RESERVED.has(pathTenant)) return send(response, error(404, 'NOT_FOUND', 'Not found'));
  if (options.route) {
    const route = await options.route(pathTenant, bearerToken(request), wasForwarded(request));
    if (route.kind === 'forward') return forwardRequest(request, response, route.url);
    if (route.kind === 'unavailable') {
      request.resume();
      return send(response, { status: 503, body: MOVING });
    }
  }
  const caller = await options.authorize(request, pathTenant);
  if ('status' in caller) {
    request.resume();
    return send(response, error(caller.status, caller.code, caller.message));
  }

  const raw = await readBody(request, maxBodyBytes);
  if (raw === null) return send(response, error(413, 'REQUEST_TOO_LARGE', `Body over ${maxBodyBytes} bytes`));
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return send(response, error(400, 'HRANA_PROTO_ERROR', 'The body is not JSON'));
  }
  const context = pipelineContext(options, streams);
  send(response, await handlePipeline({ ...caller, body }, context));
}

/** The body, or null past the bound (the rest is drained unread so the answer can still be sent). */
async function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer | null> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > maxBytes) {
    request.resume();
    return null;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      request.resume();
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function error(status: number, code: string, message: string): PipelineAnswer {
  return { status, body: { message, code } };
}

function send(response: ServerResponse, answer: PipelineAnswer): void {
  const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  response.writeHead(answer.status, {
    'content-type': typeof answer.body === 'string' ? 'text/plain; charset=utf-8' : 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

async function closeServer(server: Server, sweeper: NodeJS.Timeout, streams: StreamRegistry): Promise<void> {
  clearInterval(sweeper);
  server.closeAllConnections();
  await streams.closeAll();
  await new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
}

function pipelineContext(options: HranaServerOptions, streams: StreamRegistry): PipelineContext {
  return {
    streams,
    engine: options.engine,
    meter: options.meter,
    quota: options.quota,
    growth: options.growth,
    vacuumRoom: options.vacuumRoom,
    afterRequest: options.afterRequest,
    afterCommit: options.afterCommit,
  };
}
