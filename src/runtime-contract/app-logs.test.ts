// App logs through workerd's tail worker, against the real workerd (no other server needed).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppLogs, type AppLogEntry } from './app-logs.ts';
import { RuntimeEngine } from '../../runtime-server/engine/engine.ts';
import { artifactFromFiles } from '../../runtime-server/engine/testing/artifact-builder.ts';
import { send } from '../../runtime-server/engine/testing/http.ts';
import { MemoryArtifactSource } from '../../runtime-server/engine/testing/memory-artifacts.ts';

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

/** Follows `key`'s logs; `entries` resolves with the first `count` entries from now on. */
async function follow(engine: RuntimeEngine, key: string, count: number): Promise<{ entries: Promise<AppLogEntry[]>; stop: () => void }> {
  const got: AppLogEntry[] = [];
  let done: (entries: AppLogEntry[]) => void = () => {};
  const entries = new Promise<AppLogEntry[]>((resolve) => (done = resolve));
  const stop = await engine.followLogs(key, (entry) => {
    got.push(entry);
    if (got.length === count) done(got);
  });
  return { entries, stop };
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

describe('AppLogs budgets', () => {
  const entry = (message: string): AppLogEntry => ({ time: new Date().toISOString(), buildId: 'b', outcome: 'ok', logs: [{ time: '', level: 'log', message }], exceptions: [] });
  const kib = (n: number) => 'x'.repeat(n * 512); // n KiB as UTF-16

  it('keeps an app within its bytes, dropping its oldest entries', () => {
    const logs = new AppLogs({ budgets: { appBytes: 12 * 1024 } });
    for (let i = 0; i < 10; i++) logs.add('p/a', entry(`${i}${kib(3)}`));
    expect(logs.recent('p/a').map((e) => e.logs[0]!.message[0])).toEqual(['7', '8', '9']);
    expect(logs.bytes('p')).toBeLessThanOrEqual(12 * 1024);
  });

  it('keeps a project within its bytes by its largest app, and every project within the total by the largest project', () => {
    const logs = new AppLogs({ budgets: { appBytes: 64 * 1024, projectBytes: 40 * 1024, totalBytes: 60 * 1024 } });
    logs.add('quiet/a', entry(kib(8)));
    logs.add('loud/small', entry(kib(8)));
    for (let i = 0; i < 20; i++) logs.add('loud/big', entry(kib(4)));
    // The loud project fits its 40 KiB by its largest app; its small app and the quiet project keep theirs.
    expect(logs.bytes('loud')).toBeLessThanOrEqual(40 * 1024);
    expect(logs.recent('loud/small')).toHaveLength(1);
    expect(logs.recent('quiet/a')).toHaveLength(1);
    // Over the total, the largest project loses its oldest, not the quiet one.
    for (let i = 0; i < 5; i++) logs.add('other/x', entry(kib(4)));
    expect(logs.bytes()).toBeLessThanOrEqual(60 * 1024);
    expect(logs.recent('quiet/a')).toHaveLength(1);
    logs.forget('quiet/a');
    expect(logs.bytes('quiet')).toBe(0);
  });

  it('past the total, cuts the largest projects down to one level, and every small project keeps its entries', () => {
    const logs = new AppLogs({ budgets: { appBytes: 1024 * 1024, projectBytes: 1024 * 1024, totalBytes: 2 * 1024 * 1024 } });
    for (let p = 0; p < 2000; p++) logs.add(`small-${p}/a`, entry('s'));
    for (let i = 0; i < 200; i++) logs.add(`big-${i % 4}/a`, entry(kib(8)));
    expect(logs.bytes()).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(Array.from({ length: 2000 }, (_, p) => logs.recent(`small-${p}/a`).length).every((n) => n === 1)).toBe(true);
    const big = [0, 1, 2, 3].map((i) => logs.bytes(`big-${i}`));
    expect(Math.max(...big) - Math.min(...big)).toBeLessThanOrEqual(9 * 1024);
  });
});

describe('app logs from workerd', { timeout: 60_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cw-logs-'));
  const engine = new RuntimeEngine({ artifacts, dataDir, baseDomain: 'apps.test', publicScheme: 'http', logLingerMs: 200 });
  let port = 0;

  beforeAll(async () => {
    await engine.start();
    port = engine.address.port;
    await engine.deploy({ project: 'demo', appId: 'one', buildId: 'logger', env: { NAME: 'one' }, hostnames: [] });
    await engine.deploy({ project: 'demo', appId: 'two', buildId: 'logger', env: { NAME: 'two' }, hostnames: [] });
  }, 60_000);
  afterAll(async () => {
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('records each request with its console lines and uncaught exception, without headers, for its own app only', async () => {
    // Nothing is collected before someone follows: requests cost no tail worker then.
    await send(port, 'one.demo.apps.test', '/unfollowed');
    const { workerdStarts } = engine.status();
    const one = await follow(engine, 'demo/one', 2);
    const two = await follow(engine, 'demo/two', 1);
    expect(engine.status().workerdStarts).toBe(workerdStarts); // following loads the app's isolate anew, with tails: no new workerd
    const started = Date.now();
    await send(port, 'one.demo.apps.test', '/hello?x=1', { headers: { authorization: 'Bearer secret-token', cookie: 'session=secret' } });
    expect((await send(port, 'one.demo.apps.test', '/boom')).status).toBe(500);
    await send(port, 'two.demo.apps.test', '/');
    const [ok, boom] = await one.entries;
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
    const [other] = await two.entries;
    expect(other?.logs[0]?.message).toBe('serving / {"app":"two"}');
    expect(engine.logs.recent('demo/one').every((e) => !JSON.stringify(e).includes('"two"'))).toBe(true);
    expect(engine.logs.recent('demo/one').map((e) => new URL(e.request?.url ?? 'http://x').pathname)).toEqual(['/hello', '/boom']);
    // The last follower leaving stops collection after the linger: the app's isolate without tails serves.
    expect(engine.collectingLogs('demo/one')).toBe(true);
    one.stop();
    await expect.poll(() => engine.collectingLogs('demo/one'), { timeout: 5000 }).toBe(false);
    // A pass after that one has pushed its routing table when this resolves.
    await engine.deploy({ project: 'demo', appId: 'one', buildId: 'logger', env: { NAME: 'one' }, hostnames: [] });
    await send(port, 'one.demo.apps.test', '/after');
    // `two` is still followed, and its entries come through the same tail worker after any of `one`'s.
    const barrier = await follow(engine, 'demo/two', 1);
    await send(port, 'two.demo.apps.test', '/barrier');
    await barrier.entries;
    expect(engine.logs.recent('demo/one')).toHaveLength(2);
    two.stop();
    barrier.stop();
  });
});
