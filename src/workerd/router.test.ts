// The router against real HTTP servers on Unix sockets standing in for workerd.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConcurrencyLimiter } from './concurrency-limiter.ts';
import { RuntimeRouter } from './router.ts';
import { send } from './testing/http.ts';
import { UpstreamPool, type Route } from './upstream.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const dir = mkdtempSync(join(tmpdir(), 'cw-router-'));
const seen: Seen[] = [];
let release: (() => void) | undefined;
/** Kills the connection of the `/die` request under way. */
let die: (() => void) | undefined;

function upstream(name: string): Promise<{ server: Server; socketPath: string }> {
  const socketPath = join(dir, `${name}.sock`);
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const reply = () => {
        res.writeHead(201, 'Made', ['set-cookie', 'a=1', 'set-cookie', 'b=2', 'x-upstream', name, 'connection', 'keep-alive, x-secret-hop', 'keep-alive', 'timeout=5']);
        res.end(`${name}:${body.length}`);
      };
      if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' }); // chunked: no length
        for (let i = 0; i < 64; i++) res.write(Buffer.alloc(16 * 1024, 97 + (i % 26)));
        res.end();
      } else if (req.url === '/die') {
        res.writeHead(200, { 'content-length': '100' });
        res.write('partial');
        die = () => res.socket?.destroy();
      } else if (req.url === '/hold') release = reply;
      else reply();
    });
  });
  return new Promise((resolve) => server.listen(socketPath, () => resolve({ server, socketPath })));
}

