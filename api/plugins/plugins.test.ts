import Fastify, { type FastifyBaseLogger } from 'fastify';
import './auth.ts';
import { EventEmitter, once } from 'node:events';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { PassThrough, Writable } from 'node:stream';
import pino from 'pino';
import { Type } from 'typebox';
import { describe, expect, it, vi } from 'vitest';
import { buildApp } from '../app.ts';
import { accessLogController } from './access-log.ts';
import { apiHttpServer } from './http-server.ts';
import { KubeApiError } from '../../src/kube/index.ts';
import { problemDetails, sendProblem } from './problem-details.ts';
import { notFound } from '../../src/fastify-plugins/not-found.ts';
import { requestEntry } from './request-entry.ts';
import { callerRateLimiter, rateLimit, type RateLimitOptions } from './rate-limit.ts';
import { requestIdOptions } from '../../src/fastify-plugins/request-id.ts';
import { lazyRequestLoggers } from './request-logger.ts';

describe('routing errors', () => {
  it('answers a known path with another method 405 and Allow', async () => {
    const app = await buildApp({});
    const res = await app.inject({ method: 'DELETE', url: '/healthz' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.json()).toMatchObject({ title: 'Method Not Allowed', status: 405 });
    await app.close();
  });

  it('answers a request no route matches 404 or 405 whatever its body, without parsing it', async () => {
    const app = await buildApp({});
    const json = { 'content-type': 'application/json' };
    expect((await app.inject({ method: 'POST', url: '/nope', headers: json, payload: '{"broken":' })).statusCode).toBe(404);
    const wrongMethod = await app.inject({ method: 'POST', url: '/healthz', headers: json, payload: '{"broken":' });
    expect(wrongMethod.statusCode).toBe(405);
    expect(wrongMethod.headers.allow).toBe('GET, HEAD');
    await app.close();
  });

  it('answers a method no route serves 405 even when Fastify would want a body for it (QUERY without a Content-Type)', async () => {
    const app = await buildApp({});
    const res = await app.inject({ method: 'QUERY' as 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect((await app.inject({ method: 'QUERY' as 'GET', url: '/nope' })).statusCode).toBe(404);
    await app.close();
  });

  it.each(['/healthz/', '/openapi.json/'])('answers %s, a path no route serves (a trailing slash), 404 whatever the method', async (url) => {
    const app = await buildApp({});
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await app.inject({ method, url });
      expect(res.statusCode).toBe(404);
      expect(res.json().detail).toBe(`No route ${method} ${url}.`);
    }
    await app.close();
  });

  it.each(['/v1/domain-availability?domain=example.com', '/v1/domain-prices?tld=com', '/v1/projects/p1/domain-orders', '/v1/projects/p1/domain-orders/o1'])(
    'does not serve the planned route %s',
    async (url) => {
      const app = await buildApp({});
      for (const method of ['GET', 'POST'] as const) {
        const res = await app.inject({ method, url });
        expect(res.statusCode).toBe(404);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      }
      await app.close();
    },
  );

  it('echoes a plain x-request-id and replaces one that could forge log lines', async () => {
    const app = await buildApp({});
    const kept = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
    expect(kept.headers['x-request-id']).toBe('abc-123');
    const replaced = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'a\nfake log line' } });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    await app.close();
  });

  it('gives answers the router makes before any route (a bad URL) a request id and an access line', async () => {
    let logged = '';
    const stream = new Writable({ write: (chunk, _enc, done) => ((logged += String(chunk)), done()) });
    const app = await buildApp({}, { logger: { level: 'info', stream } });
    const res = await app.inject({ method: 'GET', url: '/v1/projects/%E0%A4%A', headers: { 'x-request-id': 'bad-url-1' } });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['x-request-id']).toBe('bad-url-1');
    await app.close();
    expect(logged).toContain('"request_id":"bad-url-1","method":"GET","path":"/v1/projects/%E0%A4%A","status":400');
  });

  it('never writes a bearer token into the access log', async () => {
    let logged = '';
    const stream = new Writable({ write: (chunk, _enc, done) => ((logged += String(chunk)), done()) });
    const app = await buildApp({}, { logger: { level: 'trace', stream } });
    const token = 'cwt_SECRETSECRETSECRETSECRETSECRETSECRETSECRETSEC';
    await app.inject({ method: 'GET', url: '/healthz', headers: { authorization: `Bearer ${token}` } });
    await app.inject({ method: 'GET', url: '/nope', headers: { authorization: `Bearer ${token}` } });
    // Pasted where it does not belong: as a request id, and into a path (plain and percent-encoded).
    const asId = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': token } });
    expect(asId.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    await app.inject({ method: 'DELETE', url: `/v1/tokens/${token}` });
    await app.inject({ method: 'GET', url: `/v1/projects/x/${token.replace('S', '%53')}/y?z=1` });
    expect(logged).toContain('"path":"/v1/tokens/cwt_[redacted]"');
    expect(logged).toContain('"path":"/v1/projects/x/cwt_[redacted]/y"');
    // The other tokens of the platform too: a database's and a git token.
    await app.inject({ method: 'GET', url: '/v1/x/cwdb_c2VjcmV0LXNlY3JldA-_x.y/cwg_SECRETSECRET' });
    expect(logged).toContain('"path":"/v1/x/cwdb_[redacted]/cwg_[redacted]"');
    expect(logged).toContain('"path":"/healthz","status":200');
    // Requests no route matches get their line too.
    expect(logged).toContain('"path":"/nope","status":404');
    expect(logged).not.toContain('SECRET');
    await app.close();
  });
});

