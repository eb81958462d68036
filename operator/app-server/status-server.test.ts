import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { RuntimeAppReport } from './report.ts';
import { startStatusServer, type StatusServer } from './status-server.ts';

const report: RuntimeAppReport = { namespace: 'p', app: 'a', servingBuildId: 'b-1', hosts: ['a.p.apps.localhost'], url: 'https://a.p.apps.localhost', servedGeneration: 1, observedGeneration: 1 };
let server: StatusServer | undefined;
afterEach(async () => server?.close());

async function start(ready: boolean) {
  const registry = new Registry();
  server = await startStatusServer({
    port: 0,
    host: '127.0.0.1',
    registry,
    healthy: () => true,
    ready: () => ready,
    report: (namespace, app) => (namespace === 'p' && app === 'a' ? report : undefined),
    reports: () => [report],
  });
  return `http://127.0.0.1:${server.port}`;
}

describe('status server', () => {
  it('answers the report of an app it knows, and 404 (a problem document) otherwise', async () => {
    const url = await start(true);
    const found = await fetch(`${url}/apps/p/a`);
    expect([found.status, await found.json()]).toEqual([200, report]);
    for (const path of ['/apps/p/other', '/apps/P/a', '/apps/p', '/apps/p/a/b', '/nope']) {
      const res = await fetch(`${url}${path}`);
      expect([path, res.status, res.headers.get('content-type')]).toEqual([path, 404, 'application/problem+json']);
      await res.body?.cancel();
    }
    expect(await (await fetch(`${url}/apps`)).json()).toEqual({ apps: [report] });
  });

  it('serves probes and metrics, and only GET', async () => {
    const url = await start(false);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(503);
    expect((await fetch(`${url}/metrics`)).status).toBe(200);
    expect((await fetch(`${url}/apps/p/a`, { method: 'POST' })).status).toBe(405);
  });
});
