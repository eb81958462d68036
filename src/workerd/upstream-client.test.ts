// The workerd-facing HTTP client against scripted servers on Unix sockets (exact bytes) and Node's HTTP server.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UpstreamClient, type BodyFraming } from './upstream-client.ts';

const dir = mkdtempSync(join(tmpdir(), 'cw-upstream-'));
const servers: Server[] = [];
afterAll(() => {
  for (const server of servers) server.close();
  rmSync(dir, { recursive: true, force: true });
});

let sockets = 0;
/** A server that answers every request head with `response`, written in `pieces` (byte by byte when 1). */
async function scripted(response: string, piece = 0): Promise<{ path: string; connections: () => number; requests: string[] }> {
  const path = join(dir, `s${sockets++}.sock`);
  const requests: string[] = [];
  let connections = 0;
  const server = createServer((socket: Socket) => {
    connections += 1;
    let received = '';
    // Cannot reject: it only writes (a failed write is reported on 'error', handled below) and waits a tick.
    socket.on('data', (data: Buffer) => void answer(data));
    const answer = async (data: Buffer) => {
      received += data.toString('latin1');
      while (received.includes('\r\n\r\n')) {
        const end = received.indexOf('\r\n\r\n') + 4;
        requests.push(received.slice(0, end));
        received = received.slice(end);
        if (piece === 0) socket.write(response);
        else {
          for (let i = 0; i < response.length; i += piece) {
            socket.write(response.slice(i, i + piece));
            await new Promise((resolve) => setImmediate(resolve));
          }
        }
      }
    };
    socket.on('error', () => {});
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { path, connections: () => connections, requests };
}

interface Result {
  status: number;
  message: string;
  headers: string[];
  body: string;
  error?: string;
  responded?: boolean;
}

function exchange(client: UpstreamClient, options: { method?: string; body?: Buffer[]; framing?: BodyFraming; pauseFirst?: boolean } = {}): Promise<Result & { whilePaused: number }> {
  const method = options.method ?? 'GET';
  return new Promise((resolve) => {
    const result: Result & { whilePaused: number } = { status: 0, message: '', headers: [], body: '', whilePaused: 0 };
    let paused = false;
    let resumed = false;
    const ex = client.exchange(`${method} /x HTTP/1.1\r\nhost: a.test\r\n\r\n`, options.framing ?? 'none', method === 'HEAD', {
      head: (status, message, headers) => Object.assign(result, { status, message, headers }),
      data: (chunk) => {
        result.body += chunk.toString('latin1');
        if (paused && !resumed) result.whilePaused++;
        if (options.pauseFirst && !paused) {
          paused = true;
          // Paused for a turn of the event loop, whose poll phase would hand over more data if it were read.
          setImmediate(() => ((resumed = true), ex.resume()));
          return false;
        }
        return true;
      },
      end: () => resolve(result),
      error: (err, responded) => resolve({ ...result, error: err.message, responded }),
    });
    for (const chunk of options.body ?? []) ex.write(chunk);
    ex.finish();
  });
}

const RESPONSES: [string, string, { status: number; body: string; headers?: string[] }][] = [
  ['content-length', 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: 1\r\n\r\nhello', { status: 200, body: 'hello', headers: ['Content-Length', '5', 'X-A', '1'] }],
  ['empty content-length', 'HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n', { status: 200, body: '' }],
  [
    'chunked with extensions and trailers',
    'HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n',
    { status: 201, body: 'hello 0123456789' },
  ],
  ['204 without a body', 'HTTP/1.1 204 No Content\r\n\r\n', { status: 204, body: '' }],
  ['304 with a length but no body', 'HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n', { status: 304, body: '' }],
  ['an interim 103 first', 'HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok', { status: 200, body: 'ok' }],
];

describe('UpstreamClient: response framing', () => {
  for (const piece of [0, 1, 3]) {
    it.each(RESPONSES)(`%s (${piece === 0 ? 'one write' : `${piece}-byte writes`})`, async (_name, response, expected) => {
      const server = await scripted(response, piece);
      const client = new UpstreamClient(server.path);
      const first = await exchange(client);
      expect(first).toMatchObject({ status: expected.status, body: expected.body });
      if (expected.headers) expect(first.headers).toEqual(expected.headers);
      // the connection is reused for the next request
      expect(await exchange(client)).toMatchObject({ status: expected.status, body: expected.body });
      expect(server.connections()).toBe(1);
      client.destroy();
    });
  }

  it('a HEAD response has no body whatever its Content-Length says', async () => {
    const server = await scripted('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n');
    const client = new UpstreamClient(server.path);
    expect(await exchange(client, { method: 'HEAD' })).toMatchObject({ status: 200, body: '', headers: ['Content-Length', '100'] });
    expect(await exchange(client, { method: 'HEAD' })).toMatchObject({ status: 200 });
    expect(server.connections()).toBe(1);
  });

  it('a body delimited by the connection closing; the connection is not reused', async () => {
    const path = join(dir, 'close.sock');
    const server = createServer((socket) => socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\n\r\nuntil close')));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(path, resolve));
    const client = new UpstreamClient(path);
    expect(await exchange(client)).toMatchObject({ status: 200, body: 'until close' });
    expect(client.idle).toBe(0);
  });

  it('bytes past the response make the connection unusable: it is not reused', async () => {
    const server = await scripted('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokGARBAGE');
    const client = new UpstreamClient(server.path);
    expect(await exchange(client)).toMatchObject({ status: 200, body: 'ok' });
    expect(await exchange(client)).toMatchObject({ status: 200, body: 'ok' });
    expect(server.connections()).toBe(2);
  });

  it('Connection: close is honoured', async () => {
    const server = await scripted('HTTP/1.1 200 OK\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx');
    const client = new UpstreamClient(server.path);
    await exchange(client);
    await exchange(client);
    expect(server.connections()).toBe(2);
  });

  it('pauses the connection while the receiver cannot take more', async () => {
    const big = 'y'.repeat(300_000);
    const server = await scripted(`HTTP/1.1 200 OK\r\nContent-Length: ${big.length}\r\n\r\n${big}`);
    const client = new UpstreamClient(server.path);
    const result = await exchange(client, { pauseFirst: true });
    expect(result.body).toBe(big);
    expect(result.whilePaused).toBe(0);
  });

  it.each([
    ['a truncated body', 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc', true, /before the response was complete/],
    ['a garbage status line', 'SSH-2.0-OpenSSH\r\n\r\n', false, /malformed status line/],
    ['a bad chunk size', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', true, /malformed chunk size/],
  ])('fails on %s', async (_name, response, responded, message) => {
    const path = join(dir, `bad${sockets++}.sock`);
    const server = createServer((socket) => socket.once('data', () => socket.end(response)));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(path, resolve));
    const result = await exchange(new UpstreamClient(path));
    expect(result.responded).toBe(responded);
    expect(result.error).toMatch(message);
  });

  it('fails without a response when nothing listens', async () => {
    const result = await exchange(new UpstreamClient(join(dir, 'nobody.sock')));
    expect(result).toMatchObject({ responded: false, error: expect.stringMatching(/ENOENT/) });
  });

  it('closes its idle connections after the idle timeout, before workerd would', async () => {
    const server = await scripted('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
    const client = new UpstreamClient(server.path, { idleTimeoutMs: 50 });
    await exchange(client);
    expect(client.idle).toBe(1);
    await expect.poll(() => client.idle).toBe(0);
    expect((await exchange(client)).status).toBe(200);
    expect(server.connections()).toBe(2);
  });

  it('drops idle connections the server closed', async () => {
    const path = join(dir, 'idle-close.sock');
    let served: Socket | undefined;
    const server = createServer((socket) =>
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
        served = socket;
      }),
    );
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(path, resolve));
    const client = new UpstreamClient(path);
    await exchange(client);
    expect(client.idle).toBe(1);
    served?.end(); // the server closes the connection once the client has put it in its pool
    await expect.poll(() => client.idle).toBe(0);
  });
});

describe('UpstreamClient: request bodies, against Node’s HTTP server', () => {
  it.each([
    ['length', 'length' as const],
    ['chunked', 'chunked' as const],
  ])('streams a %s-framed body', async (_name, framing) => {
    const path = join(dir, `http-${framing}.sock`);
    const server = createHttpServer((req, res) => {
      let size = 0;
      req.on('data', (c: Buffer) => (size += c.length));
      req.on('end', () => res.end(`${req.headers['transfer-encoding'] ?? 'length'}:${size}`));
    });
    servers.push(server as unknown as Server);
    await new Promise<void>((resolve) => server.listen(path, resolve));
    const client = new UpstreamClient(path);
    const chunks = Array.from({ length: 20 }, () => Buffer.alloc(50_000, 1));
    const result = await new Promise<Result>((resolve) => {
      const result: Result = { status: 0, message: '', headers: [], body: '' };
      const head = framing === 'length' ? 'POST /u HTTP/1.1\r\nhost: a\r\ncontent-length: 1000000\r\n\r\n' : 'POST /u HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\n\r\n';
      const ex = client.exchange(head, framing, false, {
        head: (status) => (result.status = status),
        data: (c) => ((result.body += c.toString()), true),
        end: () => resolve(result),
        error: (err) => resolve({ ...result, error: err.message }),
      });
      for (const chunk of chunks) ex.write(chunk);
      ex.finish();
    });
    expect(result).toMatchObject({ status: 200, body: framing === 'length' ? 'length:1000000' : 'chunked:1000000' });
    client.destroy();
  });

  it('an answer before the request body is sent: the body is finished, then the connection closed, not reused', async () => {
    const server = await scripted('HTTP/1.1 413 Payload Too Large\r\nContent-Length: 3\r\n\r\nbig');
    const client = new UpstreamClient(server.path);
    let ex: ReturnType<UpstreamClient['exchange']> | undefined;
    const result = await new Promise<Result>((resolve) => {
      const result: Result = { status: 0, message: '', headers: [], body: '' };
      ex = client.exchange('POST /u HTTP/1.1\r\nhost: a\r\ncontent-length: 10\r\n\r\n', 'length', false, {
        head: (status, message) => Object.assign(result, { status, message }),
        data: (c) => ((result.body += c.toString()), true),
        end: () => resolve(result),
        error: (err) => resolve({ ...result, error: err.message }),
      });
      ex.write(Buffer.from('12345'));
    });
    expect(result).toMatchObject({ status: 413, message: 'Payload Too Large', body: 'big' });
    ex!.write(Buffer.from('67890'));
    ex!.finish();
    await expect.poll(() => ex!.socket.destroyed).toBe(true);
    expect(client.idle).toBe(0);
  });
});