describe('validation details', () => {
  it('names the values a field may take when it must be one of a few', async () => {
    const app = Fastify({ ajv: { customOptions: { allErrors: false, removeAdditional: false, coerceTypes: false } } });
    problemDetails(app);
    app.put(
      '/members/:userId',
      {
        schema: {
          body: Type.Object({ role: Type.Union([Type.Literal('owner'), Type.Literal('member')]), tier: Type.Optional(Type.Enum({ a: 'free', b: 'pro' })) }, { additionalProperties: false }),
        },
      },
      async () => ({ ok: true }),
    );
    await app.ready();
    const put = (payload: object) => app.inject({ method: 'PUT', url: '/members/u', payload });
    expect((await put({ role: 'admin' })).json().detail).toBe('body.role must be one of "owner", "member"');
    expect((await put({ role: 'owner', tier: 'gold' })).json().detail).toBe('body.tier must be one of "free", "pro"');
    expect((await put({ role: 'owner', extra: 1 })).json().detail).toBe('body has an unknown property "extra"');
    expect((await put({})).json().detail).toBe("body must have required property 'role'");
    await app.close();
  });
});

describe('request logging', () => {
  it('writes one access line per request with its id, making a request logger only for requests that log', async () => {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk)) as Record<string, unknown>), done()) });
    const root = pino({ level: 'info' }, stream);
    const app = Fastify({ loggerInstance: root as FastifyBaseLogger, ...requestIdOptions, logController: accessLogController(), ...lazyRequestLoggers });
    app.get('/quiet', async () => ({ ok: true }));
    app.get('/chatty', async (request) => {
      request.log.warn({ step: 1 }, 'something worth a line');
      return { ok: true };
    });
    await app.ready();
    const child = vi.spyOn(root, 'child');
    await app.inject({ method: 'GET', url: '/quiet?secret=x', headers: { 'x-request-id': 'quiet-1' } });
    expect(child).not.toHaveBeenCalled();
    await app.inject({ method: 'GET', url: '/chatty', headers: { 'x-request-id': 'chatty-1' } });
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines.map(({ request_id, msg, path, status }) => ({ request_id, msg, path, status }))).toEqual([
      { request_id: 'quiet-1', msg: 'request', path: '/quiet', status: 200 },
      { request_id: 'chatty-1', msg: 'something worth a line', path: undefined, status: undefined },
      { request_id: 'chatty-1', msg: 'request', path: '/chatty', status: 200 },
    ]);
    expect(lines[1]).toMatchObject({ level: 40, step: 1 });
    await app.close();
  });
});

