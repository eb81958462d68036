// The entry point against real HTTP servers on Unix sockets standing in for workerd's dispatcher.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect as connectHttp2, createServer as createHttp2Server, type ClientHttp2Session } from 'node:http2';
import { createConnection, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import type { Duplex } from 'node:stream';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EntryProxy, type Route, type SettledRoute } from './entry-proxy.ts';
import { send } from './testing/http.ts';
import { UpstreamPool, type Upstream } from './upstream.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const dir = mkdtempSync(join(tmpdir(), 'cw-entry-'));
const seen: Seen[] = [];
let release: (() => void) | undefined;
/** The upstream's side of each `/flood` WebSocket. */
const floods: Duplex[] = [];
/** Kills the connection of the `/die` request under way. */
let die: (() => void) | undefined;

function upstream(name: string): Promise<{ server: Server; socketPath: string }> {
  const socketPath = join(dir, `${name}.sock`);
  const server = createServer((req, res) => {
    if (req.url === '/early') return void res.end('early'); // answered before the body ends (a 404, a redirect)
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
      } else if (req.url === '/die-after-head') {
        res.writeHead(200, { 'content-length': '100' });
        res.flushHeaders();
        setImmediate(() => res.socket?.destroy());
      } else if (req.url === '/die') {
        res.writeHead(200, { 'content-length': '100' });
        res.write('partial');
        die = () => res.socket?.destroy();
      } else if (req.url === '/own-sts') {
        res.writeHead(200, { 'strict-transport-security': 'max-age=0' });
        res.end('own');
      } else if (req.url === '/hold') release = reply;
      else reply();
    });
  });
  // `GET /flood?mib=N` upgraded: N MiB sent at once, as an app send()ing to a client that may not read.
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
    const url = new URL(req.url ?? '/', 'http://x');
    const mib = Number(url.searchParams.get('mib') ?? 0);
    floods.push(socket);
    for (let i = 0; i < mib * 16; i++) socket.write(Buffer.alloc(64 * 1024, 120));
    if (url.searchParams.has('end')) socket.end(); // the app's last message and close frame, then its side closed
    socket.on('error', () => socket.destroy()).on('end', () => socket.end()); // as workerd ends a WebSocket its client left
  });
  return new Promise((resolve) => server.listen(socketPath, () => resolve({ server, socketPath })));
}

