import { describe, expect, it } from 'vitest';
import { buildApp } from './app.ts';

describe('CW_API_TRUST_PROXY', () => {
  it('limits callers without a token by the address the trusted proxy forwards, not by the proxy', async () => {
    const requests = (app: Awaited<ReturnType<typeof buildApp>>, client: string) => app.inject({ method: 'GET', url: '/nope', remoteAddress: '10.1.2.3', headers: { 'x-forwarded-for': client } });
    const limits = { perSecond: 1, burst: 2 };
    const behind = await buildApp({ rateLimit: limits }, { trustProxy: ['10.0.0.0/8'] });
    const statuses = async (app: typeof behind, client: string) => [(await requests(app, client)).statusCode, (await requests(app, client)).statusCode, (await requests(app, client)).statusCode];
    // Each client spends its own bucket…
    expect(await statuses(behind, '203.0.113.1')).toEqual([404, 404, 429]);
    expect(await statuses(behind, '203.0.113.2')).toEqual([404, 404, 429]);
    await behind.close();
    // …where without trusting the proxy every client is the proxy, and the second is refused at once.
    const untrusting = await buildApp({ rateLimit: limits });
    expect(await statuses(untrusting, '203.0.113.1')).toEqual([404, 404, 429]);
    expect(await statuses(untrusting, '203.0.113.2')).toEqual([429, 429, 429]);
    await untrusting.close();
  });
});
