import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { RuntimeAppReport } from '../src/runtime-contract/report.ts';
import { startStatusServer, type StatusServer } from './status-server.ts';
import { AppLogs, type AppLogEntry } from '../src/runtime-contract/app-logs.ts';
import { EventStream } from '../git-server/repo-api/testing/event-stream-client.ts';
import { MetricsWindow } from './metrics-window/metrics-window.ts';

const report: RuntimeAppReport = { namespace: 'p', app: 'a', servingBuildId: 'b-1', hosts: ['a.p.apps.localhost'], url: 'https://a.p.apps.localhost', servedGeneration: 1, observedGeneration: 1 };
const logs = new AppLogs();
const TOKEN = 't'.repeat(40);
/** What cw-api sends: the shared status token. */
const auth = { headers: { authorization: `Bearer ${TOKEN}` } };
let server: StatusServer | undefined;
afterEach(async () => server?.close());

/** A window with one minute of app `p/a`: three 2xx and a 5xx. */
const window = new MetricsWindow({ started: 1_000_000 });
window.observe(new Map([['p/a', { classes: [0, 3, 0, 0, 1], buckets: [4], count: 4, exceptions: 1 }]]), 1_000_000);

async function start(ready: boolean, logStreamsPerCaller?: number, token: string | undefined = TOKEN) {
  const registry = new Registry();
  server = await startStatusServer({
    ...(logStreamsPerCaller ? { logStreamsPerCaller } : {}),
    ...(token ? { token } : {}),
    port: 0,
    host: '127.0.0.1',
    registry,
    healthy: () => true,
    notReady: () => (ready ? undefined : 'starting: the entry point does not listen yet'),
    report: (namespace, app) => (namespace === 'p' && app === 'a' ? report : undefined),
    reports: () => [report],
    logs: () => ({ recentPerApp: logs.recentPerApp, recent: (key, limit) => logs.recent(key, limit), follow: async (key, listener) => logs.subscribe(key, listener) }),
    metrics: () => ({ app: async (namespace, app, since) => window.app(`${namespace}/${app}`, since), namespace: async (namespace, since) => window.namespaceTotals(namespace, since) }),
  });
  return `http://127.0.0.1:${server.port}`;
}

