import Fastify, { type FastifyReply, type RouteHandlerMethod } from 'fastify';
import './auth.ts';
import { EventEmitter, once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { countedWhileRunning, HELD_AFTER_HANG_UP_MS, InFlightLimit } from './in-flight.ts';
import { problemDetails } from './problem-details.ts';
import { callerRateLimiter, rateLimit, type CallerLimits } from './rate-limit.ts';

/**
 * An app listening on a real socket (a request's slot is given back when its response closes, which needs one),
 * with the caller limit behind a stand-in for the auth plugin (the bearer value is the user) and routes whose
 * answers wait until the test releases them.
 */
async function boundedApp(limits: CallerLimits, now: () => number = Date.now) {
  const app = Fastify();
  problemDetails(app);
  app.decorateRequest('principal', undefined);
  app.addHook('onRequest', async (request) => {
    const userId = request.headers.authorization?.slice('Bearer '.length);
    if (userId) request.principal = { userId, tokenId: `${userId}.1`, scopes: [], admin: false };
  });
  rateLimit(app, callerRateLimiter(limits, now));
  const arrived = new EventEmitter();
  const closed = new EventEmitter();
  let release: () => void = () => {};
  let released = new Promise<void>((resolve) => (release = resolve));
  const held = async (reply: FastifyReply) => {
    // Registered after the limiter's own listener: when this one runs, the slot is given back (or, while the
    // handler runs, once it returns).
    reply.raw.once('close', () => closed.emit('closed'));
    arrived.emit('arrived');
    await released;
    return { ok: true };
  };
  app.get('/slow', async (_request, reply) => held(reply));
  app.get('/followed', { config: { countsInFlight: false } }, async (_request, reply) => held(reply));
  // A route telling its callers by a credential of their own, several of which one holder may have (a project's query tokens).
  app.get(
    '/query/:holder',
    { config: { rateLimitBy: (request) => request.headers['x-credential'] as string, inFlightBy: (request) => `holder:${(request.params as { holder: string }).holder}` } },
    async (_request, reply) => held(reply),
  );
  app.get('/x', async () => ({ ok: true }));
  app.post('/x', async () => ({ ok: true }));
  app.delete('/x', async () => ({ ok: true }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const call = (user: string, path: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, { ...init, headers: user.startsWith('credential:') ? { 'x-credential': user } : { authorization: `Bearer ${user}` } });
  /** Sends a held request and waits until its handler has it; `answer` is its response once released. */
  const hold = async (user: string, path = '/slow', signal?: AbortSignal) => {
    const arrival = once(arrived, 'arrived');
    const answer = call(user, path, signal ? { signal } : {});
    await arrival;
    return { answer };
  };
  const releaseAll = () => {
    release();
    released = new Promise<void>((resolve) => (release = resolve));
  };
  return { app, call, hold, releaseAll, closed };
}

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe('requests in flight per user', () => {
  it("refuses a user's request past their bound with 429, lets other users in, and lets the next in once one is answered", async () => {
    const bounded = await boundedApp({ perSecond: 1000, burst: 1000, inFlight: 2 });
    cleanup = () => bounded.app.close();
    const first = (await bounded.hold('ann')).answer;
    const second = (await bounded.hold('ann')).answer;
    const refused = await bounded.call('ann', '/x');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as { detail: string }).detail).toBe('2 requests of yours are in flight already; retry once one has been answered.');
    // Another user's requests are theirs to count.
    const bobs = (await bounded.hold('bob')).answer;
    expect((await bounded.call('bob', '/x')).status).toBe(200);
    bounded.releaseAll();
    expect((await Promise.all([first, second, bobs])).map((r) => r.status)).toEqual([200, 200, 200]);
    expect((await bounded.call('ann', '/x')).status).toBe(200);
  });

  it('gives the slot of a caller who hung up back once the handler returns, not before (review-161 F5)', async () => {
    const bounded = await boundedApp({ perSecond: 1000, burst: 1000, inFlight: 1 });
    cleanup = () => bounded.app.close();
    const abort = new AbortController();
    const gone = (await bounded.hold('ann', '/slow', abort.signal)).answer.catch(() => 'aborted');
    expect((await bounded.call('ann', '/x')).status).toBe(429);
    const closed = once(bounded.closed, 'closed');
    abort.abort();
    expect(await gone).toBe('aborted');
    await closed;
    // The handler still works for the caller who left: hanging up and asking again must not start more at once.
    expect((await bounded.call('ann', '/x')).status).toBe(429);
    bounded.releaseAll();
    expect((await bounded.call('ann', '/x')).status).toBe(200);
  });

  it('does not count a route held open for minutes that bounds of its own count (a followed log)', async () => {
    const bounded = await boundedApp({ perSecond: 1000, burst: 1000, inFlight: 1 });
    cleanup = () => bounded.app.close();
    const followed = [(await bounded.hold('ann', '/followed')).answer, (await bounded.hold('ann', '/followed')).answer];
    expect((await bounded.call('ann', '/x')).status).toBe(200);
    bounded.releaseAll();
    expect((await Promise.all(followed)).map((r) => r.status)).toEqual([200, 200]);
  });
});

describe('requests in flight per credential holder', () => {
  it("counts a holder's credentials together where the route says whose they are (review-161 F3)", async () => {
    const bounded = await boundedApp({ perSecond: 1000, burst: 1000, inFlight: 2 });
    cleanup = () => bounded.app.close();
    const first = (await bounded.hold('credential:one', '/query/shop')).answer;
    const second = (await bounded.hold('credential:two', '/query/shop')).answer;
    // A third credential of the same holder finds the bound full; another holder's does not.
    expect((await bounded.call('credential:three', '/query/shop')).status).toBe(429);
    const other = (await bounded.hold('credential:four', '/query/blog')).answer;
    bounded.releaseAll();
    expect((await Promise.all([first, second, other])).map((r) => r.status)).toEqual([200, 200, 200]);
  });
});

describe('InFlightLimit', () => {
  it('gives each limit its own caller back when one response is counted by two (review-161 F9)', () => {
    const [users, projects] = [new InFlightLimit(1), new InFlightLimit(1)];
    const response = new EventEmitter();
    const reply = { raw: response } as unknown as FastifyReply;
    users.enter('ann', reply);
    projects.enter('shop', reply);
    expect([users.hasRoom('ann'), projects.hasRoom('shop')]).toEqual([false, false]);
    response.emit('close');
    expect([users.hasRoom('ann'), projects.hasRoom('shop')]).toEqual([true, true]);
  });

  it('gives the slot back when a handler whose caller hung up fails, synchronously or not', async () => {
    const users = new InFlightLimit(1);
    const enterAndClose = (handler: RouteHandlerMethod) => {
      const reply = { raw: new EventEmitter() } as unknown as FastifyReply;
      users.enter('ann', reply);
      let result: unknown;
      const wrapped = countedWhileRunning(function (this: unknown, request, reply) {
        (reply.raw as unknown as EventEmitter).emit('close');
        return handler.call(this as never, request, reply);
      });
      try {
        result = wrapped.call(undefined as never, {} as never, reply);
      } catch (err) {
        result = err;
      }
      return result;
    };
    let fail: (err: Error) => void = () => {};
    const rejected = enterAndClose(() => new Promise((_resolve, reject) => (fail = reject))) as Promise<unknown>;
    expect(users.hasRoom('ann')).toBe(false);
    fail(new Error('the apiserver went away'));
    await expect(rejected).rejects.toThrow('the apiserver went away');
    expect(users.hasRoom('ann')).toBe(true);
    expect(
      enterAndClose(() => {
        throw new Error('bad');
      }),
    ).toEqual(new Error('bad'));
    expect(users.hasRoom('ann')).toBe(true);
  });

  it('gives the slot of a caller who hung up back at the ceiling if the handler never settles, and once only (review-167 F2)', async () => {
    vi.useFakeTimers();
    try {
      const users = new InFlightLimit(2);
      const open = () => {
        const reply = { raw: new EventEmitter() } as unknown as FastifyReply;
        users.enter('ann', reply);
        return reply;
      };
      open(); // another request of ann's, still running
      const hung = open();
      let settle: () => void = () => {};
      const wrapped = countedWhileRunning(() => new Promise<void>((resolve) => (settle = resolve)));
      const running = wrapped.call(undefined as never, {} as never, hung) as Promise<unknown>;
      (hung.raw as unknown as EventEmitter).emit('close');
      await vi.advanceTimersByTimeAsync(HELD_AFTER_HANG_UP_MS - 1);
      expect(users.hasRoom('ann')).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(users.hasRoom('ann')).toBe(true);
      // Settling later gives nothing back twice: ann's other request still counts.
      settle();
      await running;
      open();
      expect(users.hasRoom('ann')).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('writes per user', () => {
  it("limits a user's writes apart from their reads, each user on their own", async () => {
    let now = 0;
    const bounded = await boundedApp({ perSecond: 1000, burst: 1000, writes: { perSecond: 1, burst: 2 } }, () => now);
    cleanup = () => bounded.app.close();
    expect([(await bounded.call('ann', '/x', { method: 'POST' })).status, (await bounded.call('ann', '/x', { method: 'DELETE' })).status]).toEqual([200, 200]);
    const refused = await bounded.call('ann', '/x', { method: 'POST' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as { detail: string }).detail).toBe('Write limit of 1 writes per second exceeded; retry in 1 s.');
    // Reads go on, and so do another user's writes.
    expect((await bounded.call('ann', '/x')).status).toBe(200);
    expect((await bounded.call('bob', '/x', { method: 'POST' })).status).toBe(200);
    now += 1000;
    expect((await bounded.call('ann', '/x', { method: 'POST' })).status).toBe(200);
    expect((await bounded.call('ann', '/x', { method: 'POST' })).status).toBe(429);
  });

  it('spends nothing of the request bucket for a write refused by the write limit', async () => {
    const bounded = await boundedApp({ perSecond: 1, burst: 3, writes: { perSecond: 1, burst: 1 } }, () => 0);
    cleanup = () => bounded.app.close();
    expect((await bounded.call('ann', '/x', { method: 'POST' })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await bounded.call('ann', '/x', { method: 'POST' })).status).toBe(429);
    // Two requests of the burst of three are left: the refused writes took none.
    expect([(await bounded.call('ann', '/x')).status, (await bounded.call('ann', '/x')).status, (await bounded.call('ann', '/x')).status]).toEqual([200, 200, 429]);
  });
});