describe('EntryProxy', () => {
  const servers: Server[] = [];
  const pools: UpstreamPool[] = [];
  const proxies: EntryProxy[] = [];
  let flakyPosts = 0;
  let a: Upstream;
  let b: Upstream;
  /**
   * Listens, routing every host to `upstream` as app `demo/app` (none: refused as the engine refuses before
   * workerd has started); answers its port and a way to route to another upstream.
   */
  async function proxy(
    upstream: Upstream | undefined,
    options: Omit<ConstructorParameters<typeof EntryProxy>[0], 'route'> = {},
  ): Promise<{ proxy: EntryProxy; port: number; switchTo: (next: Upstream) => void }> {
    let current = upstream;
    const route = (): Route =>
      current
        ? { upstream: current, app: 'demo/app' }
        : { refusal: { status: 503, title: 'Service Unavailable', detail: 'The runtime is starting; retry shortly.', retryAfter: String(options.retryAfterSeconds ?? 1) } };
    const p = new EntryProxy({ ...options, route });
    proxies.push(p);
    return { proxy: p, port: (await p.listen(0)).port, switchTo: (next) => (current = next) };
  }
  /** An entry point serving HTTP/2 without TLS (as the HTTPS listener hands it requests), and a client session to it. */
  async function http2Entry(route: (host: string | undefined) => Route): Promise<{ session: ClientHttp2Session; close: () => Promise<void> }> {
    const p = new EntryProxy({ route });
    proxies.push(p);
    const h2 = createHttp2Server();
    p.serveOn(h2);
    await new Promise<void>((resolve) => h2.listen(0, '127.0.0.1', resolve));
    const session = connectHttp2(`http://127.0.0.1:${(h2.address() as AddressInfo).port}`);
    return {
      session,
      close: async () => {
        session.close();
        await new Promise((resolve) => h2.close(resolve));
      },
    };
  }
  function upstreamAt(socketPath: string): Upstream {
    const pool = new UpstreamPool();
    pools.push(pool);
    return { socket: pool.socket(socketPath), pool };
  }

  beforeAll(async () => {
    const serverA = await upstream('a');
    const serverB = await upstream('b');
    servers.push(serverA.server, serverB.server);
    a = upstreamAt(serverA.socketPath);
    b = upstreamAt(serverB.socketPath);
  });

  afterAll(async () => {
    for (const p of proxies) await p.close();
    for (const pool of pools) pool.destroy();
    for (const server of servers) server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('forwards method, path, body, status and headers, adding X-Forwarded-* and a request id', async () => {
    const { port } = await proxy(a);
    const res = await send(port, 'A.test:80', '/x/y?z=1', {
      method: 'POST',
      body: 'hello',
      headers: { 'content-type': 'text/plain', 'x-custom': 'kept', connection: 'x-hop', 'x-hop': 'dropped', te: 'trailers' },
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
    expect(request.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(request.headers['x-hop']).toBeUndefined();
    expect(request.headers.te).toBeUndefined();
    await send(port, 'a.test');
    expect(seen.at(-1)!.headers['x-request-id']).not.toBe(request.headers['x-request-id']);
  });

  it('forwards an HTTP/2 request as HTTP/1.1: :authority as Host, no pseudo-headers, a body without a length', async () => {
    // The HTTPS listener hands HTTP/2 requests to the same listener through Node's compatibility API (h2c here).
    const { session, close } = await http2Entry(() => ({ upstream: a, app: 'demo/app' }));
    try {
      const exchange = async (headers: Record<string, string>, body?: string) => {
        const stream = session.request(headers, { endStream: body === undefined });
        if (body !== undefined) {
          stream.write(body.slice(0, 3));
          stream.end(body.slice(3));
        }
        let text = '';
        stream.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        const head = await new Promise<Record<string, unknown>>((resolve) => stream.once('response', resolve));
        await new Promise((resolve) => stream.once('end', resolve));
        return { head, text };
      };
      const post = await exchange({ ':method': 'POST', ':path': '/h2?x=1', ':authority': 'A.test', 'x-custom': 'kept' }, 'hello h2');
      expect(post.head).toMatchObject({ ':status': 201, 'set-cookie': ['a=1', 'b=2'], 'x-upstream': 'a' });
      expect(post.text).toBe('a:8');
      const request = seen.at(-1)!;
      expect(request).toMatchObject({ method: 'POST', url: '/h2?x=1', body: 'hello h2' });
      expect(request.headers).toMatchObject({ host: 'A.test', 'x-custom': 'kept', 'x-forwarded-host': 'A.test', 'transfer-encoding': 'chunked' });
      expect(Object.keys(request.headers).filter((name) => name.startsWith(':'))).toEqual([]);
      const get = await exchange({ ':path': '/', ':authority': 'a.test' });
      expect([get.head[':status'], get.text]).toEqual([201, 'a:0']);
      expect(seen.at(-1)!.headers['transfer-encoding']).toBeUndefined();
    } finally {
      await close();
    }
  });

  it('counts an HTTP/2 request as done with its answer though the client keeps its side open, and lets a held one go when the client resets it', async () => {
    let cancelled = 0;
    let release: ((route: SettledRoute) => void) | undefined;
    const { session, close } = await http2Entry((host) =>
      host === 'held.test' ? { pending: new Promise<SettledRoute>((resolve) => (release = resolve)), cancel: () => (cancelled += 1) } : { upstream: a, app: 'demo/app' },
    );
    try {
      const open = session.request({ ':method': 'POST', ':path': '/early', ':authority': 'a.test' }, { endStream: false });
      open.write('x'); // and never ends its body
      open.resume();
      expect((await new Promise<Record<string, unknown>>((resolve) => open.once('response', resolve)))[':status']).toBe(200);
      await expect.poll(() => a.pool.inFlight).toBe(0);
      open.close();

      const held = session.request({ ':path': '/', ':authority': 'held.test' });
      held.on('error', () => {});
      await expect.poll(() => release !== undefined).toBe(true);
      held.close(); // RST_STREAM while it is held
      await expect.poll(() => cancelled).toBe(1);
      release!({ upstream: a, app: 'demo/app' }); // its turn comes after all: nothing is sent for it
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(a.pool.inFlight).toBe(0);
    } finally {
      await close();
    }
  });

  it('streams a large chunked response and answers HEAD without a body', async () => {
    const { port } = await proxy(a);
    const big = await send(port, 'a.test', '/big');
    expect(big.status).toBe(200);
    expect(big.body.length).toBe(64 * 16 * 1024);
    expect(big.body.slice(16 * 1024, 16 * 1024 + 3)).toBe('bbb');
    const head = await send(port, 'a.test', '/', { method: 'HEAD' });
    expect(head).toMatchObject({ status: 201, body: '' });
    expect(seen.at(-1)!.method).toBe('HEAD');
  });

  it('cuts the client off when the app dies mid-response (no clean end)', async () => {
    const { port } = await proxy(a);
    // The app dies once the client has the head: mid-response, whatever the timing.
    await expect(send(port, 'a.test', '/die', { onHead: () => die?.() })).rejects.toThrow(/aborted|socket hang up|ECONNRESET/);
    expect((await send(port, 'a.test')).status).toBe(201); // and the next request is fine
    await expect(send(port, 'a.test', '/die-after-head')).rejects.toThrow(/aborted|socket hang up|ECONNRESET/); // not a hang
  });

  it('retries a bodiless request once on a new connection when a kept-alive one turns out closed', async () => {
    // Answers the first request of each connection and drops the connection on the second, as a workerd
    // closing an idle connection just as it is reused would; a POST always meets a connection that dies.
    const flakyPath = join(dir, 'flaky.sock');
    const flaky = createNetServer((socket) => {
      let requests = 0;
      socket.on('data', (data: Buffer) => {
        requests += 1;
        if (data.toString('latin1').startsWith('POST')) {
          flakyPosts += 1;
          socket.destroy();
        } else if (requests === 1) socket.write('HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nfirst');
        else socket.destroy();
      });
    });
    await new Promise<void>((resolve) => flaky.listen(flakyPath, resolve));
    servers.push(flaky as unknown as Server);
    const { port } = await proxy(upstreamAt(flakyPath));
    expect((await send(port, 'flaky.test')).body).toBe('first');
    expect((await send(port, 'flaky.test')).body).toBe('first'); // the reused connection dies; retried
    const post = await send(port, 'flaky.test', '/', { method: 'POST', body: 'data' });
    expect(post.status).toBe(503);
    expect(flakyPosts).toBe(1); // a request with a body is never replayed
  });

  it("waits for its workerd's end to be judged before a dropped GET is sent again or answered 503", async () => {
    // A workerd that drops every connection, as one that ended itself does before the shard has read its end.
    const deadPath = join(dir, 'dead.sock');
    let dropped = 0;
    const dead = createNetServer((socket) => socket.on('data', () => (dropped += 1) && socket.destroy()));
    await new Promise<void>((resolve) => dead.listen(deadPath, resolve));
    servers.push(dead as unknown as Server);
    const deadUpstream = upstreamAt(deadPath);
    let stoppedByAnother = false;
    const { port, switchTo } = await proxy(deadUpstream, { resend: (_app, pool) => pool === deadUpstream.pool && stoppedByAnother });
    const answer = send(port, 'a.test');
    // Dropped on a new connection too (the retry for a kept-alive one closed): now it waits for the judgement.
    await expect.poll(() => dropped).toBe(2);
    switchTo(a);
    stoppedByAnother = true;
    deadUpstream.pool.judged();
    expect(await answer).toMatchObject({ status: 201, body: 'a:0' });
    // Judged, and not another tenant's stop: 503 at once.
    switchTo(deadUpstream);
    stoppedByAnother = false;
    expect((await send(port, 'a.test')).status).toBe(503);
  });

  it('replaces client X-Forwarded-* and X-Request-Id unless told to trust them, and the client-address headers always', async () => {
    const spoofed = {
      'x-forwarded-for': '10.0.0.1',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'evil.test',
      'x-request-id': 'chosen',
      'cf-connecting-ip': '1.2.3.4',
      'x-real-ip': '1.2.3.4',
      'true-client-ip': '1.2.3.4',
    };
    const { port } = await proxy(a);
    await send(port, 'a.test', '/', { headers: spoofed });
    expect(seen.at(-1)!.headers).toMatchObject({
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-proto': 'http',
      'x-forwarded-host': 'a.test',
      'cf-connecting-ip': '127.0.0.1',
      'x-real-ip': '127.0.0.1',
    });
    expect(seen.at(-1)!.headers['x-request-id']).not.toBe('chosen');
    expect(seen.at(-1)!.headers['true-client-ip']).toBeUndefined();
    // Trusted by range, only for the ingress's addresses: a client elsewhere has its headers replaced.
    const elsewhere = await proxy(a, { trustForwardedHeaders: ['10.0.0.0/8'] });
    await send(elsewhere.port, 'a.test', '/', { headers: spoofed });
    expect(seen.at(-1)!.headers).toMatchObject({ 'x-forwarded-for': '127.0.0.1', 'x-forwarded-proto': 'http', 'cf-connecting-ip': '127.0.0.1' });
    expect(seen.at(-1)!.headers['x-request-id']).not.toBe('chosen');
    const trusting = await proxy(a, { trustForwardedHeaders: ['127.0.0.1/32'] });
    await send(trusting.port, 'a.test', '/', { headers: spoofed });
    // The ingress appended the client it saw last: that is who the app is told called.
    expect(seen.at(-1)!.headers).toMatchObject({
      'x-forwarded-for': '10.0.0.1, 127.0.0.1',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'evil.test',
      'x-request-id': 'chosen',
      'cf-connecting-ip': '10.0.0.1',
      'x-real-ip': '10.0.0.1',
    });
  });

  it("redirects or adds HSTS as the app's HTTPS settings say, HTTPS counted from a trusted X-Forwarded-Proto only", async () => {
    const calls: [string, boolean][] = [];
    const https = (req: IncomingMessage, app: string, secure: boolean) => {
      calls.push([app, secure]);
      if (req.url === '/go') return { redirect: 'https://a.test:8443/go?x=1' };
      return secure ? { hsts: 'max-age=600' } : undefined;
    };
    const plain = await proxy(a, { https });
    const before = seen.length;
    const redirected = await send(plain.port, 'a.test', '/go', { method: 'POST', body: 'form' });
    expect([redirected.status, redirected.headers.location, redirected.body]).toEqual([308, 'https://a.test:8443/go?x=1', '']);
    expect(seen.length).toBe(before); // answered without reaching the app
    // Not trusted: a client's X-Forwarded-Proto does not make plain HTTP count as HTTPS.
    const spoofed = await send(plain.port, 'a.test', '/', { headers: { 'x-forwarded-proto': 'https' } });
    expect(spoofed.headers['strict-transport-security']).toBeUndefined();
    const trusting = await proxy(a, { https, trustForwardedHeaders: true });
    expect((await send(trusting.port, 'a.test', '/', { headers: { 'x-forwarded-proto': 'HTTPS, http' } })).headers['strict-transport-security']).toBe('max-age=600');
    expect((await send(trusting.port, 'a.test', '/', { headers: { 'x-forwarded-proto': 'http' } })).headers['strict-transport-security']).toBeUndefined();
    // The app's own header is kept, not doubled.
    const own = await send(trusting.port, 'a.test', '/own-sts', { headers: { 'x-forwarded-proto': 'https' } });
    expect([own.body, own.headers['strict-transport-security']]).toEqual(['own', 'max-age=0']);
    expect(calls).toEqual([
      ['demo/app', false],
      ['demo/app', false],
      ['demo/app', true],
      ['demo/app', false],
      ['demo/app', true],
    ]);
  });

  it.each([
    ['while workerd is down', 'down', 'The app is restarting; retry shortly.'],
    ['before workerd has started', 'unset', 'The runtime is starting; retry shortly.'],
  ])('answers 503 with Retry-After %s', async (_name, which, detail) => {
    const { port } = await proxy(which === 'down' ? upstreamAt(join(dir, 'nobody-listens.sock')) : undefined, { retryAfterSeconds: 7 });
    const res = await send(port, 'a.test');
    expect(res.status).toBe(503);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.headers['retry-after']).toBe('7');
    expect(JSON.parse(res.body)).toEqual({ title: 'Service Unavailable', status: 503, detail });
  });

  it.each([
    ['while workerd is down', 'down'],
    ['before workerd has started', 'unset'],
  ])('refuses an upgrade with 503 and the configured Retry-After %s', async (_name, which) => {
    const { port } = await proxy(which === 'down' ? upstreamAt(join(dir, 'nobody-listens.sock')) : undefined, { retryAfterSeconds: 7 });
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () =>
        socket.write('GET /ws HTTP/1.1\r\nHost: a.test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n'),
      );
      let text = '';
      socket.setEncoding('latin1').on('data', (chunk: string) => (text += chunk));
      socket.on('end', () => resolve(text)).on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer.toLowerCase()).toContain('retry-after: 7\r\n');
  });

  /**
   * A WebSocket handshake for `/flood?mib=N` from a client that reads (or stops reading once the 101 head has
   * arrived): the client, what it read, and the upstream's side of the WebSocket.
   */
  async function flooded(port: number, mib: number, read: boolean, end = false): Promise<{ client: Socket; received: () => number; upstreamSide: Duplex }> {
    const before = floods.length;
    const client = createConnection({ host: '127.0.0.1', port });
    client.write(
      `GET /flood?mib=${mib}${end ? '&end' : ''} HTTP/1.1\r\nHost: a.test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
    );
    // What arrived of the app's messages: the 101's head (in the first chunk) left out.
    let received = 0;
    let first = true;
    await new Promise<void>((resolve) =>
      client.on('data', (chunk: Buffer) => {
        if (first && !read) client.pause();
        received += first ? chunk.length - (chunk.indexOf('\r\n\r\n') + 4) : chunk.length;
        first = false;
        resolve();
      }),
    );
    return { client, received: () => received, upstreamSide: floods[before]! };
  }

  /** Resolves once `socket` is closed. */
  function closed(socket: Duplex): Promise<void> {
    return new Promise((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));
  }

  it("closes a WebSocket whose client lags past its bound, leaving the app's messages queued nowhere (found in review: 400 MiB queued in workerd)", async () => {
    const { port } = await proxy(a, { webSocketBacklog: { perWebSocket: 1024 * 1024, total: 64 * 1024 * 1024 } });
    const { client, received, upstreamSide } = await flooded(port, 64, false);
    // The app's side is cut: what it sent is not held for a client that does not read.
    await closed(upstreamSide);
    client.on('error', () => {}).resume();
    await closed(client);
    expect(received()).toBeLessThan(64 * 1024 * 1024);
  });

  it('still sends a slow client what the app sent before it closed, then ends (found in review: the end was cut)', async () => {
    const { port } = await proxy(a, { webSocketBacklog: { perWebSocket: 32 * 1024 * 1024, total: 64 * 1024 * 1024 } });
    const { client, received, upstreamSide } = await flooded(port, 8, false, true);
    await closed(upstreamSide);
    client.resume();
    await new Promise((resolve) => client.once('end', resolve));
    expect(received()).toBe(8 * 1024 * 1024);
  });

  it('relays all of it to a client that reads', async () => {
    const { port } = await proxy(a, { webSocketBacklog: { perWebSocket: 32 * 1024 * 1024, total: 64 * 1024 * 1024 } });
    const { client, received, upstreamSide } = await flooded(port, 16, true);
    await expect.poll(received, { timeout: 10_000 }).toBeGreaterThanOrEqual(16 * 1024 * 1024);
    client.destroy();
    await closed(upstreamSide);
  });

  it('closes the WebSocket lagging most once they hold more than their total, each within its own bound', async () => {
    const { port } = await proxy(a, { webSocketBacklog: { perWebSocket: 256 * 1024 * 1024, total: 2 * 1024 * 1024 } });
    const { client, upstreamSide } = await flooded(port, 64, false);
    await closed(upstreamSide);
    client.destroy();
  });

  it('answers 400 to a request target it cannot forward, without calling workerd unreachable', async () => {
    const warnings: string[] = [];
    const log = { debug() {}, info() {}, warn: (message: string) => warnings.push(message), error() {} };
    const { port } = await proxy(a, { log });
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => socket.end('OPTIONS * HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n'));
      let text = '';
      socket.setEncoding('latin1').on('data', (chunk: string) => (text += chunk));
      socket.on('end', () => resolve(text)).on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('The request target cannot be forwarded to an app.');
    expect(warnings).toEqual([]);
  });

  it('sends new requests to a new upstream while one in flight finishes on the old', async () => {
    const { port, switchTo } = await proxy(a);
    const held = send(port, 'a.test', '/hold');
    await expect.poll(() => release !== undefined).toBe(true);
    expect(a.pool.inFlight).toBe(1);
    switchTo(b);
    expect((await send(port, 'b.test')).body).toBe('b:0');
    const idle = a.pool.idle();
    release!();
    release = undefined;
    expect((await held).body).toBe('a:0');
    await idle;
    expect(a.pool.inFlight).toBe(0);
  });

  it('records each request on its upstream: the app, when it was sent, and when the upstream last answered', async () => {
    const { port } = await proxy(a);
    const before = Date.now();
    const held = send(port, 'a.test', '/hold');
    await expect.poll(() => release !== undefined).toBe(true);
    // Requests the upstream broke off earlier (/die) stay as evidence too: it was running them when it broke.
    const during = a.pool.evidence();
    const hold = during.open.filter((f) => f.sentAt >= before);
    expect(hold).toEqual([{ app: 'demo/app', method: 'GET', url: '/hold', sentAt: hold[0]!.sentAt }]);
    expect(a.pool.requestOf('demo/app')).toEqual({ method: 'GET', url: '/hold' });
    expect(a.pool.inFlight).toBe(1);
    expect(a.pool.busy('demo', 0)).toBe(true);
    expect(a.pool.busy('other', 0)).toBe(false);
    const answeredBefore = a.pool.lastOutput;
    release!();
    release = undefined;
    await held;
    const after = a.pool.evidence();
    expect(after.open.filter((f) => f.sentAt >= before)).toEqual([]);
    expect(after.ended.get('demo/app')).toBeGreaterThanOrEqual(hold[0]!.sentAt);
    expect(after.lastAlive).toBeGreaterThanOrEqual(answeredBefore);
    expect(a.pool.busy('demo', 60_000)).toBe(true); // finished just now
  });

  it('answers a refusal itself, as a problem document with Retry-After and the reason', async () => {
    const refusal = { status: 503, title: 'Service Unavailable', detail: 'The app was stopped.', retryAfter: '42', reason: 'CPULimitExceeded' };
    const p = new EntryProxy({ route: () => ({ refusal }) });
    proxies.push(p);
    const res = await send((await p.listen(0)).port, 'a.test');
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('42');
    expect(JSON.parse(res.body)).toEqual({ title: 'Service Unavailable', status: 503, detail: 'The app was stopped.', reason: 'CPULimitExceeded' });
  });

  it('cuts a request short when its pool asks: the client is answered the refusal, and the request is done', async () => {
    const { port } = await proxy(a);
    const held = send(port, 'a.test', '/hold');
    await expect.poll(() => release !== undefined).toBe(true);
    expect(a.pool.cut('other', { status: 503, title: 'Service Unavailable', detail: 'not this one' })).toEqual([]);
    expect(a.pool.cut('demo', { status: 503, title: 'Service Unavailable', detail: 'Its turn is over.', retryAfter: '1', reason: 'Probation' })).toEqual(['demo/app']);
    const res = await held;
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(JSON.parse(res.body)).toEqual({ title: 'Service Unavailable', status: 503, detail: 'Its turn is over.', reason: 'Probation' });
    await expect.poll(() => a.pool.inFlight).toBe(0);
    release!(); // workerd's late answer goes nowhere
    release = undefined;
    expect((await send(port, 'a.test')).status).toBe(201);
  });

  it('breaks off an answer under way when its request is cut, without counting it a refusal', async () => {
    const { port } = await proxy(a);
    let head = false;
    const broken = send(port, 'a.test', '/die', { onHead: () => (head = true) });
    await expect.poll(() => head).toBe(true);
    expect(a.pool.cut('demo', { status: 503, title: 'Service Unavailable', detail: 'Its turn is over.', reason: 'Probation' })).toEqual([]);
    await expect(broken).rejects.toThrow(/aborted|socket hang up|ECONNRESET/);
    await expect.poll(() => a.pool.inFlight).toBe(0);
    die?.();
  });

  it('counts a request as done when the client goes away mid-request', async () => {
    const { port } = await proxy(a);
    const { request } = await import('node:http');
    const req = request({ host: '127.0.0.1', port, path: '/hold', headers: { host: 'a.test' }, agent: false });
    req.on('error', () => {});
    req.end();
    await expect.poll(() => release !== undefined).toBe(true);
    expect(a.pool.inFlight).toBe(1);
    req.destroy();
    await expect.poll(() => a.pool.inFlight).toBe(0);
    release!();
    release = undefined;
  });
});
