import { guardConnections, type ConnectionLimits } from '../../src/connection-guard.ts';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handlePipeline, onlyFinishes, type PipelineAnswer, type PipelineCaller, type PipelineContext } from './pipeline.ts';
import type { DatabaseEngine } from '../shards/engine-port.ts';
import { StreamRegistry } from './stream-registry.ts';
import { serveWebSockets, type WsOptions } from './ws-server.ts';
import { bearerToken, forwardRequest, MOVING, wasForwarded, type Router } from './forward.ts';
import { ProjectMemory } from './project-memory.ts';
import { jsonDepthWithin, MAX_JSON_DEPTH } from './json-depth.ts';

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
  /** Connections held at once, in all and per peer address (default: none counted). */
  connections?: ConnectionLimits;
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
  /** Why a database let in is no longer served here (cw-db's tenant directory). */
  unserved?: PipelineContext['unserved'];
  /** The storage budget's gate: why a database may not grow now (cw-db's storage-budget.ts). */
  growth?: PipelineContext['growth'];
  vacuumRoom?: PipelineContext['vacuumRoom'];
  afterRequest?: PipelineContext['afterRequest'];
  /** The streams' registry, shared with whoever else must reach the tenants' locks (cw-db's tenant directory); default: a new one. */
  streams?: StreamRegistry;
  /** Largest request body accepted; default 10 MiB (also the largest WebSocket message). */
  maxBodyBytes?: number;
  /** What each project's requests may hold in this process (bodies, unread answers); default 64 MiB a database. */
  memory?: ProjectMemory;
  /** An answer the client takes nothing of for this long is given up (the connection closed); default 30 s. */
  answerStallMs?: number;
  /** Serves Hrana over WebSocket on the same port too (`ws-server.ts`). */
  websocket?: Omit<WsOptions, 'maxMessageBytes' | 'route' | 'memory'>;
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
  const limits: Limits = { maxBodyBytes, memory: options.memory ?? new ProjectMemory({ limitBytes: DEFAULT_PROJECT_MEMORY_BYTES }), answerStallMs: options.answerStallMs ?? 30_000 };
  const context = pipelineContext(options, streams, limits.memory);
  const server = createServer((request, response) => {
    serve(request, response, options, context, limits).catch(() => {
      if (!response.headersSent) send(response, { status: 500, body: { message: 'Internal error', code: 'INTERNAL' } });
      else response.destroy();
    });
  });
  if (options.connections) guardConnections(server, options.connections);
  // Idle streams must be closed even when no request comes, or an abandoned transaction would hold its tenant's
  // lock (and its connection) forever.
  const sweeper = setInterval(() => streams.sweep(), Math.max(250, streams.idleTimeoutMs / 4));
  sweeper.unref();
  const sockets =
    options.websocket && serveWebSockets(server, context, { ...options.websocket, maxMessageBytes: maxBodyBytes, memory: limits.memory, ...(options.route ? { route: options.route } : {}) });
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

/** The default of `HranaServerOptions.memory`'s bound (cw-db's `CW_DB_PROJECT_MEMORY_MIB`). */
export const DEFAULT_PROJECT_MEMORY_BYTES = 64 * 1024 * 1024;

interface Limits {
  maxBodyBytes: number;
  memory: ProjectMemory;
  answerStallMs: number;
}

/** Bodies up to this size are always read: a project at its memory bound can still send what frees memory (a close). */
const SMALL_BODY_BYTES = 4 * 1024;

