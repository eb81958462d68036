import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { buildApp, REQUEST_TIMEOUT_MS } from './app.ts';
import { rawExchange } from '../src/fastify-plugins/testing/raw-exchange.ts';
import { DependencyMonitor } from './dependencies.ts';

describe('health and problem details', () => {
  let reachable = true;
  let app: FastifyInstance;
  let monitor: DependencyMonitor;
  const registry = new Registry();
  beforeAll(async () => {
    monitor = new DependencyMonitor(
      [
        {
          name: 'database engine',
          check: async () => {
            if (!reachable) throw new Error('connect ECONNREFUSED 127.0.0.1:8081 (internal detail)');
          },
        },
      ],
      { registry, now: () => new Date('2026-11-28T12:00:00Z') },
    );
    app = await buildApp({ dependencies: monitor, metrics: registry });
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

  it('is ready whatever its dependencies do, and says which answer: unknown, up, then down without its internals', async () => {
    const readyz = async () => {
      const res = await app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(200);
      return res;
    };
    expect((await readyz()).json()).toEqual({ status: 'ok', dependencies: [{ name: 'database engine', up: null }] });
    reachable = true;
    await monitor.checkAll();
    expect((await readyz()).json()).toEqual({ status: 'ok', dependencies: [{ name: 'database engine', up: true, since: '2026-11-28T12:00:00.000Z' }] });
    expect(await registry.getSingleMetricAsString('cloudwright_api_dependency_up')).toContain('cloudwright_api_dependency_up{dependency="database engine"} 1');
    reachable = false;
    await monitor.checkAll();
    const down = await readyz();
    expect(down.json()).toMatchObject({ dependencies: [{ name: 'database engine', up: false }] });
    expect(down.body).not.toContain('ECONNREFUSED');
    expect(await registry.getSingleMetricAsString('cloudwright_api_dependency_up')).toContain('cloudwright_api_dependency_up{dependency="database engine"} 0');
  });

  it('counts answered requests by route pattern and status class, never by raw URL', async () => {
    await app.inject({ method: 'GET', url: '/v1/nothing-here?x=1' });
    await app.inject({ method: 'GET', url: '/healthz' });
    const text = await registry.getSingleMetricAsString('cloudwright_api_request_duration_seconds');
    expect(text).toContain('cloudwright_api_request_duration_seconds_count{method="GET",route="/healthz",status_class="2xx"}');
    expect(text).toContain('route="unmatched",status_class="4xx"');
    expect(text).not.toContain('nothing-here');
  });

  it('counts them the same with a logger, where the access log reports each request to the metrics (no hook)', async () => {
    const logged = new Registry();
    const lines: string[] = [];
    const withLogger = await buildApp({ metrics: logged }, { logger: { level: 'info', stream: { write: (line: string) => void lines.push(line) } } });
    await withLogger.inject({ method: 'GET', url: '/v1/nothing-here?x=1' });
    await withLogger.inject({ method: 'GET', url: '/healthz' });
    await withLogger.inject({ method: 'GET', url: '/healthz' });
    await withLogger.close();
    const text = await logged.getSingleMetricAsString('cloudwright_api_request_duration_seconds');
    expect(text).toContain('cloudwright_api_request_duration_seconds_count{method="GET",route="/healthz",status_class="2xx"} 2');
    expect(text).toContain('cloudwright_api_request_duration_seconds_count{method="GET",route="unmatched",status_class="4xx"} 1');
    expect(lines.map((line) => (JSON.parse(line) as { path: string; status: number }).status)).toEqual([404, 200, 200]);
  });

  it('answers an unknown route with a 404 problem detail', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/nothing-here?x=1' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toEqual({ title: 'Not Found', status: 404, detail: 'No route GET /v1/nothing-here.' });
  });
});

describe('requests Node refuses before Fastify sees them', () => {
  const exchange = async (raw: string) => rawExchange(await buildApp({}), raw);

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
