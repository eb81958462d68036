// App logs through workerd's tail worker, against the real workerd (no other server needed).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppLogs, type AppLogEntry } from './app-logs.ts';
import { RuntimeEngine } from './engine.ts';
import { artifactFromFiles } from './testing/artifact-builder.ts';
import { send } from './testing/http.ts';
import { MemoryArtifactSource } from './testing/memory-artifacts.ts';

const LOGGER = `export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    console.log('serving', url.pathname, { app: env.NAME });
    console.warn('careful');
    if (url.pathname === '/boom') throw new TypeError('kaboom ' + env.NAME);
    return new Response('ok');
  },
};`;

const artifacts = new MemoryArtifactSource().put('logger', artifactFromFiles({ 'worker.js': LOGGER }));

/** Resolves with the first `count` entries `logs` receives for `key` from now on. */
function nextEntries(logs: AppLogs, key: string, count: number): Promise<AppLogEntry[]> {
  return new Promise((resolve) => {
    const got: AppLogEntry[] = [];
    const stop = logs.subscribe(key, (entry) => {
      got.push(entry);
      if (got.length === count) {
        stop();
        resolve(got);
      }
    });
  });
}

describe('AppLogs', () => {
  it('keeps a bounded buffer per app and tells only that app’s listeners', () => {
    const logs = new AppLogs({ recentPerApp: 2 });
    const seen: string[] = [];
    logs.subscribe('p/a', (e) => seen.push(e.buildId));
    const entry = (buildId: string): AppLogEntry => ({ time: new Date().toISOString(), buildId, outcome: 'ok', logs: [], exceptions: [] });
    logs.add('p/a', entry('1'));
    logs.add('p/b', entry('x'));
    logs.add('p/a', entry('2'));
    logs.add('p/a', entry('3'));
    expect(seen).toEqual(['1', '2', '3']);
    expect(logs.recent('p/a').map((e) => e.buildId)).toEqual(['2', '3']);
    expect(logs.recent('p/a', 1).map((e) => e.buildId)).toEqual(['3']);
    expect(logs.recent('p/b').map((e) => e.buildId)).toEqual(['x']);
    logs.forget('p/a');
    expect(logs.recent('p/a')).toEqual([]);
  });
});

describe('app logs from workerd', { timeout: 60_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cw-logs-'));
  const engine = new RuntimeEngine({ artifacts, dataDir, baseDomain: 'apps.test', publicScheme: 'http' });
  let port = 0;

  beforeAll(async () => {
    await engine.start();
    port = (await engine.router.listen(0)).port;
    await engine.deploy({ project: 'demo', appId: 'one', buildId: 'logger', env: { NAME: 'one' }, hostnames: [] });
    await engine.deploy({ project: 'demo', appId: 'two', buildId: 'logger', env: { NAME: 'two' }, hostnames: [] });
  }, 60_000);
  afterAll(async () => {
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('records each request with its console lines and uncaught exception, without headers, for its own app only', async () => {
    const one = nextEntries(engine.logs, 'demo/one', 2);
    const two = nextEntries(engine.logs, 'demo/two', 1);
    const started = Date.now();
    await send(port, 'one.demo.apps.test', '/hello?x=1', { headers: { authorization: 'Bearer secret-token', cookie: 'session=secret' } });
    expect((await send(port, 'one.demo.apps.test', '/boom')).status).toBe(500);
    await send(port, 'two.demo.apps.test', '/');
    const [ok, boom] = await one;
    expect(Date.now() - started).toBeLessThan(1000);
    expect(ok).toMatchObject({
      buildId: 'logger',
      outcome: 'ok',
      status: 200,
      request: { method: 'GET', url: 'http://one.demo.apps.test/hello?x=1' },
      logs: [
        { level: 'log', message: 'serving /hello {"app":"one"}' },
        { level: 'warn', message: 'careful' },
      ],
      exceptions: [],
    });
    expect(boom).toMatchObject({ outcome: 'exception', exceptions: [{ name: 'TypeError', message: 'kaboom one' }] });
    expect(boom?.status).toBeUndefined();
    expect(JSON.stringify([ok, boom])).not.toMatch(/secret|authorization|cookie/i);
    const [other] = await two;
    expect(other?.logs[0]?.message).toBe('serving / {"app":"two"}');
    expect(engine.logs.recent('demo/one').every((e) => !JSON.stringify(e).includes('"two"'))).toBe(true);
  });
});
