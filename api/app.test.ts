import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { connect, type AddressInfo } from 'node:net';
import { buildApp, REQUEST_TIMEOUT_MS } from './app.ts';

describe('health and problem details', () => {
  let reachable = true;
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildApp({
      readiness: [
        {
          name: 'kube-apiserver',
          check: async () => {
            if (!reachable) throw new Error('connect ECONNREFUSED 127.0.0.1:6443 (internal detail)');
          },
        },
      ],
    });
  });
  afterAll(() => app.close());

  it("gives a request five minutes to arrive whole (Node's default, which Fastify turns off)", () => {
    expect(REQUEST_TIMEOUT_MS).toBe(300_000);
    expect(app.server.requestTimeout).toBe(REQUEST_TIMEOUT_MS);
  });

  it('answers /healthz while the process serves', async () => {
    const res = await app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('is ready when every dependency answers', async () => {
    reachable = true;
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
  });

  it('names the unreachable dependency in a 503 problem detail without its internals', async () => {
    reachable = false;
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['retry-after']).toBe('5');
    const body = res.json();
    expect(body).toMatchObject({ title: 'Service Unavailable', status: 503 });
    expect(body.detail).toContain('kube-apiserver');
    expect(body.detail).not.toContain('ECONNREFUSED');
  });

  it('answers an unknown route with a 404 problem detail', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/nothing-here?x=1' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toEqual({ title: 'Not Found', status: 404, detail: 'No route GET /v1/nothing-here.' });
  });
});

describe('requests Node refuses before Fastify sees them', () => {
  /** What the server answers to `raw` sent over a fresh connection, up to its closing it. */
  async function exchange(raw: string): Promise<string> {
    const app = await buildApp({ readiness: [] });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    try {
      return await new Promise<string>((resolve, reject) => {
        let answer = '';
        const socket = connect(port, '127.0.0.1', () => socket.write(raw));
        socket.on('data', (chunk) => (answer += String(chunk)));
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
      });
    } finally {
      await app.close();
    }
  }

  it.each([
    ['a garbled request line', 'GARBAGE\r\n\r\n', 400, 'The request is not valid HTTP.'],
    ['headers past the size limit', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'The request line and headers are larger than the server accepts.'],
  ])('answers %s with a problem detail, then closes', async (_name, raw, status, detail) => {
    const answer = await exchange(raw);
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
    expect(head.toLowerCase()).toContain('content-type: application/problem+json');
    expect(JSON.parse(body)).toEqual({ title: expect.any(String), status, detail });
  });
});