describe('access lines of requests whose client went away', () => {
  /** A listening app with the access log, a route that answers when told to, and an upload route. */
  async function listeningApp() {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk)) as Record<string, unknown>), done()) });
    // On the server cw-api listens with, where a bodyless request's stream never reports a hang-up.
    const app = Fastify({
      loggerInstance: pino({ level: 'info' }, stream) as FastifyBaseLogger,
      serverFactory: apiHttpServer,
      ...requestIdOptions,
      logController: accessLogController(),
      ...lazyRequestLoggers,
    });
    let answer: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    let entered: () => void = () => undefined;
    const slowEntered = new Promise<void>((resolve) => (entered = resolve));
    // Emits each request's id as it arrives, so a test hangs up once the server is handling it.
    const arrivals = new EventEmitter();
    app.addHook('onRequest', async (request) => void arrivals.emit(request.id));
    app.get('/slow', async () => {
      entered();
      await answered;
      return { ok: true };
    });
    app.post('/upload', async (request) => ({ bytes: JSON.stringify(request.body).length }));
    // Reads its body as a stream in the handler, as the deploy route does.
    problemDetails(app);
    app.register(async (scope) => {
      scope.addContentTypeParser('application/octet-stream', (_request, payload, done) => done(null, payload));
      scope.post('/artifact', async (request) => {
        let bytes = 0;
        for await (const chunk of request.body as AsyncIterable<Buffer>) bytes += chunk.length;
        return { bytes };
      });
      // Fails on its own before reading the body, once the caller has hung up.
      scope.post('/broken', async (request) => {
        if (!request.raw.socket.destroyed) await once(request.raw.socket, 'close');
        throw new Error('object store unreachable');
      });
    });
    // Sends its headers and a first chunk, then the rest only when told to.
    app.get('/stream', async (_request, reply) => {
      const body = new PassThrough();
      body.write('first chunk\n');
      void answered.then(() => body.end('last chunk\n'));
      return reply.type('text/plain').send(body);
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    return { app, lines, port, answer, slowEntered, arrivals };
  }

  /** Opens a connection, writes `request` as it is, and resolves with the connection. */
  async function send(port: number, request: string): Promise<Socket> {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write(request);
    return socket;
  }

  /** Sends the start of a request whose body is still on its way, and gives up once the server has it. */
  async function cutOff(app: { port: number; arrivals: EventEmitter }, requestId: string, start: string): Promise<void> {
    const arrived = once(app.arrivals, requestId);
    const socket = await send(app.port, start);
    await arrived;
    socket.destroy();
  }

  /**
   * One more request, on a connection of its own, answered and closed: by then the server has done whatever
   * the events before it set off (short of a timer), such as writing a second line for an earlier request.
   */
  async function roundTrip(port: number): Promise<void> {
    const socket = await send(port, 'GET /nope HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n');
    socket.resume();
    await once(socket, 'close');
  }

  /** Waits until `lines` holds an access line for `requestId`, then for a {@link roundTrip}, for any second one. */
  async function linesFor(lines: Record<string, unknown>[], port: number, requestId: string) {
    await vi.waitFor(() => expect(lines.some((line) => line.request_id === requestId && line.msg === 'request')).toBe(true));
    await roundTrip(port);
    return lines.filter((line) => line.request_id === requestId && line.msg === 'request');
  }

  it('writes 499 once for a caller that hangs up while its request is being handled', async () => {
    const { app, lines, port, answer, slowEntered } = await listeningApp();
    const socket = await send(port, 'GET /slow?x=1 HTTP/1.1\r\nHost: t\r\nX-Request-Id: gone-1\r\n\r\n');
    await slowEntered;
    socket.destroy();
    const [line, ...more] = await linesFor(lines, port, 'gone-1');
    expect(line).toMatchObject({ method: 'GET', path: '/slow', status: 499 });
    expect(line?.ms).toBeGreaterThanOrEqual(0);
    // The handler finishing later into the closed connection writes no second line.
    answer();
    await roundTrip(port);
    expect(more).toEqual([]);
    expect(lines.filter((l) => l.request_id === 'gone-1' && l.msg === 'request')).toHaveLength(1);
    await app.close();
  });

  it('writes 499 for an upload cut off before its body arrived', async () => {
    const listening = await listeningApp();
    const { app, lines, port } = listening;
    await cutOff(listening, 'cut-1', 'POST /upload HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nX-Request-Id: cut-1\r\n\r\n{"a":');
    expect(await linesFor(lines, port, 'cut-1')).toEqual([expect.objectContaining({ method: 'POST', path: '/upload', status: 499 })]);
    await app.close();
  });

  it('logs no error when the caller of a streamed upload hangs up mid-body: nothing failed here', async () => {
    const listening = await listeningApp();
    const { app, lines, port } = listening;
    await cutOff(listening, 'cut-2', 'POST /artifact HTTP/1.1\r\nHost: t\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000\r\nX-Request-Id: cut-2\r\n\r\nfirst bytes');
    expect(await linesFor(lines, port, 'cut-2')).toEqual([expect.objectContaining({ method: 'POST', path: '/artifact', status: 499 })]);
    // The handler's read fails on the hang-up and the failure is logged: wait for that line, then a turn more.
    const ofRequest = () => lines.filter((line) => line.request_id === 'cut-2' && line.msg !== 'request');
    await vi.waitFor(() => expect(ofRequest()).not.toEqual([]));
    await roundTrip(port);
    expect(ofRequest().filter((line) => Number(line.level) >= 50)).toEqual([]);
    expect(ofRequest()).toEqual([expect.objectContaining({ level: 30, msg: 'client closed the connection before its request arrived whole' })]);
    await app.close();
  });

  it('still logs an error of ours as one when its caller has hung up as well', async () => {
    const listening = await listeningApp();
    const { app, lines } = listening;
    await cutOff(listening, 'cut-3', 'POST /broken HTTP/1.1\r\nHost: t\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000\r\nX-Request-Id: cut-3\r\n\r\nfirst bytes');
    await vi.waitFor(() => expect(lines.some((line) => line.request_id === 'cut-3' && line.msg === 'unhandled error')).toBe(true));
    expect(lines.find((line) => line.request_id === 'cut-3' && line.msg === 'unhandled error')).toMatchObject({ level: 50 });
    await app.close();
  });

  it('keeps the status of an answer under way when the caller hangs up during it', async () => {
    const { app, lines, port, answer } = await listeningApp();
    const socket = await send(port, 'GET /stream HTTP/1.1\r\nHost: t\r\nX-Request-Id: mid-1\r\n\r\n');
    await once(socket, 'data');
    socket.destroy();
    const written = await linesFor(lines, port, 'mid-1');
    answer(); // the rest of the body goes into the closed connection
    await roundTrip(port);
    expect(written).toEqual([expect.objectContaining({ method: 'GET', path: '/stream', status: 200 })]);
    expect(lines.filter((l) => l.request_id === 'mid-1' && l.msg === 'request')).toHaveLength(1);
    await app.close();
  });

  it('writes nothing more for a kept-alive connection that closes between requests', async () => {
    const { app, lines, port, answer } = await listeningApp();
    answer();
    const socket = await send(port, 'GET /slow HTTP/1.1\r\nHost: t\r\nX-Request-Id: kept-1\r\n\r\nGET /slow HTTP/1.1\r\nHost: t\r\nX-Request-Id: kept-2\r\n\r\n');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    await vi.waitFor(() => expect(received.match(/HTTP\/1\.1 200/g)).toHaveLength(2));
    socket.destroy();
    expect(await linesFor(lines, port, 'kept-1')).toEqual([expect.objectContaining({ status: 200 })]);
    expect(await linesFor(lines, port, 'kept-2')).toEqual([expect.objectContaining({ status: 200 })]);
    await app.close();
  });
});

