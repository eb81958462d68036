import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
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

  it('gives a request five minutes to arrive whole (Node\'s default, which Fastify turns off)', () => {
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
