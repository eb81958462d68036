import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { browserLane, corsDecision, CORS_MAX_AGE } from './browser-lane.ts';

const ALLOWED = new Set(['https://app.example.com']);

describe('corsDecision', () => {
  it.each([
    [undefined, 'GET', 'none'],
    [undefined, 'POST', 'none'],
    ['https://app.example.com', 'GET', 'allowed'],
    ['https://app.example.com', 'PUT', 'allowed'],
    ['https://app.example.com', 'OPTIONS', 'allowed'],
    ['https://evil.example.com', 'GET', 'unlisted'],
    ['https://evil.example.com', 'HEAD', 'unlisted'],
    ['https://evil.example.com', 'POST', 'refused'],
    ['https://evil.example.com', 'OPTIONS', 'refused'],
    ['https://app.example.com:8443', 'GET', 'unlisted'], // another port is another origin
    ['http://app.example.com', 'DELETE', 'refused'], // and so is another scheme
    ['null', 'GET', 'unlisted'],
  ] as const)('%s %s → %s', (origin, method, kind) => {
    expect(corsDecision(ALLOWED, origin, method).kind).toBe(kind);
  });
});

describe('browserLane on a scope', () => {
  async function lane() {
    const app = Fastify();
    await app.register(
      async (scope) => {
        browserLane([...ALLOWED])(scope);
        scope.get('/thing', async (_request, reply) => reply.header('etag', '"x"').send({ ok: true }));
      },
      { prefix: '/o/r/api-browser' },
    );
    return app;
  }

  it('adds CORS headers for a listed origin, none for another, and Vary: Origin always', async () => {
    const app = await lane();
    const allowed = await app.inject({ url: '/o/r/api-browser/thing', headers: { origin: 'https://app.example.com' } });
    expect(allowed.headers).toMatchObject({ 'access-control-allow-origin': 'https://app.example.com', 'access-control-allow-credentials': 'true', vary: 'Origin' });
    expect(allowed.headers['access-control-expose-headers']).toContain('ETag');
    const other = await app.inject({ url: '/o/r/api-browser/thing', headers: { origin: 'https://evil.example.com' } });
    expect([other.statusCode, other.headers['access-control-allow-origin'], other.headers.vary]).toEqual([200, undefined, 'Origin']);
    const none = await app.inject({ url: '/o/r/api-browser/thing' });
    expect([none.statusCode, none.headers['access-control-allow-origin']]).toEqual([200, undefined]);
  });

  it('answers preflights: 204 with methods, headers and max-age for a listed origin, 403 for another', async () => {
    const app = await lane();
    const ok = await app.inject({ method: 'OPTIONS', url: '/o/r/api-browser/thing', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' } });
    expect(ok.statusCode).toBe(204);
    expect(ok.headers).toMatchObject({ 'access-control-allow-origin': 'https://app.example.com', 'access-control-max-age': String(CORS_MAX_AGE) });
    expect(ok.headers['access-control-allow-headers']).toContain('Range');
    const root = await app.inject({ method: 'OPTIONS', url: '/o/r/api-browser', headers: { origin: 'https://app.example.com' } });
    expect(root.statusCode).toBe(204);
    const refused = await app.inject({ method: 'OPTIONS', url: '/o/r/api-browser/thing', headers: { origin: 'https://evil.example.com' } });
    expect([refused.statusCode, refused.headers['access-control-allow-origin']]).toEqual([403, undefined]);
  });

  it('refuses writes from another origin with 403, and answers the rest 404 as /api would', async () => {
    const app = await lane();
    const refused = await app.inject({ method: 'POST', url: '/o/r/api-browser/commits', headers: { origin: 'https://evil.example.com' } });
    expect([refused.statusCode, refused.json().error]).toEqual([403, 'origin_not_allowed']);
    const listed = await app.inject({ method: 'POST', url: '/o/r/api-browser/commits', headers: { origin: 'https://app.example.com' } });
    expect([listed.statusCode, listed.json().error, listed.headers['access-control-allow-origin']]).toEqual([404, 'not_found', 'https://app.example.com']);
  });
});
