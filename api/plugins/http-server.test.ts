import Fastify, { type FastifyInstance } from 'fastify';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiHttpServer } from './http-server.ts';

let app: FastifyInstance;
let port: number;

beforeAll(async () => {
  app = Fastify({ serverFactory: apiHttpServer, requestTimeout: 60_000 });
  const echo = { schema: { body: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } } };
  app.post('/echo', echo, async (request) => ({ body: request.body }));
  app.post('/bodyless', async (request) => ({ body: request.body ?? null, ended: request.raw.readableEnded }));
  app.get('/ended', async (request) => ({ ended: request.raw.readableEnded }));
  app.get('/authorization', async (request) => ({ authorization: request.headers.authorization ?? null }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;
});
afterAll(() => app.close());

const pick = (server: FastifyInstance['server']) => ({
  keepAliveTimeout: server.keepAliveTimeout,
  requestTimeout: server.requestTimeout,
  timeout: server.timeout,
  maxRequestsPerSocket: server.maxRequestsPerSocket,
});

/** Sends `raw` on a fresh connection and resolves with the first response's status and body. */
function exchange(raw: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(raw));
    socket.setTimeout(5_000, () => socket.destroy(new Error(`no answer within 5 s to ${JSON.stringify(raw.split('\r\n')[0])}`)));
    socket.on('data', (chunk) => {
      answer += String(chunk);
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(head)?.[1];
      if (length !== undefined && Buffer.byteLength(body) >= Number(length)) {
        socket.destroy();
        resolve({ status: Number(head.split(' ')[1]), body });
      }
    });
    socket.on('error', reject);
  });
}

describe('the HTTP server cw-api listens with', () => {
  it('hands a request with neither Content-Length nor Transfer-Encoding over already ended', async () => {
    expect(await exchange('GET /ended HTTP/1.1\r\nHost: x\r\n\r\n')).toEqual({ status: 200, body: '{"ended":true}' });
  });

  it('answers a body method naming a content type but sending no body, instead of waiting for one', async () => {
    const head = 'Host: x\r\nContent-Type: application/json\r\n\r\n';
    const refused = await exchange(`POST /echo HTTP/1.1\r\n${head}`);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).message).toBe('body must be object');
    expect(await exchange(`POST /bodyless HTTP/1.1\r\n${head}`)).toEqual({ status: 200, body: '{"body":null,"ended":true}' });
  });

  it('still reads bodies sent with a length or in chunks', async () => {
    const json = '{"name":"a"}';
    const sized = await exchange(`POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${json.length}\r\n\r\n${json}`);
    expect(sized).toEqual({ status: 200, body: `{"body":${json}}` });
    const chunked = await exchange(`POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${json.length.toString(16)}\r\n${json}\r\n0\r\n\r\n`);
    expect(chunked).toEqual({ status: 200, body: `{"body":${json}}` });
  });

  it('serves several requests on one connection, bodyless and not', async () => {
    const json = '{"name":"b"}';
    const raw = `GET /ended HTTP/1.1\r\nHost: x\r\n\r\nPOST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${json.length}\r\n\r\n${json}GET /ended HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
    const answer = await new Promise<string>((resolve, reject) => {
      let text = '';
      const socket = connect(port, '127.0.0.1', () => socket.write(raw));
      socket.on('data', (chunk) => (text += String(chunk)));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200', 'HTTP/1.1 200']);
    expect(answer).toContain(`{"body":${json}}`);
  });

  it('hands a header sent twice over with both values, not only the first (two content types: 415)', async () => {
    const answer = await exchange('GET /authorization HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer first\r\nAuthorization: Bearer second\r\n\r\n');
    expect(answer).toEqual({ status: 200, body: '{"authorization":"Bearer first, Bearer second"}' });
    const twoTypes = await exchange('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Type: text/plain\r\nContent-Length: 12\r\n\r\n{"name":"a"}');
    expect(twoTypes.status).toBe(415);
  });

  it("keeps the timeouts Fastify sets on servers it makes itself, and the caller's own http options", async () => {
    const options = { requestTimeout: 60_000, keepAliveTimeout: 5_000, connectionTimeout: 1_234, maxRequestsPerSocket: 7 };
    const ours = Fastify({ ...options, serverFactory: apiHttpServer, http: { maxHeaderSize: 1024, requireHostHeader: false } });
    const plain = Fastify(options);
    await Promise.all([ours.ready(), plain.ready()]);
    // Node keeps these options on the server without declaring them.
    const { maxHeaderSize, requireHostHeader } = ours.server as unknown as { maxHeaderSize: number; requireHostHeader: boolean };
    expect({ ...pick(ours.server), maxHeaderSize, requireHostHeader }).toEqual({
      ...pick(plain.server),
      maxHeaderSize: 1024,
      requireHostHeader: false,
    });
    expect(pick(ours.server)).toEqual({ keepAliveTimeout: 5_000, requestTimeout: 60_000, timeout: 1_234, maxRequestsPerSocket: 7 });
    await Promise.all([ours.close(), plain.close()]);
  });

  it('refuses to stand in for an https or http2 server', () => {
    expect(() => Fastify({ serverFactory: apiHttpServer, https: {} } as never)).toThrow("cw-api's HTTP server serves plain HTTP/1.1");
  });

  it('shows a caller hanging up on the socket, not on the request stream, which is closed from the start', async () => {
    let seen: (events: string[]) => void = () => undefined;
    const events = new Promise<string[]>((resolve) => (seen = resolve));
    let handling: () => void = () => undefined;
    const handled = new Promise<void>((resolve) => (handling = resolve));
    const hangUp = Fastify({ serverFactory: apiHttpServer });
    hangUp.get('/wait', (request) => {
      const heard: string[] = [];
      request.raw.once('close', () => heard.push('request close'));
      request.raw.socket.once('close', () => {
        heard.push('socket close');
        // Node would emit the request's close in the same turn (on the next tick): one turn later, it has not.
        setImmediate(() => seen(heard));
      });
      handling();
      return new Promise(() => undefined);
    });
    await hangUp.listen({ host: '127.0.0.1', port: 0 });
    const socket = connect((hangUp.server.address() as AddressInfo).port, '127.0.0.1', () => socket.write('GET /wait HTTP/1.1\r\nHost: x\r\n\r\n'));
    await handled;
    socket.destroy();
    expect(await events).toEqual(['socket close']);
    await hangUp.close();
  });
});