/** An app with the rate limiter behind a stand-in for the auth plugin: the bearer value is the token id. */
function limitedApp(options: RateLimitOptions, now: () => number) {
  const app = Fastify();
  problemDetails(app);
  // Stands in for the auth plugin, which runs first and sets the principal.
  app.decorateRequest('principal', undefined);
  app.addHook('onRequest', async (request) => {
    // `user.n`: token n of that user; a bare name is a user with one token.
    const tokenId = request.headers.authorization?.slice('Bearer '.length) ?? '';
    request.principal = { userId: tokenId.split('.')[0] ?? '', tokenId, scopes: [], admin: false };
  });
  const limiter = callerRateLimiter(options, now);
  // As cw-api registers it: its global hook limits unmatched requests (plugins/request-entry.ts).
  requestEntry(app, limiter, notFound(app, sendProblem, { earlyAnswerHook: false }));
  rateLimit(app, limiter);
  app.get('/x', async () => ({ ok: true }));
  app.get('/healthz', async () => ({ ok: true }));
  const call = (token: string) => app.inject({ method: 'GET', url: '/x', headers: { authorization: `Bearer ${token}` } });
  return { app, call };
}

describe('rate limit', () => {
  it('answers 429 with Retry-After once a caller spends its burst, and refills over time', async () => {
    let now = 0;
    const { app, call } = limitedApp({ perSecond: 2, burst: 3 }, () => now);
    for (let i = 0; i < 3; i++) expect((await call('a')).statusCode).toBe(200);
    const limited = await call('a');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('1');
    expect([limited.headers['x-ratelimit-limit'], limited.headers['x-ratelimit-remaining']]).toEqual(['2', '0']);
    expect(limited.json().detail).toContain('2 requests per second');
    expect((await call('b')).statusCode).toBe(200); // callers do not share a bucket
    now += 500; // half a second refills one request
    expect((await call('a')).statusCode).toBe(200);
    expect((await call('a')).statusCode).toBe(429);
    await app.close();
  });

  it('gives a user one bucket whatever token they call with: more tokens buy no more requests', async () => {
    const { app, call } = limitedApp({ perSecond: 1, burst: 2 }, () => 0);
    expect([(await call('ann.1')).statusCode, (await call('ann.2')).statusCode, (await call('ann.3')).statusCode]).toEqual([200, 200, 429]);
    expect((await call('bob.1')).statusCode).toBe(200);
    await app.close();
  });

  it('limits requests no route matches by address, and never limits probes', async () => {
    const { app } = limitedApp({ perSecond: 1, burst: 2 }, () => 0);
    const unmatched = async (token: string) => (await app.inject({ method: 'GET', url: '/missing', headers: { authorization: `Bearer ${token}` } })).statusCode;
    // Two different bearer values, one address: unmatched requests are not keyed by what they claim.
    expect([await unmatched('a'), await unmatched('b'), await unmatched('c')]).toEqual([404, 404, 429]);
    for (let i = 0; i < 5; i++) expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    await app.close();
  });

  it('limits a route auth does not guard by the credential it recognises, else by address (found by a hostile run)', async () => {
    const app = Fastify();
    problemDetails(app);
    app.decorateRequest('principal', undefined);
    const limiter = callerRateLimiter({ perSecond: 1, burst: 2 }, () => 0);
    rateLimit(app, limiter);
    // Recognised: the tokens the route's resource holds.
    const held = new Set(['victim', 'neighbour']);
    app.get('/query', { config: { rateLimitBy: (request) => (held.has(request.headers.authorization ?? '') ? `token:${request.headers.authorization}` : undefined) } }, async () => ({ ok: true }));
    const call = async (token: string) => (await app.inject({ method: 'GET', url: '/query', headers: { authorization: token } })).statusCode;
    // The neighbour at the same address spends its own bucket, not the victim's.
    expect([await call('neighbour'), await call('neighbour'), await call('neighbour')]).toEqual([200, 200, 429]);
    expect([await call('victim'), await call('victim')]).toEqual([200, 200]);
    // Tokens the route does not recognise share the address's bucket: a new one each time buys nothing.
    expect([await call('forged-1'), await call('forged-2'), await call('forged-3')]).toEqual([200, 200, 429]);
    await app.close();
  });

  it('remembers an active caller among many, and forgets one that stays away while others arrive', async () => {
    const limited = limitedApp({ perSecond: 1, burst: 1, maxCallers: 4 }, () => 0);
    const { app } = limited;
    const call = async (token: string) => (await limited.call(token)).statusCode;
    expect(await call('active')).toBe(200);
    // Each new caller in between; the active one keeps coming back, so it is never forgotten.
    for (const other of ['b', 'c', 'd', 'e', 'f', 'g']) {
      expect(await call(other)).toBe(200);
      expect(await call('active')).toBe(429);
    }
    // `b` has been away while more than `maxCallers / 4` other tokens arrived: forgotten, so a full burst again.
    expect(await call('b')).toBe(200);
    await app.close();
  });
});