describe('status server', () => {
  it('answers the report of an app it knows, and 404 (a problem document) otherwise', async () => {
    const url = await start(true);
    const found = await fetch(`${url}/apps/p/a`, auth);
    expect([found.status, await found.json()]).toEqual([200, report]);
    for (const path of ['/apps/p/other', '/apps/P/a', '/apps/p', '/apps/p/a/b', '/nope']) {
      const res = await fetch(`${url}${path}`, auth);
      expect([path, res.status, res.headers.get('content-type')]).toEqual([path, 404, 'application/problem+json']);
      await res.body?.cancel();
    }
    expect(await (await fetch(`${url}/apps`, auth)).json()).toEqual({ apps: [report] });
  });

  it('answers its app routes (reports, logs) only to the holder of the status token: 401 otherwise, probes and metrics open', async () => {
    const url = await start(true);
    for (const path of ['/apps', '/apps/p/a', '/apps/p/a/logs?follow=false', '/apps/p/other', '/apps/p/a/metrics', '/namespaces/p/app-metrics']) {
      for (const authorization of [undefined, 'Bearer wrong', `Bearer ${TOKEN}x`, `Basic ${TOKEN}`]) {
        const res = await fetch(`${url}${path}`, authorization ? { headers: { authorization } } : {});
        expect([path, authorization, res.status, res.headers.get('www-authenticate'), res.headers.get('content-type')]).toEqual([path, authorization, 401, 'Bearer', 'application/problem+json']);
        expect(await res.text()).not.toContain('a.p.apps.localhost');
      }
    }
    for (const path of ['/healthz', '/readyz', '/metrics']) expect((await fetch(`${url}${path}`)).status, path).toBe(200);
  });

  it('answers an app’s minutes since a time, and a namespace’s totals; 400 for a since that is not a time', async () => {
    const url = await start(true);
    const app = await (await fetch(`${url}/apps/p/a/metrics?since=0`, auth)).json();
    expect(app).toMatchObject({ started: 1_000_000, minutes: [{ start: 960_000, classes: [0, 3, 0, 0, 1], exceptions: 1, refused: 0 }], builds: {} });
    expect(((await (await fetch(`${url}/apps/p/a/metrics?since=1020000`, auth)).json()) as { minutes: unknown[] }).minutes).toEqual([]);
    expect(await (await fetch(`${url}/namespaces/p/app-metrics?since=0`, auth)).json()).toEqual({
      started: 1_000_000,
      apps: { a: { requests: 4, errors: 1, buckets: [4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] } },
    });
    // The app named `metrics` keeps its report route.
    expect((await fetch(`${url}/apps/p/metrics`, auth)).status).toBe(404);
    for (const since of ['-5', 'yesterday', '1e9']) expect((await fetch(`${url}/apps/p/a/metrics?since=${since}`, auth)).status, since).toBe(400);
  });

  it('answers its app routes to nobody when it has no token', async () => {
    const url = await start(true, undefined, '');
    const res = await fetch(`${url}/apps`, auth);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { detail: string }).detail).toBe('This replica has no status token (CW_RUNTIME_STATUS_TOKEN), so its app routes answer nobody.');
  });

  it('serves probes and metrics, and only GET', async () => {
    const url = await start(false);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const readyz = await fetch(`${url}/readyz`);
    expect(readyz.status).toBe(503);
    expect(await readyz.text()).toBe('not ok: starting: the entry point does not listen yet');
    expect((await fetch(`${url}/metrics`)).status).toBe(200);
    expect((await fetch(`${url}/apps/p/a`, { method: 'POST' })).status).toBe(405);
  });

  it('streams an app’s recent log entries, then its new ones as they come, and none of another app', async () => {
    const url = await start(true);
    const entry = (buildId: string): AppLogEntry => ({ time: new Date().toISOString(), buildId, outcome: 'ok', status: 200, logs: [], exceptions: [] });
    logs.add('p/a', entry('old-1'));
    logs.add('p/a', entry('old-2'));
    const stream = await EventStream.open(`${url}/apps/p/a/logs?recent=1`, auth);
    expect([stream.status, stream.headers['content-type']]).toEqual([200, 'text/event-stream']);
    expect(await stream.next()).toEqual({ event: 'log', data: expect.objectContaining({ buildId: 'old-2' }) });
    expect(await stream.next()).toEqual({ event: 'live', data: {} });
    logs.add('p/other', entry('theirs'));
    logs.add('p/a', entry('new'));
    expect(await stream.next()).toEqual({ event: 'log', data: expect.objectContaining({ buildId: 'new' }) });
    stream.close();
  });

  it('lets one caller address follow at most its number of log streams (429 past it), and frees one as it closes', async () => {
    const url = await start(true, 2);
    const first = await EventStream.open(`${url}/apps/p/a/logs?recent=0`, auth);
    const second = await EventStream.open(`${url}/apps/p/a/logs?recent=0`, auth);
    expect(await first.next()).toEqual({ event: 'live', data: {} });
    expect(await second.next()).toEqual({ event: 'live', data: {} });
    const refused = await fetch(`${url}/apps/p/a/logs`, auth);
    expect([refused.status, refused.headers.get('content-type'), refused.headers.get('retry-after')]).toEqual([429, 'application/problem+json', '10']);
    expect(((await refused.json()) as { detail: string }).detail).toBe('This address follows 2 log streams at once, the most a caller may; close one and retry.');
    first.close();
    // The server learns of the closed stream when its socket closes: the next open succeeds once it has.
    const third = await eventuallyOpen(`${url}/apps/p/a/logs?recent=0`);
    expect(await third.next()).toEqual({ event: 'live', data: {} });
    second.close();
    third.close();
  });
});

/** Opens the stream, trying again while the server still counts a stream just closed (429). */
async function eventuallyOpen(url: string): Promise<EventStream> {
  for (let attempt = 0; ; attempt++) {
    const stream = await EventStream.open(url, auth);
    if (stream.status === 200 || attempt === 50) return stream;
    stream.close();
    await new Promise((resolve) => setImmediate(resolve));
  }
}
