import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { issueToken, type Scope } from '../../src/auth/index.ts';
import { MemoryTokenStore } from '../../src/auth/memory-token-store.ts';
import { auth } from './auth.ts';
import { Problem } from '../schemas/problem.ts';
import { problemDetails } from './problem-details.ts';
import { callerRateLimiter, rateLimit } from './rate-limit.ts';
import type { RateLimitOptions } from './token-buckets.ts';

/** The auth plugin on a memory store, with one route for any token and one per project; the clock is `clock.ms`. */
async function authApp(failureLimit: RateLimitOptions, callerLimit?: RateLimitOptions) {
  const clock = { ms: Date.parse('2030-06-01T12:00:00Z') };
  const now = () => new Date(clock.ms);
  const store = new MemoryTokenStore({ users: [{ id: 'alice', admin: false }], memberships: { 'proj-a': { alice: 'owner' } } });
  const app = Fastify({ trustProxy: true });
  app.addSchema(Problem);
  problemDetails(app);
  const limiter = callerLimit && callerRateLimiter(callerLimit, () => clock.ms);
  auth(app, store, now, { failureLimit, ...(limiter ? { chargeRefusal: limiter.chargeRefusal } : {}) });
  if (limiter) rateLimit(app, limiter);
  app.get('/me', { config: { auth: { scope: 'projects:read' } } }, async () => ({ ok: true }));
  app.get('/projects/:projectId', { config: { auth: { scope: 'projects:read', project: true } } }, async () => ({ ok: true }));
  await app.ready();
  const token = async (scopes: Scope[] = ['projects:read']) => (await issueToken('alice', { scopes, description: 't' }, store, now())).token;
  /** The status of GET `url` from `address` with `authorization`. */
  const status = async (url: string, address: string, authorization?: string) => (await call(url, address, authorization)).statusCode;
  const call = (url: string, address: string, authorization?: string) => app.inject({ method: 'GET', url, headers: { 'x-forwarded-for': address, ...(authorization ? { authorization } : {}) } });
  return { app, clock, token, status, call };
}

describe('failed authentication limit', () => {
  it('answers 429 to an address that keeps failing, until its allowance refills, and still admits a valid token from it', async () => {
    const { app, clock, token, status, call } = await authApp({ perSecond: 1, burst: 2 });
    const valid = `Bearer ${await token()}`;
    const other = await token();
    // Its last character changed (to one it is not: a token ending in x would otherwise stay valid).
    const forged = `Bearer ${other.slice(0, -1)}${other.endsWith('x') ? 'y' : 'x'}`;
    expect([await status('/me', '10.0.0.1'), await status('/me', '10.0.0.1', forged)]).toEqual([401, 401]);
    // Behind one ingress every client has this address: a valid token never seen before is not locked out.
    expect(await status('/me', '10.0.0.1', valid)).toBe(200);
    expect(await status('/projects/proj-a', '10.0.0.1', `Bearer ${await token()}`)).toBe(200);
    const refused = await call('/me', '10.0.0.1', forged);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.json().detail).toBe('Too many requests with a missing or invalid token from this address (limit: 1 requests per second); retry in 1 s.');
    expect(await status('/me', '10.0.0.2', forged)).toBe(401); // other addresses are not held up
    clock.ms += 1000;
    expect(await status('/me', '10.0.0.1', forged)).toBe(401);
    await app.close();
  });

  it('counts the failures of every IPv6 address of one /64 together, which one client usually holds', async () => {
    const { app, token, status } = await authApp({ perSecond: 1, burst: 2 });
    const valid = `Bearer ${await token()}`;
    expect([await status('/me', '2001:db8:1:2::1'), await status('/me', '2001:db8:1:2::2')]).toEqual([401, 401]);
    expect(await status('/me', '2001:db8:1:2:ffff::3')).toBe(429);
    expect(await status('/me', '2001:db8:1:2:ffff::3', valid)).toBe(200);
    expect(await status('/me', '2001:db8:1:3::1')).toBe(401); // the next /64 is someone else
    await app.close();
  });

  it('does not hold up a caller already authenticated from a failing address, and never counts successes or 403s', async () => {
    const { app, token, status } = await authApp({ perSecond: 1, burst: 1 });
    const valid = `Bearer ${await token()}`;
    for (let i = 0; i < 3; i++) expect(await status('/me', '10.0.0.1', valid)).toBe(200);
    for (let i = 0; i < 3; i++) expect(await status('/projects/proj-b', '10.0.0.1', valid)).toBe(403); // authenticated, not a member
    expect(await status('/me', '10.0.0.1')).toBe(401); // spends the one failure allowed
    expect(await status('/me', '10.0.0.1')).toBe(429);
    expect(await status('/me', '10.0.0.1', valid)).toBe(200);
    expect(await status('/projects/proj-a', '10.0.0.1', valid)).toBe(200);
    await app.close();
  });

  it("counts a token's refused requests (403) against its own rate limit", async () => {
    const { app, token, call } = await authApp({ perSecond: 100, burst: 100 }, { perSecond: 1, burst: 2 });
    const valid = `Bearer ${await token()}`;
    expect((await call('/projects/proj-b', '10.0.0.1', valid)).statusCode).toBe(403);
    const remaining = await call('/projects/proj-b', '10.0.0.1', valid);
    expect([remaining.statusCode, remaining.headers['x-ratelimit-remaining']]).toEqual([403, '0']);
    expect((await call('/projects/proj-a', '10.0.0.1', valid)).statusCode).toBe(429);
    await app.close();
  });
});

describe('routes without an auth declaration', () => {
  it.each([
    ['a hidden route', '/internal', { schema: { hide: true } }],
    ['a route whose path only starts like the reference', '/docs-admin', {}],
    ['any other route', '/me', {}],
  ])('refuses %s at registration: nothing is public by accident', async (_name, url, options) => {
    const app = Fastify();
    auth(app, new MemoryTokenStore(), () => new Date(), { failureLimit: { perSecond: 1, burst: 1 } });
    expect(() => app.get(url, options, async () => ({ ok: true }))).toThrow(`route GET ${url} declares no config.auth`);
    await app.close();
  });

  it('lets the interactive reference’s own routes (under /docs/) leave it out', async () => {
    const app = Fastify();
    auth(app, new MemoryTokenStore(), () => new Date(), { failureLimit: { perSecond: 1, burst: 1 } });
    app.get('/docs/static/app.js', async () => 'js');
    await app.ready();
    expect((await app.inject({ method: 'GET', url: '/docs/static/app.js' })).statusCode).toBe(200);
  });
});