describe('request bodies', () => {
  it('answers an oversized body 413 and an unknown content type 415, as problem details', async () => {
    const app = Fastify({ bodyLimit: 10 });
    problemDetails(app);
    app.post('/x', async () => ({ ok: true }));
    const big = await app.inject({ method: 'POST', url: '/x', payload: { text: 'x'.repeat(100) } });
    expect(big.statusCode).toBe(413);
    expect(big.headers['content-type']).toMatch(/^application\/problem\+json/);
    const odd = await app.inject({ method: 'POST', url: '/x', payload: 'x', headers: { 'content-type': 'application/x-odd' } });
    expect(odd.statusCode).toBe(415);
    expect(odd.json()).toMatchObject({ status: 415, title: 'Unsupported Media Type' });
    await app.close();
  });
});

describe('apiserver errors', () => {
  it.each([
    [409, 409, 'The resource was changed by another request meanwhile; retry.', 'Conflict'],
    [409, 409, 'The resource already exists.', 'AlreadyExists'],
    [422, 400, 'The request was refused: it breaks a limit of the stored resource.', 'Invalid'],
    [429, 503, 'The control plane is busy; retry shortly.', 'TooManyRequests'],
    [500, 500, 'The server failed to handle this request. It has been logged; retry later.', 'InternalError'],
  ])("answers an apiserver %i as %i, never with the apiserver's own text", async (code, status, detail, reason) => {
    const app = Fastify();
    problemDetails(app);
    app.get('/write', async () => {
      throw new KubeApiError(code, 'runtimeapps.cloudwright.dev "web" is invalid: spec.hostnames: Too many', reason);
    });
    const res = await app.inject({ method: 'GET', url: '/write' });
    expect(res.statusCode).toBe(status);
    expect(res.json()).toMatchObject({ status, detail });
    expect(res.body).not.toContain('cloudwright.dev');
    await app.close();
  });
});