async function serve(request: IncomingMessage, response: ServerResponse, options: HranaServerOptions, context: PipelineContext, limits: Limits): Promise<void> {
  const { maxBodyBytes, memory } = limits;
  // Whether the client is gone, and what its answer is charged until then: known from the start, since the
  // connection may close at any await below (the answer is then neither charged nor kept).
  const exchange = { gone: false, answer: { tenant: '', bytes: 0 } };
  const gone = new AbortController();
  response.once('close', () => {
    exchange.gone = true;
    gone.abort();
    memory.release(exchange.answer.tenant, exchange.answer.bytes);
    exchange.answer.bytes = 0;
  });
  const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
  // sqld's health endpoint: probes and the API's /readyz.
  if (pathname === '/health' && request.method === 'GET') return void send(response, { status: 200, body: 'ok' });
  const match = PIPELINE.exec(pathname);
  if (match === null) return void send(response, error(404, 'NOT_FOUND', 'Not found'));
  if (request.method !== 'POST') return void send(response, error(405, 'METHOD_NOT_ALLOWED', 'Use POST'));
  // Tenant ids are plain ASCII, so the segment is taken as is (no percent-decoding to get wrong).
  const pathTenant = match[1] ?? null;
  if (pathTenant !== null && RESERVED.has(pathTenant)) return void send(response, error(404, 'NOT_FOUND', 'Not found'));
  if (options.route) {
    const token = bearerToken(request);
    const route = await options.route(pathTenant, token, wasForwarded(request));
    if (route.kind === 'forward') {
      const router = options.route;
      const stillOwner = async () => {
        const now = await router(pathTenant, token, false);
        return now.kind === 'forward' && now.url === route.url;
      };
      return forwardRequest(request, response, route.url, stillOwner);
    }
    if (route.kind === 'unavailable') {
      request.resume();
      return void send(response, { status: 503, body: MOVING });
    }
  }
  const caller = await options.authorize(request, pathTenant);
  if ('status' in caller) {
    request.resume();
    return void send(response, error(caller.status, caller.code, caller.message));
  }

  // The body is held (read, then parsed) until the pipeline has run; the answer until the client has taken it.
  const charge = (bytes: number, sofar: number) => {
    if (sofar > SMALL_BODY_BYTES) return memory.tryCharge(caller.tenant, bytes);
    memory.charge(caller.tenant, bytes);
    return true;
  };
  const read = exchange.gone ? ({ refused: 'gone', charged: 0 } as const) : await readBody(request, response, maxBodyBytes, charge);
  try {
    if ('refused' in read) {
      if (read.refused === 'gone') return;
      if (read.refused === 'too-large') return void send(response, error(413, 'REQUEST_TOO_LARGE', `Body over ${maxBodyBytes} bytes`));
      return void send(response, busy(memory), { 'retry-after': '1' });
    }
    const text = read.body.toString('utf8');
    // Nested past any Hrana request, the parse would hold every tenant's event loop for seconds: refused unparsed.
    if (!jsonDepthWithin(text)) return void send(response, error(400, 'HRANA_PROTO_ERROR', `The body nests arrays or objects more than ${MAX_JSON_DEPTH} deep`));
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return void send(response, error(400, 'HRANA_PROTO_ERROR', 'The body is not JSON'));
    }
    // A small body was read whatever the project holds: it runs only if the project is within its bound, or if it
    // only frees (ends its transaction, closes its stream).
    if (memory.over(caller.tenant) && !onlyFinishes(requestsOf(body))) return void send(response, busy(memory), { 'retry-after': '1' });
    const answer = await handlePipeline({ ...caller, body, gone: gone.signal }, context);
    const bytes = send(response, answer);
    if (exchange.gone) return;
    memory.charge(caller.tenant, bytes);
    exchange.answer = { tenant: caller.tenant, bytes };
    // A client that stops reading would keep the answer here for good: the socket's idle timer gives it up.
    response.setTimeout(limits.answerStallMs, () => response.destroy());
  } finally {
    memory.release(caller.tenant, read.charged);
  }
}

function busy(memory: ProjectMemory): { status: number; body: object } {
  return { status: 429, body: memory.refusal() };
}

function requestsOf(body: unknown): unknown[] {
  const requests = (body as { requests?: unknown } | null)?.requests;
  return Array.isArray(requests) ? requests : [{}];
}

/** A request body as read: the body, or why not; `charged` is what is charged for it until the caller releases it. */
type BodyRead = { body: Buffer; charged: number } | { refused: 'too-large' | 'busy' | 'gone'; charged: number };

/**
 * Reads the body, charging each chunk (`charge`), until it ends, passes `maxBytes`, or `charge` refuses a chunk
 * (the caller's project holds its memory bound). A refused body is answered at once; its rest is drained unread
 * so the answer can still be sent on the connection.
 */
function readBody(request: IncomingMessage, response: ServerResponse, maxBytes: number, charge: (bytes: number, sofar: number) => boolean): Promise<BodyRead> {
  return new Promise((resolve) => {
    if (Number(request.headers['content-length'] ?? 0) > maxBytes) {
      request.resume();
      return resolve({ refused: 'too-large', charged: 0 });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    request.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      const why = size > maxBytes ? 'too-large' : charge(chunk.length, size) ? undefined : 'busy';
      if (why === undefined) return void chunks.push(chunk);
      refused = true;
      resolve({ refused: why, charged: size - chunk.length });
    });
    request.on('end', () => resolve({ body: Buffer.concat(chunks), charged: size }));
    // The client went before the end (a promise settles once: after an end or a refusal this changes nothing).
    const gone = () => resolve({ refused: 'gone', charged: size });
    request.on('close', gone);
    request.on('error', gone);
    response.once('close', gone);
  });
}

function error(status: number, code: string, message: string): PipelineAnswer {
  return { status, body: { message, code } };
}

/** Sends `answer`; returns its size in bytes. */
function send(response: ServerResponse, answer: PipelineAnswer | { status: number; body: object }, headers: Record<string, string> = {}): number {
  const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  const bytes = Buffer.byteLength(text);
  response.writeHead(answer.status, {
    'content-type': typeof answer.body === 'string' ? 'text/plain; charset=utf-8' : 'application/json',
    'content-length': bytes,
    ...headers,
  });
  response.end(text);
  return bytes;
}

async function closeServer(server: Server, sweeper: NodeJS.Timeout, streams: StreamRegistry): Promise<void> {
  clearInterval(sweeper);
  server.closeAllConnections();
  await streams.closeAll();
  await new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
}

function pipelineContext(options: HranaServerOptions, streams: StreamRegistry, memory: ProjectMemory): PipelineContext {
  return {
    overBound: (tenant) => (memory.over(tenant) ? memory.refusal() : undefined),
    streams,
    engine: options.engine,
    meter: options.meter,
    quota: options.quota,
    growth: options.growth,
    vacuumRoom: options.vacuumRoom,
    afterRequest: options.afterRequest,
    unserved: options.unserved,
    afterCommit: options.afterCommit,
  };
}