describe('RuntimeRouter', () => {
  const servers: Server[] = [];
  const pool = new UpstreamPool();
  const router = new RuntimeRouter();
  const trusting = new RuntimeRouter({ trustForwardedHeaders: true, retryAfterSeconds: 7 });
  let port = 0;
  let trustingPort = 0;
  let flakyPosts = 0;
  const limited = new ConcurrencyLimiter(1, 1, 5_000);

  beforeAll(async () => {
    const a = await upstream('a');
    const b = await upstream('b');
    servers.push(a.server, b.server);
    const route = (key: string, socketPath: string, limiter = new ConcurrencyLimiter(100, 0, 1000)): Route => ({
      key,
      upstream: { socket: pool.socket(socketPath), pool },
      limiter,
    });
    // Answers the first request of each connection and drops the connection on the second, as a workerd
    // closing an idle connection just as it is reused would.
    const flakyPath = join(dir, 'flaky.sock');
    const flaky = createNetServer((socket) => {
      let requests = 0;
      socket.on('data', (data: Buffer) => {
        requests += 1;
        if (data.toString('latin1').startsWith('POST')) {
          flakyPosts += 1; // a POST always meets a connection that dies
          socket.destroy();
        } else if (requests === 1) socket.write('HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nfirst');
        else socket.destroy();
      });
    });
    await new Promise<void>((resolve) => flaky.listen(flakyPath, resolve));
    servers.push(flaky as unknown as Server);
    const routes = new Map<string, Route>([
      ['flaky.test', route('p/f', flakyPath)],
      ['a.test', route('p/a', a.socketPath)],
      ['b.test', route('p/b', b.socketPath)],
      ['limited.test', route('p/l', a.socketPath, limited)],
      ['down.test', route('p/d', join(dir, 'nobody-listens.sock'))],
    ]);
    router.setRoutes(routes);
    trusting.setRoutes(routes);
    port = (await router.listen(0)).port;
    trustingPort = (await trusting.listen(0)).port;
  });

  afterAll(async () => {
    await router.close();
    await trusting.close();
    pool.destroy();
    for (const server of servers) server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('routes by Host and forwards method, path, body, status and headers', async () => {
    const res = await send(port, 'A.test:80', '/x/y?z=1', {
      method: 'POST',
      body: 'hello',
      headers: { 'content-type': 'text/plain', 'x-custom': 'kept', connection: 'keep-alive, x-hop', 'x-hop': 'dropped', te: 'trailers' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toBe('a:5');
    expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(res.headers['x-upstream']).toBe('a');
    expect(res.headers['x-secret-hop']).toBeUndefined();
    const request = seen.at(-1)!;
    expect(request).toMatchObject({ method: 'POST', url: '/x/y?z=1', body: 'hello' });
    expect(request.headers).toMatchObject({
      host: 'A.test:80',
      'content-type': 'text/plain',
      'x-custom': 'kept',
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-proto': 'http',
      'x-forwarded-host': 'A.test:80',
    });
    expect(request.headers['x-hop']).toBeUndefined();
    expect(request.headers.te).toBeUndefined();
    expect((await send(port, 'b.test')).body).toBe('b:0');
  });

  it('streams a large chunked response and answers HEAD without a body', async () => {
    const big = await send(port, 'a.test', '/big');
    expect(big.status).toBe(200);
    expect(big.body.length).toBe(64 * 16 * 1024);
    expect(big.body.slice(16 * 1024, 16 * 1024 + 3)).toBe('bbb');
    const head = await send(port, 'a.test', '/', { method: 'HEAD' });
    expect(head).toMatchObject({ status: 201, body: '' });
    expect(seen.at(-1)!.method).toBe('HEAD');
  });

  it('cuts the client off when the app dies mid-response (no clean end)', async () => {
    // The app dies once the client has the head: mid-response, whatever the timing.
    await expect(send(port, 'a.test', '/die', { onHead: () => die?.() })).rejects.toThrow(/aborted|socket hang up|ECONNRESET/);
    expect((await send(port, 'a.test')).status).toBe(201); // and the next request is fine
  });

  it('retries a bodiless request once on a new connection when a kept-alive one turns out closed', async () => {
    expect((await send(port, 'flaky.test')).body).toBe('first');
    expect((await send(port, 'flaky.test')).body).toBe('first'); // the reused connection dies; retried
    const post = await send(port, 'flaky.test', '/', { method: 'POST', body: 'data' });
    expect(post.status).toBe(503);
    expect(flakyPosts).toBe(1); // a request with a body is never replayed
  });

  it('replaces client X-Forwarded-* unless told to trust them', async () => {
    const spoofed = { 'x-forwarded-for': '10.0.0.1', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.test' };
    await send(port, 'a.test', '/', { headers: spoofed });
    expect(seen.at(-1)!.headers).toMatchObject({ 'x-forwarded-for': '127.0.0.1', 'x-forwarded-proto': 'http', 'x-forwarded-host': 'a.test' });
    await send(trustingPort, 'a.test', '/', { headers: spoofed });
    expect(seen.at(-1)!.headers).toMatchObject({ 'x-forwarded-for': '10.0.0.1, 127.0.0.1', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.test' });
  });

  it.each([
    ['an unknown host', 'nobody.test', 404, 'No app is served at host "nobody.test".'],
    ['no usable host', '[::1]:80', 404, 'The request names no host.'],
    ['an app whose workerd is down', 'down.test', 503, 'The app is restarting; retry shortly.'],
  ])('answers a problem document for %s', async (_name, host, status, detail) => {
    const res = await send(port, host);
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(res.body)).toEqual({ title: status === 404 ? 'Not Found' : 'Service Unavailable', status, detail });
    if (status === 503) expect(res.headers['retry-after']).toBe('1');
  });

  it('queues one request past the limit and refuses the next with 503 + Retry-After', async () => {
    const held = send(trustingPort, 'limited.test', '/hold');
    await expect.poll(() => release !== undefined).toBe(true);
    const queued = send(trustingPort, 'limited.test', '/queued');
    await expect.poll(() => limited.queued).toBe(1);
    const refused = await send(trustingPort, 'limited.test', '/refused');
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('7');
    expect(JSON.parse(refused.body).detail).toBe('The app is serving its maximum of 1 concurrent requests; retry later.');
    release!();
    release = undefined;
    expect((await held).status).toBe(201);
    expect((await queued).status).toBe(201);
    await expect.poll(() => limited.active).toBe(0);
    expect(pool.inFlight).toBe(0);
  });

  it('frees the slot when the client goes away mid-request', async () => {
    const { request } = await import('node:http');
    const req = request({ host: '127.0.0.1', port, path: '/hold', headers: { host: 'limited.test' }, agent: false });
    req.on('error', () => {});
    req.end();
    await expect.poll(() => limited.active).toBe(1);
    await expect.poll(() => release !== undefined).toBe(true);
    req.destroy();
    await expect.poll(() => limited.active).toBe(0);
    release!();
    release = undefined;
    expect(pool.inFlight).toBe(0);
  });
});
