import { describe, expect, it } from 'vitest';
import { buildApp } from './app.ts';
import { trustProxyFromEnv } from './server.ts';

describe('CW_API_TRUST_PROXY', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['true', true],
    ['false', false],
    ['10.0.0.0/8, 127.0.0.1', ['10.0.0.0/8', '127.0.0.1']],
    ['fd00::/8', ['fd00::/8']],
  ])('reads %j as %j', (value, expected) => {
    expect(trustProxyFromEnv(value)).toEqual(expected);
  });

  it.each(['yes', '2', '10.0.0.0/8;127.0.0.1', 'proxy.internal'])('refuses %j, naming the variable', (value) => {
    expect(() => trustProxyFromEnv(value)).toThrow(/^CW_API_TRUST_PROXY must be true, false or a comma-separated list of addresses and CIDR ranges/);
  });

  it('limits callers without a token by the address the trusted proxy forwards, not by the proxy', async () => {
    const requests = (app: Awaited<ReturnType<typeof buildApp>>, client: string) =>
      app.inject({ method: 'GET', url: '/nope', remoteAddress: '10.1.2.3', headers: { 'x-forwarded-for': client } });
    const limits = { perSecond: 1, burst: 2 };
    const behind = await buildApp({ readiness: [], rateLimit: limits }, { trustProxy: ['10.0.0.0/8'] });
    const statuses = async (app: typeof behind, client: string) => [(await requests(app, client)).statusCode, (await requests(app, client)).statusCode, (await requests(app, client)).statusCode];
    // Each client spends its own bucket…
    expect(await statuses(behind, '203.0.113.1')).toEqual([404, 404, 429]);
    expect(await statuses(behind, '203.0.113.2')).toEqual([404, 404, 429]);
    await behind.close();
    // …where without trusting the proxy every client is the proxy, and the second is refused at once.
    const untrusting = await buildApp({ readiness: [], rateLimit: limits });
    expect(await statuses(untrusting, '203.0.113.1')).toEqual([404, 404, 429]);
    expect(await statuses(untrusting, '203.0.113.2')).toEqual([429, 429, 429]);
    await untrusting.close();
  });
});
