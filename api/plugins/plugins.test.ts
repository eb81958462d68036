import Fastify from 'fastify';
import './auth.ts';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { problemDetails } from './problem-details.ts';
import { rateLimit, type RateLimitOptions } from './rate-limit.ts';

describe('routing errors', () => {
  it('answers a known path with another method 405 and Allow', async () => {
    const app = await buildApp({ readiness: [] });
    const res = await app.inject({ method: 'DELETE', url: '/healthz' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.json()).toMatchObject({ title: 'Method Not Allowed', status: 405 });
    await app.close();
  });

  it.each(['/v1/domain-availability?domain=example.com', '/v1/domain-prices?tld=com', '/v1/projects/p1/domain-orders', '/v1/projects/p1/domain-orders/o1'])(
    'does not serve the planned route %s',
    async (url) => {
      const app = await buildApp({ readiness: [] });
      for (const method of ['GET', 'POST'] as const) {
        const res = await app.inject({ method, url });
        expect(res.statusCode).toBe(404);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      }
      await app.close();
    },
  );

  it('echoes a plain x-request-id and replaces one that could forge log lines', async () => {
    const app = await buildApp({ readiness: [] });
    const kept = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
    expect(kept.headers['x-request-id']).toBe('abc-123');
    const replaced = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'a\nfake log line' } });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    await app.close();
  });

  it('never writes a bearer token into the access log', async () => {
    let logged = '';
    const stream = new Writable({ write: (chunk, _enc, done) => ((logged += String(chunk)), done()) });
    const app = await buildApp({ readiness: [] }, { logger: { level: 'trace', stream } });
    const token = 'cwt_SECRETSECRETSECRETSECRETSECRETSECRETSECRETSEC';
    await app.inject({ method: 'GET', url: '/healthz', headers: { authorization: `Bearer ${token}` } });
    await app.inject({ method: 'GET', url: '/nope', headers: { authorization: `Bearer ${token}` } });
    expect(logged).toContain('"path":"/healthz"');
    expect(logged).not.toContain('SECRET');
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
    const tokenId = request.headers.authorization?.slice('Bearer '.length) ?? '';
    request.principal = { userId: 'u', tokenId, scopes: [], admin: false };
  });
  rateLimit(app, options, now);
  app.get('/x', async () => ({ ok: true }));
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
    expect(limited.json().detail).toContain('2 requests per second');
    expect((await call('b')).statusCode).toBe(200); // callers do not share a bucket
    now += 500; // half a second refills one request
    expect((await call('a')).statusCode).toBe(200);
    expect((await call('a')).statusCode).toBe(429);
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
